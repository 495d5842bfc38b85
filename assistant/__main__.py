"""`python3 -m assistant COMMAND`: the tools for domain packs, each with its own arguments."""

from __future__ import annotations

import sys

USAGE = """usage: python3 -m assistant COMMAND ...

commands:
  new-domain NAME [--data-dir DIR]     create a new, valid domain pack to fill in
  test-conversations PACK [--dir DIR]  play a pack's conversation tests (docs/conversation-tests.md)
  translations PACK LANG [--engine]    what a pack's translation into LANG lacks, as the file wants it
  migrate [--check]                    bring the durable database (DATABASE_URL) to the code's schema"""
USAGE_ERROR = 2


def main(argv: list[str]) -> int:
    """Hand the arguments to the command's own parser. Each command is imported only when used:
    the conversation tests load the whole app, the scaffold needs none of it."""
    command = argv[0] if argv else None
    if command == "new-domain":
        from assistant.pack.scaffold import main as new_domain

        return new_domain(argv)
    if command == "test-conversations":
        from assistant.conversations.cli import main as test_conversations

        return test_conversations(argv[1:])
    if command == "translations":
        from assistant.pack.untranslated import main as translations

        return translations(argv[1:])
    if command == "migrate":
        from assistant.infra.migrations import main as migrate

        return migrate(argv[1:])
    asked = command in ("-h", "--help")
    if command and not asked:
        print(f"error: unknown command {command!r}", file=sys.stderr)
    print(USAGE, file=sys.stdout if asked else sys.stderr)
    return 0 if asked else USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
