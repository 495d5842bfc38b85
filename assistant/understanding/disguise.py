"""The ways a message may read once the disguises put on its words are undone.

An attacker hides words a reader looks for: with look-alike letters from other scripts
(Cyrillic "о" for "o"), digits and signs for letters ("1gn0r3"), invisible characters, accents,
full-width or styled letters, letters spaced or dotted apart, or an encoding (base64, also
URL-safe and split across spaces or lines, hex, rot13, the text reversed). `variants` gives
the message as written and as it reads with each of these undone, for a reader to search them all.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata

# Letters of other scripts drawn like Latin ones (Unicode's confusables, the ones fonts make identical).
_LOOK_ALIKES = str.maketrans(
    "аеорсухіјѕԁһӏкмнтвАВЕІЈКМНОРСТУХЅԜԛԝ" + "αβεικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧϳ" + "ıɡʟ",  # Cyrillic, Greek, Latin of other alphabets
    "aeopcyxijsdhlkmhtbABEIJKMHOPCTYXSWqw" + "abeikvoptuxABEZHIKMNOPTYXj" + "igl",
)
_LEET = str.maketrans("0345789@$", "oeastbgas")
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[\w@$]*[A-Za-z])(?=[\w@$]*[0-9@$])[\w@$]+")
_LEET_INSIDE = re.compile(r"(?<=[A-Za-z])[!|](?=[A-Za-z])")
_SPACED = re.compile(r"(?<!\w)(?:\w[ .\-_*/]){2,}\w(?!\w)")  # "I g n o r e", "s.y.s.t.e.m", "a l l"
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")  # "StoreAdmin", "HackerGPT": words run together
_FOR_SPACE = re.compile(r"_|\+|%20")  # "IGNORE_ALL_PREVIOUS", "ignore+all", URL-encoded spaces
_INSIDE = re.compile(r"(?<=[^\W\d_])[.\-_*'`|](?=[^\W\d_])")  # "ign.ore", "in-struc-tions"
_B64_RUN = re.compile(r"[A-Za-z0-9+/\-_]+={0,2}(?:\s+[A-Za-z0-9+/\-_]+={0,2})*")
_ENCODED = re.compile(r"[+/=\-_\d]|.[A-Z]")  # a piece of base64 rather than a word: digits, signs, capitals inside
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[\s:]?){8,}")
_STARTS = 4  # pieces of a run of base64 tried as its start
_WORDY = 0.7  # the least share of letters and spaces in decoded text that says something
_SHORTEST_CODE = 16  # characters of base64 or hex: shorter runs are words, and decode to too little to matter


def variants(text: str) -> list[str]:
    """The text as written (normalised, invisible characters dropped) and as it reads with each
    disguise undone; then what its encoded payloads say, look-alike letters folded (a payload is
    not disguised twice over). Duplicates and blank readings left out, but never every reading:
    a message of invisible characters only still reads as itself."""
    found = _surfaces(text)
    for decoded in _decodings(found[0]):
        found += [decoded, decoded.translate(_LOOK_ALIKES)]
    return list(dict.fromkeys(v for v in found if v.strip())) or found[:1]


def plain(text: str) -> str:
    """Compatibility forms folded (full-width, styled and circled letters), format characters
    (zero-width, soft hyphen, direction marks) dropped, accents on Latin letters dropped, every
    script's digits as ASCII ones."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept: list[str] = []
    for char in decomposed:
        category = unicodedata.category(char)
        if category == "Cf" or (category == "Mn" and kept and kept[-1].isascii() and kept[-1].isalpha()):
            continue
        kept.append(str(unicodedata.decimal(char)) if category == "Nd" and not char.isascii() else char)
    return unicodedata.normalize("NFC", "".join(kept))


def _surfaces(text: str) -> list[str]:
    """The text plain, with look-alike letters folded to Latin, with digits read as letters
    (1 as i and as l), with letters spaced or dotted apart joined up, with signs inside words
    dropped, and with words run together or joined by signs that stand for spaces set apart."""
    written = plain(text)
    latin = written.translate(_LOOK_ALIKES)
    leet = [_leet(latin, one) for one in "il"]
    joined = [_SPACED.sub(lambda m: re.sub(r"[ .\-_*/]", "", m.group(0)), t) for t in (latin, *leet)]
    return [written, latin, *leet, *joined, _INSIDE.sub("", latin), _FOR_SPACE.sub(" ", _CAMEL.sub(" ", latin))]


def _leet(text: str, one: str) -> str:
    """The text with the digits and signs inside its words read as the letters they look like."""
    return _LEET_INSIDE.sub("l", _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET).replace("1", one), text))


def _decodings(text: str) -> list[str]:
    """What the text's encoded payloads say: base64 runs (URL-safe too, split by spaces or lines,
    with words before them), hex, rot13 and the text reversed."""
    decoded = [codecs.decode(text, "rot13"), text[::-1]]
    for run in _B64_RUN.finditer(text):
        pieces = run.group(0).split()
        # A payload may follow ordinary words ("decode this aWdub3Jl..."): it starts at one of the
        # first pieces that look encoded, and ends at its padding or with noise from words after it.
        starts = [i for i, piece in enumerate(pieces) if _ENCODED.search(piece)][:_STARTS]
        for start in starts:
            code = "".join(pieces[start:]).split("=")[0]
            if len(code) >= _SHORTEST_CODE:
                decoded.append(_base64(code))
    for run in _HEX.finditer(text):
        code = re.sub(r"[\s:]", "", run.group(0))
        if len(code) >= _SHORTEST_CODE:
            decoded.append(bytes.fromhex(code[: len(code) // 2 * 2]).decode("utf-8", "ignore"))
    return [d for d in decoded if d]


def _base64(code: str) -> str:
    """The text a base64 payload encodes, as far as it decodes; what follows it (ordinary words
    after the payload) decodes to noise that no reader matches."""
    code = code.rstrip("=").translate(str.maketrans("-_", "+/"))
    code = code[: len(code) - len(code) % 4] if len(code) % 4 == 1 else code
    try:
        raw = base64.b64decode(code + "=" * (-len(code) % 4))
    except (binascii.Error, ValueError):
        return ""
    text = "".join(ch for ch in raw.decode("utf-8", "ignore") if ch.isprintable() or ch.isspace())
    wordy = sum(ch.isalpha() or ch.isspace() or unicodedata.category(ch).startswith("M") for ch in text)
    return text if wordy >= _WORDY * len(text) else ""  # ordinary words decode to noise: signs and digits
