"""Command line: read user turns as JSON lines, write intent and slots as JSON lines.

    python3 -m assistant.understanding.nlu --schema SCHEMA.json [--values VALUES.json] [--today YYYY-MM-DD] \
        < turns.jsonl > predictions.jsonl

Each input line is {"user": ..., "system": ...}; a line with a "dialogue_id" is read as the next
turn of that conversation, so its slots are only what changed. Bad input stops the run with one
message naming the line and exit status 2, as a pipeline step should fail: loudly, without a
traceback to dig through.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from assistant.understanding.nlu.schema import SchemaUnderstanding
from assistant.understanding.nlu.tracker import DialogueTracker


class InputError(Exception):
    """A problem with what the command was given, reported as one line and exit status 2."""


def _load_json(path: str, what: str) -> object:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"cannot read {what} file {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{what} file {path} is not valid JSON: {error}") from None


def load_understanding(schema_path: str, values_path: str | None) -> SchemaUnderstanding:
    """The understanding for a schema file (and known values), or an InputError saying what is wrong."""
    schema = _load_json(schema_path, "schema")
    if (
        not isinstance(schema, dict)
        or not isinstance(schema.get("slots"), list)
        or not isinstance(schema.get("intents"), list)
        or not schema["intents"]
        or not all(isinstance(item, dict) and "name" in item for item in schema["slots"] + schema["intents"])
    ):
        raise InputError(
            f"schema file {schema_path} is not an SGD service schema "
            "(it needs 'slots' and a non-empty 'intents', each item with a 'name')"
        )
    values = _load_json(values_path, "values") if values_path else {}
    if not isinstance(values, dict) or not all(isinstance(v, list) for v in values.values()):
        raise InputError(f"values file {values_path} must map slot names to lists of values")
    return SchemaUnderstanding.from_schema(schema, {slot: [str(v) for v in vs] for slot, vs in values.items()})


def _turns(lines: Iterable[str]) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(turn, user, system) for each non-blank line; an InputError for the first bad one."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            turn = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"line {number}: not JSON ({error.msg})") from None
        if not isinstance(turn, dict) or not isinstance(turn.get("user"), str):
            raise InputError(f"line {number}: expected an object with a string 'user'")
        system = turn.get("system") or ""
        if not isinstance(system, str):
            raise InputError(f"line {number}: 'system' must be a string")
        yield turn, turn["user"], system


def run(understanding: SchemaUnderstanding, lines: Iterable[str], out: TextIO, today: dt.date) -> None:
    """Write one prediction line per turn, following conversations that carry a dialogue_id."""
    dialogues: dict[str, DialogueTracker] = {}
    for turn, user, system in _turns(lines):
        if "dialogue_id" in turn:
            tracker = dialogues.setdefault(str(turn["dialogue_id"]), DialogueTracker(understanding))
            prediction = tracker.turn(user, system, today)
        else:
            prediction = understanding.read(user, system, today)
        out.write(json.dumps(prediction, ensure_ascii=False) + "\n")


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a YYYY-MM-DD date: {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m assistant.understanding.nlu", description=__doc__.split("\n")[0])
    parser.add_argument("--schema", required=True, help="SGD service schema (JSON)")
    parser.add_argument("--values", help='known values of free-text slots: {"slot": ["value", ...]}')
    parser.add_argument("--today", type=_date, default=dt.date.today(), help="date that relative dates count from")
    args = parser.parse_args(argv)
    try:
        run(load_understanding(args.schema, args.values), sys.stdin, sys.stdout, args.today)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
