"""`python3 -m assistant test-conversations PACK`: play a pack's conversation files and say which failed, and how."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assistant.conversations.runner import FOLDER, conversation_files, play_file

FAILED = 1
USAGE_ERROR = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m assistant test-conversations", description="Play a domain pack's conversation tests."
    )
    parser.add_argument("pack", help="the pack, a folder under data/ (as DOMAIN=<pack>)")
    parser.add_argument("--dir", type=Path, help=f"the conversation files' folder (default: {FOLDER}/<pack>)")
    args = parser.parse_args(argv)
    folder: Path = args.dir or FOLDER / args.pack
    files = conversation_files(folder)
    if not files:
        print(f"error: no conversation files (*.yml) in {folder}", file=sys.stderr)
        return USAGE_ERROR
    passed = turns = 0
    for path in files:
        try:
            result = play_file(path, args.pack)
        except ValueError as error:  # a file that does not load fails, with what is wrong in it
            print(f"FAIL {path.parent.name}/{path.name}: {error}")
            continue
        print(result.report())
        passed += result.passed
        turns += result.total
    print(f"\n{args.pack}: {passed} of {len(files)} conversations passed ({turns} turns)")
    return 0 if passed == len(files) else FAILED
