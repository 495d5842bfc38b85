"""`python3 -m assistant new-domain NAME [--data-dir DIR]`: see assistant/scaffold.py."""

from __future__ import annotations

import sys

from assistant.scaffold import main

if __name__ == "__main__":
    sys.exit(main())
