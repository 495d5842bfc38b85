"""Amounts said to be a ceiling ("under 30k", "60000 baht or less", "ไม่เกิน 15000"), and numbers
that are part of a name, not an amount ("iPhone 16 Pro Max", "RTX 4060", "Legion 5").

Model names are written as a word and a number, so a number in digits right after a word in
Latin letters that no language file lists belongs to that word, unless a scale, a unit or an
"or less" follows it ("laptop 40000 max", "iphone 30k"). Only the business knows its own words
after which a number is an amount ("price 30000", "spend 20000"), so callers name them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from pydantic import BaseModel

from assistant.language.lexicon import LETTER, Language, Table, key
from assistant.language.numbers import Numbers

_NAME = re.compile(r"(?<![^\W_])([a-z][a-z\d]*)[ \t-]+\Z", re.IGNORECASE)  # the word just before a number
_NUMBER = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?")


class Ceilings:
    """Where a ceiling's amount starts, and which numbers are names, with every loaded language's words."""

    def __init__(self, languages: Sequence[Language], numbers: Numbers):
        at_most = Table.words(languages, "at_most", lambda lang: lang.at_most).pattern
        or_less = Table.words(languages, "or_less", lambda lang: lang.or_less).pattern
        units = Table.words(languages, "units", lambda lang: lang.units).pattern
        amount = r"(?<![\w.,])\d[\d,]*(?:\.\d+)?"
        currency = rf"(?:[^\w\s]\.?\s*|{LETTER}+\.?\s+)?"  # "under €2,000", "up to usd 5000", "ไม่เกิน 15000"
        self._before = re.compile(rf"{at_most}\s*{currency}(?=\d)", re.IGNORECASE)
        # "60000 euros or less"; a word of both kinds with an amount after it ("max 40k") is the first kind
        self._after = re.compile(rf"({amount})(?:\s*{LETTER}+\.?)?\s*{or_less}(?!\s*{currency}\d)", re.IGNORECASE)
        self._an_amount = re.compile(
            rf"\s*(?:{or_less}|{units}|{numbers.scales.pattern}|{numbers.abbreviations.pattern})", re.IGNORECASE
        )
        self._listed = frozenset(word for lang in languages for said in _listed(lang) for word in key(said).split())

    def start(self, text: str) -> int | None:
        """Where the amount set as a ceiling starts, in text with its amounts as digits; None for none."""
        before = self._before.search(text)
        after = next((m.start(1) for m in self._after.finditer(text) if not self._in_name(text, m.start(1))), None)
        return min((at for at in (before.end() if before else None, after) if at is not None), default=None)

    def unnamed(self, text: str, known: Callable[[str], bool]) -> str:
        """The text with every number that is part of a name blanked out, its length kept."""
        for number in _NUMBER.finditer(text):
            if self._in_name(text, number.start(), known):
                text = text[: number.start()] + " " * len(number[0]) + text[number.end() :]
        return text

    def _in_name(self, text: str, at: int, known: Callable[[str], bool] = lambda word: False) -> bool:
        """Whether the number starting at `at` is part of a name rather than an amount."""
        name = _NAME.search(text, 0, at)
        if name is None or key(name[1]) in self._listed or known(key(name[1])):
            return False
        number = _NUMBER.match(text, at)
        return not (number and self._an_amount.match(text, number.end()))


def _listed(value: object) -> Iterator[str]:
    """Every word a language file lists, whatever it lists it for."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _listed(getattr(value, name))
    elif isinstance(value, dict):
        for said in value.values():
            yield from _listed(said)
    elif isinstance(value, list):
        yield from (word for word in value if isinstance(word, str))
