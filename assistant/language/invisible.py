"""Characters a reader never sees but a display obeys: bidi embeddings, overrides and isolates
(U+202A-U+202E, U+2066-U+2069), direction marks, zero-width characters and NUL with the other
control characters. Kept in a file name, a case's value or the office's PDF they make
"invoice\u202efdp.exe" read as "invoiceexe.pdf", or hide words inside others; so they go."""

from __future__ import annotations

import re

_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]+")
_LINE_BREAKS = re.compile("[\t\n\r]+")


def visible(text: str, lines: bool = True) -> str:
    """The text without them; `lines`: tabs and line breaks stay (else they become a space)."""
    shown = _INVISIBLE.sub("", text)
    return shown if lines else _LINE_BREAKS.sub(" ", shown)
