"""The unanswered-questions export is opened in spreadsheets, so customers' words in it must stay
words: a cell that starts like a formula (=, +, -, @, a tab or a carriage return, full-width
forms too) is written as text with a leading quote, and every cell is quoted (OWASP, CSV injection)."""

from __future__ import annotations

import csv
import io

from conftest import OPERATOR_KEY, app_for

ATTACKS = [
    "+1+cmd|'/C calc'!A0 why is my card blocked",
    '=HYPERLINK("http://evil.example","click")',
    "-2+3+cmd|' /C notepad'!'B1'",
    "@SUM(1+9)*cmd|' /C calc'!A0",
    "\tdisguised with a tab",
    "\rdisguised with a return",
    "＝１＋１ in full-width",
    "＋cmd in full-width",
    "－cmd in full-width",
    "＠cmd in full-width",
]


def test_cells_that_start_like_formulas_are_exported_as_quoted_text(tmp_path):
    app = app_for(tmp_path, "bank", operator_api_keys=[OPERATOR_KEY])
    for question in [*ATTACKS, 'plain question, with a comma and "quotes"']:
        app.extensions["pipeline"].people.note_unanswered(question, "not_understood")
    exported = app.test_client().get(
        "/console/api/unanswered.csv", headers={"X-API-Key": OPERATOR_KEY.split(":")[-1]}, environ_base={"REMOTE_ADDR": "10.0.0.7"}
    )
    assert exported.status_code == 200
    text = exported.get_data(as_text=True)
    assert all(line.startswith('"') for line in text.split("\r\n") if line), "every field quoted"
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["count", "example", "reasons", "last_asked"]
    examples = {row[1] for row in rows[1:]}
    assert examples - {'plain question, with a comma and "quotes"'} <= {f"'{attack}" for attack in ATTACKS}
    assert len(examples) > 4, "questions of other meanings, each its own group"
    assert 'plain question, with a comma and "quotes"' in examples, "other words as they were"
    assert not any(cell.startswith(tuple("=+-@\t\r＝＋－＠")) for row in rows for cell in row)
