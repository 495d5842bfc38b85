"""`python3 -m assistant new-domain NAME [--data-dir DIR]`: see assistant/pack/scaffold.py."""

from __future__ import annotations

import sys

from assistant.pack.scaffold import main

if __name__ == "__main__":
    sys.exit(main())
