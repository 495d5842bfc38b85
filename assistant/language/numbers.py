"""Numbers as customers write them: native digits, number words, scales and fractions.

"two million fifty thousand", "dedh hazaar", "সাড়ে তিন হাজার" and "สามหมื่น" are amounts that the
rest of the engine reads only as digits, so `amounts` rewrites them. A spoken amount is read
left to right as groups, each a number times a scale, larger scales first ("two million" then
"fifty thousand"); a scale larger than the groups before it multiplies them ("two hundred
thousand"), and a number word smaller than the last one's place completes it ("fifty five",
"doscientos cincuenta", "ยี่สิบห้า"). Only a stretch with a scale, a fraction, two number words
or a hundred and more is rewritten: a lone "one" or "two" is left for the words around it to
explain ("the first one", "these two").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from assistant.language.lexicon import Language, Table, key

DIGITS = r"(?<!\d)(?<!\d[.,])\d+(?:[.,]\d+)*"  # 2, 2.5, 1,50,000; "usd.2.5" too
_DIGITS = re.compile(DIGITS)


class Amount(NamedTuple):
    """A number said in a text, where, and the largest scale it was said in ("15 lakh": 100000)."""

    value: Decimal
    start: int
    end: int
    scale: Decimal | None  # None: digits alone, or a number word or fraction with no scale ("dedh")


class _Token(NamedTuple):
    """One word or number of a spoken amount, as the reader takes it."""

    kind: str
    value: Decimal
    clash: bool  # a clash word: a number only near a scale
    alone: bool = False  # a scale that may stand with no number before it (พัน, "mil")
    tail: Decimal | None = None  # a scale after which a last unit counts in this scale (หมื่น: พัน)


class Numbers:
    """The number words of the loaded languages, and what they add up to."""

    def __init__(self, languages: Sequence[Language]):
        self._ascii = str.maketrans({native: str(value) for lang in languages for value, native in enumerate(lang.digits)})
        self.clashes = {key(word) for lang in languages for word in lang.clashes}
        self.words = Table.of(languages, "numbers", lambda lang: lang.numbers)
        self.scales = Table.of(languages, "scales", lambda lang: lang.scales)
        self.abbreviations = Table.of(languages, "abbreviations", lambda lang: lang.abbreviations)
        self.whole = Table.of(languages, "fractions.whole", lambda lang: lang.fractions.whole)
        self.before = Table.of(languages, "fractions.before", lambda lang: lang.fractions.before)
        self.after = Table.of(languages, "fractions.after", lambda lang: lang.fractions.after)
        self.clock = Table.of(languages, "fractions.clock", lambda lang: lang.fractions.clock)
        self.one = Table.words(languages, "one", lambda lang: lang.one)
        self.alone = Table.words(languages, "scales_alone", lambda lang: lang.scales_alone)
        self.tails = Table(
            ((word, Decimal(lower), lang.spaced) for lang in languages if lang.tails for word, lower in _next_down(lang.scales)),
            "tails",
        )
        self._unit = re.compile(rf"\s*{Table.words(languages, 'units', lambda lang: lang.units).pattern}", re.IGNORECASE)
        joiners = Table.words(languages, "joiners", lambda lang: lang.joiners)
        self._tables: dict[str, Table[int] | Table[Decimal]] = {
            "after": self.after,
            "before": self.before,
            "whole": self.whole,
            "scale": self.scales,
            "abbreviation": self.abbreviations,
            "number": self.words,
        }
        kinds = {
            "digits": DIGITS,
            "after": self.after.pattern,
            "before": self.before.pattern,
            "whole": self.whole.pattern,
            "scale": self.scales.pattern,
            "abbreviation": self.abbreviations.pattern,
            "number": self.words.pattern,
            "one": self.one.pattern,
            "joiner": joiners.pattern,
        }
        self._token = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in kinds.items()), re.IGNORECASE)

    def digits(self, text: str) -> str:
        """Native digits (০-৯, ०-९, ๐-๙) as ASCII ones; nothing else changes, not even the length."""
        return text.translate(self._ascii)

    def value(self, said: str) -> Decimal | None:
        """A number written in digits or in number words ("seven", "twenty five", "ยี่สิบห้า")."""
        if said.isdecimal():
            return Decimal(self.digits(said))
        found = self.words.get(said)
        if found is not None:
            return Decimal(found)
        whole = [amount for amount in self._spoken(said, every=True) if (amount.start, amount.end) == (0, len(said))]
        return whole[0].value if whole else None

    def amounts(self, text: str) -> str:
        """Spelled-out and scaled amounts as plain digits: "dedh hazaar" -> "1500", "80k" -> "80000"."""
        text = self.digits(text)
        pieces, at = [], 0
        for amount in self._spoken(text):
            pieces += [text[at : amount.start], _plain(amount.value)]
            at = amount.end
        return "".join(pieces) + text[at:]

    def found(self, text: str) -> list[Amount]:
        """Every number the text says, in order: the spoken and scaled ones as `amounts` reads
        them, and every other number in digits. Native digits count as ASCII ones; positions are
        the text's own."""
        text = self.digits(text)
        spoken = list(self._spoken(text))
        digits = []
        for said in _DIGITS.finditer(text):
            if any(a.start <= said.start() < a.end for a in spoken):
                continue
            try:
                digits.append(Amount(Decimal(said[0].replace(",", "")), said.start(), said.end(), None))
            except InvalidOperation:  # "1.2.3" is no number
                continue
        return sorted([*spoken, *digits], key=lambda amount: amount.start)

    def _spoken(self, text: str, every: bool = False) -> Iterator[Amount]:
        """Where the amounts worth rewriting are (`every`: all amounts said in words), and what they come to."""
        tokens = list(self._token.finditer(text))
        first = 0
        while first < len(tokens):
            reading = _Amount()
            # complete so far: (token, value, worth it, ended on a scale, its largest scale)
            taken: list[tuple[int, Decimal, bool, bool, Decimal | None]] = []
            for index in range(first, len(tokens)):
                token = tokens[index]
                meaning = self._meaning(token)
                apart = index > first and text[tokens[index - 1].end() : token.start()].strip()
                if apart or not reading.take(meaning):
                    if not apart and meaning.kind in ("scale", "abbreviation") and taken and not taken[-1][3]:
                        # "one thousand two thousand": the number before the refused scale starts the next amount
                        taken = [t for t in taken if t[3]] or taken
                    break
                if reading.complete and reading.said is not None:
                    scale = reading.groups[0][1] if reading.groups else None
                    taken.append((index, reading.said, reading.worth_rewriting, reading.current is None, scale))
            if not taken:
                first += 1
                continue
            last, said, worth, _, scale = taken[-1]
            if last == first and tokens[first].lastgroup == "scale" and not self._unit.match(text, tokens[first].end()):
                worth = False  # a scale alone is an amount only before a unit: "พันบาท", not แสนดี ("very good")
            if worth or every:
                yield Amount(said, tokens[first].start(), tokens[last].end(), scale)
            first = last + 1

    def _meaning(self, token: re.Match[str]) -> _Token:
        """What a token says to the reader."""
        kind, said = str(token.lastgroup), token.group()
        if kind == "digits":
            try:
                return _Token(kind, Decimal(said.replace(",", "")), False)
            except InvalidOperation:
                return _Token("unreadable", Decimal(0), False)
        value = self._tables[kind].get(said) if kind in self._tables else 1
        return _Token(
            kind, Decimal(value if value is not None else 0), key(said) in self.clashes, said in self.alone, self.tails.get(said)
        )


@dataclass
class _Amount:
    """One spoken amount read token by token. `said` is its value as of its last complete token."""

    groups: list[tuple[Decimal, Decimal]] = field(default_factory=list)  # (value, scale), scales falling
    current: Decimal | None = None  # the number said since the last scale
    worded: bool = False  # `current` is in number words, which a smaller one may complete ("fifty five")
    tail: Decimal | None = None  # the last scale's next one down, which a unit said last counts in (สองหมื่นห้า)
    tailed: bool = False  # `current` is such a unit
    from_digits: bool = False  # `current` was written in digits, so an abbreviation may follow ("80k")
    pending: Decimal | None = None  # a fraction said before its number ("sade" of "sade teen")
    article: bool = False  # "a" waits for its scale ("a thousand")
    joined: bool = False  # a joiner ("and") waits for the number after it
    complete: bool = False
    said: Decimal | None = None
    worth_rewriting: bool = False  # a scale or a fraction was read

    def take(self, token: _Token) -> bool:
        """Read one more token; False when it does not continue this amount."""
        self.complete = False
        kind, value = token.kind, token.value
        if kind in ("number", "digits", "whole"):
            ok = self._number(kind, value)
            if ok and kind == "whole" and not token.clash:
                self.worth_rewriting = True
        elif kind in ("before", "one", "joiner"):
            ok = self._prefix(kind, value)
        elif kind == "after":
            ok = self._after(value)
        elif kind in ("scale", "abbreviation"):
            ok = (kind == "scale" or self.from_digits) and self._scale(value, token.alone, token.tail)
        else:
            ok = False
        waiting = self.pending is not None or self.article or self.joined
        if ok and not waiting and (self.current is not None or self.groups):
            self.complete = True
            current = (self.current or Decimal(0)) * (self.tail if self.tailed and self.tail else 1)
            self.said = sum((group for group, _ in self.groups), current)
        return ok

    def _number(self, kind: str, value: Decimal) -> bool:
        if self.article:
            return False
        if self.current is not None:  # a smaller number word completes one: "fifty five", "doscientos cincuenta"
            if not (kind == "number" and self.worded and self.pending is None and 0 < value < _place(self.current)):
                return False
            self.current, self.tailed, self.worth_rewriting = self.current + value, False, True
            return True
        if self.pending is not None:
            value, self.pending, self.worth_rewriting = value + self.pending, None, True
        self.current, self.joined = value, False
        self.worded = kind == "number"
        self.tailed = self.worded and self.tail is not None and 0 < value < 10
        self.from_digits = kind == "digits"
        if self.worded and value >= 100:  # "quinientos", পাঁচশো: no pointer or count of things on screen
            self.worth_rewriting = True
        return True

    def _prefix(self, kind: str, value: Decimal) -> bool:
        if self.pending is not None or self.current is not None or self.article:
            return False
        if kind == "joiner":  # only right after a scale
            if not self.groups or self.joined:
                return False
            self.joined = True
        elif kind == "before":
            self.pending = value
        else:
            self.article = True
        return True

    def _after(self, value: Decimal) -> bool:
        if self.pending is not None or self.joined or self.article:
            return False
        if self.current is not None:  # "two and a half"
            self.current, self.worded, self.tailed = self.current + value, False, False
        elif self.groups:  # สองพันครึ่ง: two thousand and half a thousand
            self.current = value * self.groups[-1][1]
        else:
            return False
        self.worth_rewriting = True
        return True

    def _scale(self, scale: Decimal, alone: bool = False, tail: Decimal | None = None) -> bool:
        number = self.current
        if number is None and (self.pending is not None or self.article or alone):  # "sawa hazaar", "a thousand", พัน
            number = Decimal(1) + (self.pending or Decimal(0))
        smaller = [group for group, of in self.groups if of < scale]
        number = (number or Decimal(0)) + sum(smaller, Decimal(0))
        kept = [(group, of) for group, of in self.groups if of >= scale]
        if number == 0 or self.joined or (kept and kept[-1][1] == scale):
            return False  # a scale alone, or the same scale twice ("one thousand two thousand" is two amounts)
        self.groups = [*kept, (number * scale, scale)]
        self.current, self.pending, self.article, self.worded, self.from_digits = None, None, False, False, False
        self.tail, self.tailed = tail, False
        self.worth_rewriting = True
        return True


def _place(number: Decimal) -> Decimal:
    """The place of a number's last digit that is not zero: 200 -> 100, 50 -> 10, 55 -> 1."""
    if number <= 0 or number != number.to_integral_value():
        return Decimal(1)
    place = Decimal(1)
    while number % (place * 10) == 0:
        place *= 10
    return place


def _next_down(scales: Mapping[int, list[str]]) -> Iterator[tuple[str, int]]:
    """Each scale word of a language with the next smaller scale it has: หมื่น with พัน."""
    ordered = sorted(scales)
    for lower, higher in zip(ordered, ordered[1:], strict=False):
        yield from ((word, lower) for word in scales[higher])


def _plain(amount: Decimal) -> str:
    """An amount as digits without a needless decimal point: 150000, 1.5."""
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")
