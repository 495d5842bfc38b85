"""A filter the customer takes back: "forget the fee limit", "any brand", "no budget", "brand
doesn't matter", "koi bhi brand", read with every loaded language's words around the business's
own names for its filters."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from assistant.language.lexicon import END, Language, Table


class Dropping:
    def __init__(self, languages: Iterable[Language]):
        languages = tuple(languages)
        self._before = Table.words(languages, "drop", lambda lang: lang.drop).pattern
        self._after = Table.words(languages, "dropped", lambda lang: lang.dropped).pattern
        self._determiners = Table.words(languages, "pointers.determiners", lambda lang: lang.pointers.determiners).pattern
        self._compiled: dict[tuple[tuple[str, tuple[str, ...]], ...], list[tuple[str, re.Pattern[str]]]] = {}

    def read(self, text: str, nouns: Mapping[str, Iterable[str]], leading: bool = False) -> list[str]:
        """The filters, by name, that the text takes back; `nouns` are each filter's names
        ("brand", "budget", "fee"). `leading`: only where the text starts by taking it back
        ("forget the fee limit", not "is there any fee?")."""
        key = tuple((name, tuple(sorted(words))) for name, words in sorted(nouns.items()))
        if key not in self._compiled:
            self._compiled[key] = [(name, self._pattern(words)) for name, words in key if words]
        return [name for name, pattern in self._compiled[key] if (pattern.match if leading else pattern.search)(text)]

    def _pattern(self, words: Iterable[str]) -> re.Pattern[str]:
        noun = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        before = rf"{self._before}\s+(?:{self._determiners}\s+)?(?:{noun}){END}"
        after = rf"(?<!\w)(?:{noun})\s+{self._after}"
        return re.compile(f"{before}|{after}", re.IGNORECASE)
