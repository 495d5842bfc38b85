"""Pack extensions: docs/extensions.md's worked example, built from that page as written, runs; a
new action touches only the pack's folder and its extension."""

from __future__ import annotations

import re
import sys
import uuid
from pathlib import Path

import pytest
import yaml
from conftest import app_for

import extensions
from assistant.pack.model import DataError
from assistant.pack.scaffold import new_domain
from extensions.base import EXTENSIONS

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "extensions.md"
# A fenced block of the guide that is a file to write (file=) or to add to (append=), and the transcript.
BLOCK = re.compile(r"^( *)```\w+ (file|append)=(\S+)\n(.*?)^\1```", re.M | re.S)
TRANSCRIPT = re.compile(r"^( *)```\n((?:\1> .*\n(?:\1[^>`\n].*\n)*)+)\1```", re.M)


@pytest.fixture
def example(tmp_path, monkeypatch):
    """The guide's pack and extension, written where this test's app finds them (its extensions
    folder added to the package's path, as a business's own checkout would put it in extensions/)."""
    here = tmp_path / "extensions"
    monkeypatch.setattr(extensions, "__path__", [*extensions.__path__, str(here)])
    new_domain("acme", tmp_path / "data", "callbacks", here)
    guide = GUIDE.read_text(encoding="utf-8")
    blocks = BLOCK.findall(guide)
    assert {kind for _, kind, _, _ in blocks} == {"file", "append"}, "the guide shows what to write and what to add"
    for indent, kind, where, text in blocks:
        lines = [line.removeprefix(indent) for line in text.splitlines(keepends=True)]
        target = (tmp_path / "data" / where.removeprefix("data/")) if where.startswith("data/") else tmp_path / where
        assert target.is_file(), f"the guide's {where} is one the scaffold wrote"
        with target.open("a" if kind == "append" else "w", encoding="utf-8") as file:
            file.write(("\n" if kind == "append" else "") + "".join(lines))
    yield tmp_path / "data" / "acme", guide
    for name in [m for m in sys.modules if m.startswith("extensions.callbacks")]:
        del sys.modules[name]


def test_the_guides_new_action_runs_as_its_transcript_says(example, tmp_path):
    folder, guide = example
    app = app_for(tmp_path, data_dir=folder)
    client, session = app.test_client(), str(uuid.uuid4())
    indent, transcript = TRANSCRIPT.findall(guide)[0]
    said = [line.removeprefix(indent) for line in transcript.splitlines()]
    turns = [(said[i][2:], said[i + 1]) for i in range(0, len(said), 2)]
    assert len(turns) == 3
    for message, reply in turns:
        body = client.post("/chat", json={"query": message, "session_id": session}).get_json()
        assert body["reply"] == reply, (message, body["reply"])
    callbacks = next(e for e in EXTENSIONS.get(app) if e.name == "callbacks")
    assert [(c["name"], c["session"]) for c in callbacks.calls] == [("Priya", session)]  # type: ignore[attr-defined]


def test_a_pack_naming_an_action_no_extension_provides_does_not_start(example, tmp_path):
    folder, _ = example
    pack = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
    del pack["extensions"]
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataError, match="flows.callback: call_back: no such action"):
        app_for(tmp_path, data_dir=folder)


def test_a_pack_naming_an_extension_nobody_has_does_not_start(tmp_path):
    folder = new_domain("acme", tmp_path / "data")
    with (folder / "pack.yaml").open("a", encoding="utf-8") as pack:
        pack.write("\nextensions:\n  loyalty: {}\n")
    with pytest.raises(DataError, match="no extension 'loyalty'"):
        app_for(tmp_path, data_dir=folder)
