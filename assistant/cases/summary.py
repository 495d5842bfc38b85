"""A case on one printed page for the office: its heading, status and every section of its record,
one line per value. The page never grows a second one: the type shrinks to fit, and what still
does not fit is counted at the foot, since the whole record is one GET /cases/<id> away."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from assistant.attachments.store import Attachment
from assistant.cases.store import MANAGED

FONT = "Helvetica"  # a core font: nothing to ship, Latin-1 text only (hence _printable)
SIZES = (10, 9, 8, 7, 6)  # the body's type, largest first
LINE = 0.45  # mm per point of type: the line height
MARGIN = 15
TITLE_SIZE = 14
LATIN_1 = 256
_NOT_SECTIONS = {*MANAGED, "session_id", "customer_id", "title", "labels", "transcript"}
_SPELLED = str.maketrans({"€": "EUR", "‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "...", "›": ">"})


def summary_pdf(case: dict[str, Any], attachments: list[Attachment]) -> bytes:
    """The page; `attachments`: the files the case's conversation sent, named where the record has their ids."""
    labels: dict[str, str] = case.get("labels") or {}
    names = {a.id: a.name for a in attachments}
    lines: list[tuple[str, str]] = [("", f"{case['status']} · {case['created_at'][:16].replace('T', ' ')} UTC")]
    for section, value in case.items():
        if section in _NOT_SECTIONS or value in (None, "", [], {}):
            continue
        lines.append(("B", labels.get(section) or section.replace("_", " ").capitalize()))
        lines.extend(("", f"  {line}") for line in _lines(_named(value, names), labels))
    lines.append(("I", f"{len(case.get('transcript') or [])} messages · {len(attachments)} files · case {case['id']}"))
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_margins(MARGIN, MARGIN)
    pdf.set_title(_printable(case.get("title") or case["id"]))
    pdf.add_page()
    pdf.set_font(FONT, "B", TITLE_SIZE)
    pdf.cell(0, TITLE_SIZE * LINE, _printable(case.get("title") or case["id"]), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    room = pdf.h - MARGIN - pdf.get_y()
    size = next((s for s in SIZES if len(lines) * s * LINE <= room), SIZES[-1])
    fits = int(room // (size * LINE))
    if len(lines) > fits:
        lines = [*lines[: fits - 1], ("I", f"... {len(lines) - fits + 1} more lines: see the case's JSON")]
    for style, text in lines:
        pdf.set_font(FONT, style, size)
        pdf.cell(0, size * LINE, _fitted(pdf, _printable(text)), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    return bytes(pdf.output())


def _lines(value: Any, labels: dict[str, str], prefix: str = "") -> Iterator[str]:
    """A section's values, one line each: a mapping's entries by name, a list's items in turn."""
    if isinstance(value, dict):
        for key, inner in value.items():
            name = f"{prefix}{labels.get(key, key)}"
            if isinstance(inner, dict | list) and any(isinstance(v, dict | list) for v in _values(inner)):
                yield f"{name}:"
                yield from _lines(inner, labels, "  ")
            else:
                yield f"{name}: {_flat(inner)}"
    elif isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        for item in value:
            yield from _lines(item, labels, prefix) if isinstance(item, dict) else [f"{prefix}{_flat(item)}"]
    else:
        yield f"{prefix}{_flat(value)}"


def _named(value: Any, names: dict[str, str]) -> Any:
    """The value with each file's id replaced by its name."""
    if isinstance(value, dict):
        return {key: _named(inner, names) for key, inner in value.items()}
    if isinstance(value, list):
        return [_named(inner, names) for inner in value]
    return names.get(value, value) if isinstance(value, str) else value


def _values(value: dict[str, Any] | list[Any]) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else value


def _flat(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_flat(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_flat(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def _printable(text: str) -> str:
    """What a core font can draw: Latin-1 (Spanish, French, German...); another letter loses its
    accent (č is c), and what is left is '?'."""
    return "".join(_latin(ch) for ch in text.translate(_SPELLED))


def _latin(ch: str) -> str:
    if ord(ch) < LATIN_1:
        return ch
    bare = unicodedata.normalize("NFKD", ch).encode("latin-1", "ignore").decode("latin-1")
    return bare or "?"


def _fitted(pdf: FPDF, text: str) -> str:
    """The text cut to the line's width, with an ellipsis where it was cut."""
    width = pdf.w - 2 * MARGIN
    if pdf.get_string_width(text) <= width:
        return text
    while text and pdf.get_string_width(text + "...") > width:
        text = text[:-1]
    return text + "..."
