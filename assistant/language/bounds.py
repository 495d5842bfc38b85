"""Amounts and the bounds they are said to be ("under 30k", "more than 15", "16GB or more",
"between 10 and 15 lakh", "ไม่เกิน 15000", "20 lakh se upar"), the amounts taken back ("3,500...
no, 3.5 lakh"), and numbers that are part of a name, not an amount ("iPhone 16 Pro Max", "RTX
4060", "Legion 5").

A bound's direction is the language's: words before an amount (`at_most`, `at_least`), after it
(`or_less`, `or_more`), or around two (`between`). What the amount is of (a price, a mileage, a
party's size) is the business's to say, from the words near it: `Bound` keeps where each was said.

Model names are written as a word and a number, so a number in digits right after a word in
Latin letters that no language file lists belongs to that word, unless a scale, a unit or a
bound's word follows it ("laptop 40000 max", "iphone 30k"). Only the business knows its own
words after which a number is an amount ("price 30000", "spend 20000"), so callers name them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from operator import attrgetter
from typing import Literal, NamedTuple

from pydantic import BaseModel

from assistant.language.lexicon import LETTER, Language, Table, key
from assistant.language.numbers import Amount, Numbers

Direction = Literal["min", "max"]
Measure = Literal["people", "hour", "unit"]  # what an amount counts, in the language's own words ("4 people", "7 pm", "3 days")
_APART = 1000  # two amounts this many times apart are no range anyone means
REACH = 64  # characters before an amount its bound's words fit in ("nothing more than usd 5000"): no need to read further back

_NAME = re.compile(r"(?<![^\W_])([a-z][a-z\d]*)[ \t-]+\Z", re.IGNORECASE)  # the word just before a number
_NUMBER = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?")
_SIGN = r"(?:[^\w\s]\.?\s*)?"  # "under €2,000"
_CURRENCY = rf"(?:[^\w\s]\.?\s*|{LETTER}+\.?\s+)?"  # "under €2,000", "up to usd 5000", "ไม่เกิน 15000"
# a unit or two between an amount and its bound's words after it: "60000 euros or less", "16 gb ram or more"
_GAP = rf"(?:\s*{LETTER}+\.?){{0,2}}\s*"


class Bound(NamedTuple):
    """An amount a message says, and the bound it is said to be."""

    value: Decimal
    start: int  # where the amount is said ("15 lakh")
    end: int
    direction: Direction | None  # "under 15 lakh": max; "16GB or more": min; None: said as it is
    scale: Decimal | None  # the scale it was said in ("15 lakh": 100000): an amount of money, not a count
    first: int  # where the bound's words start ("under 15 lakh", "between 10 and 15 lakh")
    last: int  # where they end ("60000 or less", "over 5000 mAh")
    measure: Measure | None  # a head count, an hour or a unit the language names right after it; None: not said


class Bounds:
    """Every loaded language's words for bounds, ranges and corrections, and which numbers are names."""

    def __init__(self, languages: Sequence[Language], numbers: Numbers):
        self._numbers = numbers
        before = _directed(languages, lambda lang: lang.at_most, lambda lang: lang.at_least, "bounds before an amount")
        after = _directed(languages, lambda lang: lang.or_less, lambda lang: lang.or_more, "bounds after an amount")
        self._before_words, self._after_words = before, after
        # the nearest word before an amount, or one word further: "under ₹2,000", "up to usd 5000"
        self._before = [re.compile(rf"({before.pattern})\s*{gap}\Z", re.IGNORECASE) for gap in (_SIGN, _CURRENCY)]
        # "60000 euros or less"; a bound's word with an amount after it ("max 40k") is the next amount's
        self._after = re.compile(rf"{_GAP}({after.pattern})(?!\s*{_SIGN}\d)", re.IGNORECASE)
        self._next = re.compile(rf"\s*{_CURRENCY}\d")  # "max under 50000": a word of both kinds before the next amount is its
        ranges = {
            kind: Table.words(languages, kind, attrgetter(f"between.{kind}")).pattern
            for kind in ("before", "to", "joined", "after")
        }
        self._range_before = re.compile(rf"(?:{ranges['before']})\s*{_SIGN}\Z", re.IGNORECASE)
        self._range_to = re.compile(rf"\s*(?:({ranges['to']})|{ranges['joined']})\s*{_CURRENCY}", re.IGNORECASE)
        self._range_after = re.compile(rf"{_GAP}(?:{ranges['after']})", re.IGNORECASE)
        measures: tuple[tuple[Measure, Callable[[Language], list[str]]], ...] = (
            ("people", lambda lang: lang.people),
            ("hour", lambda lang: [*lang.hours, *lang.halves.am, *lang.halves.pm]),
            ("unit", lambda lang: lang.units),
        )
        # a word of two kinds is the first's ("hrs" is an hour's, not a length of time's)
        first = {(key(word), lang.spaced): measure for lang in languages for measure, of in reversed(measures) for word in of(lang)}
        self._measure_words = Table(((word, measure, spaced) for (word, spaced), measure in first.items()), "measures")
        self._measure = re.compile(rf"\s*-?\s*({self._measure_words.pattern})", re.IGNORECASE)
        corrections = Table.words(languages, "corrections", lambda lang: lang.corrections).pattern
        self._corrected = re.compile(rf"\D{{0,30}}?(?:{corrections})\D*\Z", re.IGNORECASE)  # "3,500... no, 3.5 lakh"
        units = Table.words(languages, "units", lambda lang: lang.units).pattern
        self._an_amount = re.compile(
            rf"\s*(?:{after.pattern}|{units}|{numbers.scales.pattern}|{numbers.abbreviations.pattern})", re.IGNORECASE
        )
        self._listed = frozenset(word for lang in languages for said in _listed(lang) for word in key(said).split())

    def read(self, text: str) -> list[Bound]:
        """Every amount the text says, in order, with the bound it is said to be, except those
        taken back for another ("3,500... no, 3.5 lakh": the second, said as the first was).
        Two amounts said as a range are a floor and a ceiling; the low one said without the
        high one's scale takes it ("between 10 and 15 lakh")."""
        bounds = list(self._ranged(text, self._numbers.found(text)))
        kept: list[Bound] = []
        for index, bound in enumerate(bounds):
            later = bounds[index + 1] if index + 1 < len(bounds) else None
            if later is not None and later.first > bound.last and self._corrected.match(text, bound.last, later.first):
                bounds[index + 1] = _instead(bound, later)
                continue
            kept.append(bound)
        return kept

    def _ranged(self, text: str, amounts: list[Amount]) -> Iterator[Bound]:
        """Each amount as a bound, two at a time where they are said as a range."""
        index = 0
        while index < len(amounts):
            low = amounts[index]
            high = amounts[index + 1] if index + 1 < len(amounts) else None
            ranged = self._range(text, low, high) if high else None
            if ranged:
                yield from ranged
                index += 2
                continue
            yield self._bound(text, low)
            index += 1

    def _range(self, text: str, low: Amount, high: Amount) -> tuple[Bound, Bound] | None:
        """Two amounts said as a range, as a floor and a ceiling; None when they are not one."""
        joint = self._range_to.fullmatch(text, low.end, high.start)
        if joint is None:
            return None
        before = self._range_before.search(text, max(0, low.start - REACH), low.start)
        after = self._range_after.match(text, high.end)
        if not (joint[1] or before or after):  # "and" alone joins no range: "16GB RAM and 512 SSD"
            return None
        if joint[1] == "-" and (text[low.start - 1 : low.start] in ("-", "+") or text[high.end : high.end + 1] == "-"):
            return None  # a date or a phone number: 2026-11-28, +880-1712-345678
        if any(re.match(r"0\d", text[a.start : a.end]) for a in (low, high)):
            return None  # nobody says an amount with a leading zero: 01712-345678 is a phone number
        value = low.value * high.scale if low.scale is None and high.scale and low.value * high.scale <= high.value else low.value
        if value > high.value or high.value > _APART * max(value, Decimal(1)):  # "500 to 01712345678" is no range
            return None
        measure, measured = self._measured(text, high.end)
        first = before.start() if before else low.start
        last = max(after.end() if after else high.end, measured)
        return (
            Bound(value, low.start, low.end, "min", low.scale or high.scale, first, last, measure),
            Bound(high.value, high.start, high.end, "max", high.scale, first, last, measure),
        )

    def _bound(self, text: str, amount: Amount) -> Bound:
        reach = max(0, amount.start - REACH)
        before = next(filter(None, (pattern.search(text, reach, amount.start) for pattern in self._before)), None)
        after = None if before else self._after.match(text, amount.end)
        if after and after[1] in self._before_words and self._next.match(text, after.end()):
            after = None  # "iphone 16 pro max under 50000"
        measure, measured = self._measured(text, amount.end)
        direction = self._before_words.get(before[1]) if before else self._after_words.get(after[1]) if after else None
        first = before.start() if before else amount.start
        last = max(after.end() if after else amount.end, measured)
        return Bound(amount.value, amount.start, amount.end, direction, amount.scale, first, last, measure)

    def _measured(self, text: str, end: int) -> tuple[Measure | None, int]:
        """What the language's word right after an amount says it counts, and where that word ends."""
        found = self._measure.match(text, end)
        return (self._measure_words.get(found[1]), found.end()) if found else (None, end)

    def lists(self, word: str) -> bool:
        """Whether some language file lists the word, whatever for."""
        return key(word) in self._listed

    def unnamed(self, text: str, known: Callable[[str], bool]) -> str:
        """The text with every number that is part of a name blanked out, its length kept."""
        for number in _NUMBER.finditer(text):
            if self._in_name(text, number.start(), known):
                text = text[: number.start()] + " " * len(number[0]) + text[number.end() :]
        return text

    def _in_name(self, text: str, at: int, known: Callable[[str], bool] = lambda word: False) -> bool:
        """Whether the number starting at `at` is part of a name rather than an amount."""
        name = _NAME.search(text, max(0, at - REACH), at)
        if name is None or key(name[1]) in self._listed or known(key(name[1])):
            return False
        number = _NUMBER.match(text, at)
        return not (number and self._an_amount.match(text, number.end()))


def _instead(taken_back: Bound, meant: Bound) -> Bound:
    """The amount meant instead of one taken back, said as that one was where it says less: "under
    15 lakh, sorry, 18" is under 18 lakh (a bare number smaller than the scale is in it; "80k,
    sorry, 85000" is said in full)."""
    scale = taken_back.scale
    if meant.scale is None and scale is not None and meant.value < scale:
        meant = meant._replace(value=meant.value * scale, scale=scale)
    return meant._replace(direction=meant.direction or taken_back.direction)


def _directed(
    languages: Sequence[Language], ceilings: Callable[[Language], list[str]], floors: Callable[[Language], list[str]], kind: str
) -> Table[Direction]:
    """The words of ceilings and floors, each standing for its direction."""
    directions: tuple[tuple[Direction, Callable[[Language], list[str]]], ...] = (("max", ceilings), ("min", floors))
    return Table(
        ((key(word), direction, lang.spaced) for lang in languages for direction, of in directions for word in of(lang)), kind
    )


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
