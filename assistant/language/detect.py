"""Which of a business's languages a message is written in, and whether it asks for replies in one.

A script tells most: Bengali, Devanagari and Thai letters belong to one language each here (a
language's script is its digits', so no table of scripts is kept), and a word in one makes the
message that language's, as product names stay in Latin letters. Latin letters may be English,
Spanish, or Bangla and Hindi typed in Latin letters (Banglish, Hinglish), told apart by their
everyday words (each language's stop words and `telling` words: "hello", "hola"). A message with
no telling word ("ok", "12:30") says nothing, and the conversation keeps the language it had.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from assistant.language.lexicon import LETTER, Language, key

LATIN = "LATIN"
_WORD = re.compile(rf"{LETTER}+")  # vowel signs stay in their word: ภาษา, বাংলায়
NATIVE_LETTERS = 2  # a word of a language's own script makes the message that language's, whatever names it holds
_REQUEST_WORDS = 6  # "please reply in Bangla from now on" is about the longest such request


@dataclass(frozen=True)
class Written:
    """A message's language, and whether it is in that language's own script (not romanised)."""

    code: str
    native: bool


def script(char: str) -> str:
    """The Unicode script a letter belongs to, by its name: "BENGALI", "THAI", "LATIN"."""
    return unicodedata.name(char, "").split(" ")[0]


class Detector:
    def __init__(self, codes: tuple[str, ...], languages: tuple[Language, ...]):
        self.scripts = {code: script(lang.digits[0]) if lang.digits else LATIN for code, lang in zip(codes, languages, strict=True)}
        self.words = {
            code: frozenset(key(w) for w in [*lang.stop_words, *lang.telling] if all(script(c) == LATIN for c in w if c.isalpha()))
            for code, lang in zip(codes, languages, strict=True)
        }
        self.called = {key(word): code for code, lang in zip(codes, languages, strict=True) for word in lang.called}
        self.speak = frozenset(key(word) for lang in languages for word in lang.speak)

    def written_in(self, text: str) -> Written | None:
        """The language of `text`, or None where nothing in it tells."""
        letters = [script(c) for c in text if c.isalpha()]
        native = {code: letters.count(own) for code, own in self.scripts.items() if own != LATIN}
        if native and max(native.values()) >= NATIVE_LETTERS:  # "มี MacBook ไหม": names stay in Latin letters
            return Written(max(native, key=lambda code: native[code]), native=True)
        words = [key(w) for w in _WORD.findall(text)]
        hits = {code: sum(w in known for w in words) for code, known in self.words.items()}
        best = max(hits.values(), default=0)
        found = [code for code, n in hits.items() if n == best]
        if best == 0 or len(found) > 1:
            return None
        return Written(found[0], native=self.scripts[found[0]] == LATIN)

    def asked_for(self, text: str) -> str | None:
        """The language a message asks replies in: its name with only request words around it
        ("Bangla te bolun", "hindi mein batao", "in English please", "ตอบเป็นภาษาไทย");
        "Bengali food" asks none."""
        words = [key(w) for w in _WORD.findall(text)]
        if len(words) > _REQUEST_WORDS:
            return None
        pieces = [self._pieces(w) for w in words]
        if not words or any(p is None for p in pieces):
            return None
        named = {self.called[p] for found in pieces for p in found or [] if p in self.called}
        return named.pop() if len(named) == 1 else None

    def _pieces(self, word: str) -> list[str] | None:
        """The request words and language names a word is made of, or None: "ตอบเป็นภาษาไทย" is
        ตอบ, เป็น, ภาษาไทย (Thai writes them together), "banglate" is bangla, te."""
        known = {*self.called, *self.speak}
        best: list[list[str] | None] = [[], *([None] * len(word))]
        for end in range(1, len(word) + 1):
            for start in range(end):
                before = best[start]
                if before is not None and word[start:end] in known:
                    best[end] = [*before, word[start:end]]
                    break
        return best[len(word)]
