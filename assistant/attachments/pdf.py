"""Whether a PDF can act when opened: JavaScript, an action run on opening or on a page or field
(/OpenAction, /AA), a program launched, an embedded file, rich media or an XFA form. A customer's
document is read by the office, in whatever viewer it has; one that can act is not kept.

The names are looked for in the file as written (with #xx escapes undone: /J#61vaScript is
/JavaScript) and inside its object streams, where PDF 1.5 compresses dictionaries. An object
stream that cannot be read (another filter, encrypted, or inflating past OBJECT_STREAMS_BYTES)
cannot be checked, and is reported as such."""

from __future__ import annotations

import re
import zlib

ACTIVE = ("JavaScript", "JS", "AA", "Launch", "EmbeddedFile", "EmbeddedFiles", "RichMedia", "XFA")
OBJECT_STREAMS_BYTES = 16 * 1024 * 1024  # what its object streams may inflate to, all together
# An /OpenAction that is a destination ([page /FitH null]: the page the viewer opens at, which
# fpdf2 and most writers set) does nothing else; an action (a dictionary) or a reference may.
_NAME = re.compile(rb"/(" + b"|".join(a.encode() for a in ACTIVE) + rb")(?=[\s/<>\[\]()%{}]|$)|/(OpenAction)(?!\s*\[)")
_ESCAPED = re.compile(rb"#([0-9A-Fa-f]{2})")
_STREAM = re.compile(rb"(?<!end)stream\r?\n")
_FLATE_ONLY = re.compile(rb"/Filter\s*(\[\s*)?/FlateDecode\s*\]?")


class Unchecked(ValueError):
    """A part of the PDF that could not be read to check it."""


def active_content(data: bytes) -> str | None:
    """The first name of active content the PDF holds, or None; `Unchecked` when it cannot tell."""
    for part in [data, *_object_streams(data)]:
        found = _NAME.search(_unescaped(part))
        if found:
            return (found.group(1) or found.group(2)).decode()
    return None


def _unescaped(raw: bytes) -> bytes:
    return _ESCAPED.sub(lambda m: bytes([int(m.group(1), 16)]), raw)


def _object_streams(data: bytes) -> list[bytes]:
    """Each object stream inflated (the dictionary before `stream` says /Type /ObjStm)."""
    found, budget = [], OBJECT_STREAMS_BYTES
    for start in _STREAM.finditer(data):
        dictionary = _unescaped(data[data.rfind(b"obj", 0, start.start()) : start.start()])
        if b"/ObjStm" not in dictionary:
            continue
        if b"/Filter" not in dictionary:  # not compressed: the file as written showed it
            continue
        if not _FLATE_ONLY.search(dictionary) or b"/DecodeParms" in dictionary:
            raise Unchecked("an object stream with a filter other than FlateDecode")
        inflater = zlib.decompressobj()
        try:
            inflated = inflater.decompress(data[start.end() :], budget + 1)
        except zlib.error:
            raise Unchecked("an object stream that does not inflate (damaged or encrypted)") from None
        budget -= len(inflated)
        if budget < 0:
            raise Unchecked("object streams that inflate past the limit")
        found.append(inflated)
    return found
