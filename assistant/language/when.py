"""Dates, times and head counts as customers type them, in every loaded language.

"tomorrow evening", "next Saturday 11am", "kal shaam 5 baje", "half past 7 in the evening",
"shonibare 11 tay", "the 3rd", "a table for four". Times come out as "HH:MM" (24 h), dates as
"YYYY-MM-DD" relative to a given today, head counts as digits, each with the span it was read
from, so callers can blank it out before looking for other things (a "7" in "7 in the evening"
is no party size). When a message says several, the last wins, so a correction ("not 5, make it
6 pm") reads as meant.

A bare number is never a time (phone numbers, codes and amounts are full of them): an hour
needs am/pm, a colon, an hour word (o'clock, baje, tay), a clock fraction ("half past", "half
eight"), minutes in words ("eight thirty") or a part of the day next to it ("evening 6", "9 at
night"). Without am/pm, a part of the day said next to the hour, or else anywhere in the message,
decides between morning and afternoon ("1 at night" is 01:00, "8 at night" 20:00); with none, an
hour word means the afternoon for 1-7 ("5 baje" is 17:00) and the morning for 8-11. Hour words
that count from another hour (Thai สองทุ่ม, 20:00) say the hour by themselves.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from operator import attrgetter
from typing import Any, Literal, NamedTuple

from assistant.language.lexicon import END, LETTER, WEEKDAYS, Language, Part, Table, key
from assistant.language.numbers import Numbers

DateOrder = Literal["day_first", "month_first"]  # how a date in digits reads: 3/4 is 3 April, or March 4

# The hour a part of the day stands for alone, and the hours 1-11 said beside it that are after noon.
PART_HOURS: dict[Part, tuple[int, range]] = {
    "morning": (10, range(0)),
    "noon": (12, range(1, 12)),
    "midday": (13, range(1, 12)),
    "afternoon": (15, range(1, 12)),
    "evening": (17, range(1, 12)),
    "night": (20, range(5, 12)),  # "raat 2 baje", "1 at night" are after midnight
}
LATE: tuple[Part, ...] = ("evening", "night")  # where 12 is midnight: "raat 12 baje"
_HOUR = r"(?<![\d:.,])\d{1,2}(?!\d)"
_YEAR = r"(?:19|20)\d{2}(?!\d|[:.]\d)"  # four digits that are a year, not an amount or a time ("20:30")


class Found(NamedTuple):
    """A normalised value and where in the text it was said."""

    value: str
    start: int
    end: int


@dataclass(frozen=True)
class WhenParts:
    """What a message says about when; either part is None where it says nothing."""

    date: dt.date | None = None
    time: dt.time | None = None

    def slots(self) -> dict[str, str]:
        """What was said, as bookings store it: {"date": "YYYY-MM-DD", "time": "HH:MM"}."""
        said = {"date": self.date.isoformat() if self.date else None, "time": self.time.strftime("%H:%M") if self.time else None}
        return {key: value for key, value in said.items() if value}


def blank(text: str, *spans: Found | None) -> str:
    """The text with each found span replaced by spaces (offsets kept), so later finders skip it."""
    for found in spans:
        if found and found.end > found.start:
            text = text[: found.start] + " " * (found.end - found.start) + text[found.end :]
    return text


class _Clock(NamedTuple):
    found: Found  # the time and all it was read from, parts of the day included
    core: Found  # the hour and its words only: "tonight" in "tonight 8 pm" still says which day


class When:
    """Reads dates, times and head counts with the words of the given languages."""

    def __init__(self, languages: Sequence[Language], numbers: Numbers, date_order: DateOrder = "day_first"):
        """`date_order`: which of 3/4 is the day, the country's convention."""
        self.numbers = numbers
        self.date_order = date_order
        self.parts = Table.of(languages, "parts", lambda lang: lang.parts)
        self.am = Table.words(languages, "halves.am", lambda lang: lang.halves.am)
        self.pm = Table.words(languages, "halves.pm", lambda lang: lang.halves.pm)
        self.times = Table.of(languages, "times", lambda lang: lang.times)
        self.days = Table.of(languages, "days", lambda lang: lang.days)
        self.weekdays = Table.of(languages, "weekdays", lambda lang: lang.weekdays)
        self.months = Table.of(languages, "months", lambda lang: lang.months)
        self.next = Table.words(languages, "next", lambda lang: lang.next)
        self.counts = Table.of(languages, "counts", lambda lang: lang.counts)
        self.day_words = Table.of(
            [lang for lang in languages if lang.day_words],
            "numbers",
            lambda lang: {n: [w for w in said if key(w) not in numbers.clashes] for n, said in lang.numbers.items() if 0 < n < 32},
        )
        self.counted_after = Table.of(languages, "counted_hours.after", lambda lang: lang.counted_hours.after)
        self.counted_before = Table.of(languages, "counted_hours.before", lambda lang: lang.counted_hours.before)
        # minutes said in words after the hour: "eight thirty", "seven forty-five"
        self.tens = Table.of(languages, "numbers", lambda lang: {n: said for n, said in lang.numbers.items() if 10 <= n < 60})
        self.units = Table.of(languages, "numbers", lambda lang: {n: said for n, said in lang.numbers.items() if 0 < n < 10})
        self.words = {
            name: Table.words(languages, name, attrgetter(name)).pattern
            for name in (
                "hours",
                "counters",
                "postpositions",
                "links",
                "people",
                "groups",
                "alone",
                "units",
                "this",
                "week",
                "month",
                "the",
                "of",
                "ordinals",
            )
        }
        quantity = "|".join(
            (
                self.words["people"],
                self.words["units"],
                numbers.scales.pattern,
                numbers.abbreviations.pattern,
                self.words["counters"],
            )
        )
        self._quantity = re.compile(rf"\s*(?:{quantity})", re.IGNORECASE)  # "evening 2 people" has no hour
        self._part = re.compile(self.parts.pattern, re.IGNORECASE)
        self._named_time = re.compile(self.times.pattern, re.IGNORECASE)
        self._clock = self._clock_pattern(languages, quantity)
        self._dates = self._date_patterns(quantity)
        self._counts, self._alone = self._count_patterns(languages), re.compile(self.words["alone"], re.IGNORECASE)
        self._last_number = re.compile(rf"(?:{numbers.words.pattern})\Z", re.IGNORECASE)

    def _clock_pattern(self, languages: Sequence[Language], quantity: str) -> re.Pattern[str]:
        """An hour said with whatever makes it one: "sade 5 baje", "evening 6:15", "half past 7 in the
        evening", "eight thirty", "সাড়ে আটটায়", "สองทุ่มครึ่ง"."""
        words, numbers, parts = self.words, self.numbers, self.parts.pattern
        bound_hours, bound_counters = (_bound(languages, of) for of in (attrgetter("hours"), attrgetter("counters")))
        counter = rf"(?:{words['counters']}|{bound_counters})(?!\s+(?!{words['postpositions']}{END}){LETTER})"
        # a number word with an hour or counter word written onto it: আট of আটটায়, আড়াই of আড়াইটায়
        numbers_onto, wholes_onto = (
            rf"(?<!{LETTER})(?:{_unspaced(languages, kind, of)})(?={bound_hours}|{bound_counters})"
            for kind, of in (("numbers", attrgetter("numbers")), ("fractions.whole", lambda lang: lang.fractions.whole))
        )
        minutes = rf"[\s-]+(?P<tens>{self.tens.pattern})(?:[\s-]+(?P<units>{self.units.pattern}))?(?!\s*(?:{quantity}))"
        said_hour = (
            rf"(?:(?P<frac>{numbers.before.pattern}|{numbers.clock.pattern})\s*|(?P<since>{self.counted_before.pattern})\s*)?"
            rf"(?:(?P<hour>{_HOUR}|{numbers.words.pattern}|{numbers_onto})"
            rf"(?:(?P<sep>[:.])(?P<minute>\d{{2}})(?!\d)|{minutes})?"
            rf"|(?P<whole>{numbers.whole.pattern}|{wholes_onto}))"
        )
        marks = (self.am.pattern, self.pm.pattern, words["hours"], bound_hours, self.counted_after.pattern, counter)
        return re.compile(
            rf"(?:(?P<p1>{parts})\s*(?:{words['links']}\s*)?)?(?P<core>{said_hour}"
            rf"(?:\s*(?P<mark>{'|'.join(marks)}))?(?:\s*(?P<half>{numbers.after.pattern}))?)"
            rf"(?:\s*(?:{words['links']}\s*)?(?P<p2>{parts}))?",
            re.IGNORECASE,
        )

    def _date_patterns(self, quantity: str) -> list[tuple[str, re.Pattern[str]]]:
        """Each way of naming a date, by kind; earlier kinds win where two overlap."""
        words, nxt, this = self.words, self.next.pattern, self.words["this"]
        day, month = r"(?<![\d.,:/])(?P<day>\d{1,2})(?!\d)", rf"(?P<month>{self.months.pattern})\.?"
        ordinal = rf"(?:{words['ordinals']})"
        said_day = rf"(?P<said_day>(?:{self.day_words.pattern})(?:[\s-]*(?:{self.day_words.pattern}))*)"  # পনেরো ডিসেম্বর
        # a year said after the date is kept, even one gone by: "1 January 2020", "enero 1, 2020"
        year = rf"(?:\s*,?\s*(?:{words['of']}\s+)?(?P<year>{_YEAR}))?"
        first, second = ("day", "month") if self.date_order == "day_first" else ("month", "day")
        return [
            (kind, re.compile(pattern, re.IGNORECASE))
            for kind, pattern in (
                ("iso", r"(?<![\d/.-])(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})(?![\d/.-])"),
                ("day month", rf"(?:{day}{ordinal}?|{said_day})\s*(?:{words['of']}\s+)?{month}{year}"),
                ("month day", rf"{month}\s*(?:{words['the']}\s+)?{day}{ordinal}?{END}{year}"),
                (
                    "of month",
                    (
                        rf"(?:(?P<the>{words['the']})\s+)?{day}{ordinal}{END}(?P<of_month>\s+{words['of']}\s+"
                        rf"(?:(?P<next>{nxt})|{this}|{words['the']})\s+{words['month']})?"
                    ),
                ),
                (
                    "weekday",
                    (
                        rf"(?:(?P<before>{this}|{nxt})(?:\s*(?P<week_before>{words['week']}))?\s*)?"
                        rf"(?P<weekday>{self.weekdays.pattern})(?:\s*(?P<after>{this}|{nxt})"
                        rf"(?:\s*(?P<week_after>{words['week']}))?)?"
                    ),
                ),
                ("relative", self.days.pattern),
                # in the country's order; not "24/7", nor ranges of amounts, durations or people
                (
                    "numeric",
                    (
                        rf"(?<![\d/.-])(?!24/7(?!\d))(?P<{first}>\d{{1,2}})[/-](?P<{second}>\d{{1,2}})"
                        rf"(?:[/-](?P<year>\d{{2}}|\d{{4}}))?(?![\d/.-])(?!\s*(?:{quantity}))"
                    ),
                ),
            )
        ]

    def _count_patterns(self, languages: Sequence[Language]) -> list[tuple[re.Pattern[str], bool]]:
        """Head counts next to people ("4 log", "twenty five people", চারজন) or after a group word
        ("party of 4", "for 4"), and whether a clash word may be the count there (only next to
        people: "do log", not "for do")."""
        words, said = self.words, self.numbers.words.pattern
        bound_people = _bound(languages, attrgetter("people"))
        onto = rf"(?<!{LETTER})(?:{_unspaced(languages, 'numbers', attrgetter('numbers'))})(?={bound_people})"  # চার of চারজন
        anyone = rf"(?<![\d.,:/])\d{{1,2}}(?!\d)|(?:{said})(?:[\s-]*(?:{said}))*|{onto}|{self.counts.pattern}"
        return [
            (re.compile(pattern, re.IGNORECASE), clash_ok)
            for pattern, clash_ok in (
                (rf"(?P<n>{anyone})\s*(?:{words['people']}|{bound_people})", True),
                (
                    (
                        rf"(?:{words['groups']})\s+(?P<n>{anyone})(?!\s*(?:[:.]\d|{self.am.pattern}|{self.pm.pattern}"
                        rf"|{words['hours']}|{words['units']}))"
                    ),
                    False,
                ),
            )
        ]

    # ------------------------------------------------------------ times

    def time(self, text: str, earlier: dt.time | None = None) -> Found | None:
        """The last time of day the text names, as HH:MM; a part of the day alone is no time.
        `earlier`, a time the conversation already holds, says the half of the day of an hour
        said with no am/pm or part of the day ("tomorrow evening", then "half past eight")."""
        clocks = self._clocks(self.numbers.digits(text), earlier)
        return clocks[-1].found if clocks else None

    def _clocks(self, text: str, earlier: dt.time | None = None) -> list[_Clock]:
        """Every time of day the text names, in order."""
        latest = [self.parts.get(m.group()) for m in self._part.finditer(text)]
        clocks: list[_Clock] = []
        for m in self._clock.finditer(text):
            value = self._clock_time(m, text, latest[-1] if latest else None, earlier is not None and earlier.hour >= 12)
            if value:
                # "tonight" in "tonight at 9" also names the day: it is left for the date
                start = m.start("core") if m["p1"] and m["p1"] in self.days else m.start()
                end = m.end("core") if m["p2"] and m["p2"] in self.days else m.end()
                clocks.append(_Clock(Found(value, start, end), Found(value, m.start("core"), m.end("core"))))
        taken = [(c.found.start, c.found.end) for c in clocks]
        for m in self._named_time.finditer(text):
            named = self.times.get(m.group())
            if named and not any(m.start() < end and start < m.end() for start, end in taken):
                clocks.append(_Clock(Found(named, m.start(), m.end()), Found(named, m.start(), m.end())))
        return sorted(clocks, key=lambda clock: clock.found.start)

    def _is_clock(self, m: re.Match[str], text: str) -> bool:
        """Whether a number read as an hour was said as one: with am/pm or an hour word, after a
        clock fraction, as HH:MM or with its minutes in words, or next to a part of the day (but
        not "evening 2 people")."""
        hour_word, frac = m["hour"], m["frac"]
        by_digits = hour_word is not None and hour_word.isdecimal()
        clash = hour_word is not None and not by_digits and hour_word.casefold() in self.numbers.clashes
        beside_part = (m["p1"] or m["p2"]) and not clash
        return bool(
            m["mark"]
            or m["since"]
            or (m["tens"] and not clash)
            or (frac and frac in self.numbers.clock)
            or (m["sep"] == ":" and by_digits)
            or (beside_part and (m["p2"] or not self._quantity.match(text, m.end())))
        )

    def _minutes(self, m: re.Match[str]) -> int | None:
        """The minutes said after the hour (0 where none), or None where they are no minutes ("eight fifteen five")."""
        if m["minute"]:
            return int(m["minute"])
        tens, units = (self.tens.get(m["tens"]) if m["tens"] else 0), (self.units.get(m["units"]) if m["units"] else 0)
        if tens is None or units is None or (units and (tens < 20 or tens % 10)):
            return None
        return tens + units

    def _clock_time(self, m: re.Match[str], text: str, latest: Part | None, after_noon: bool) -> str | None:
        """HH:MM for one clock reading, or None where it is no time after all; `after_noon`: the
        time already said is after noon, so a bare hour 1-11 is too."""
        if not self._is_clock(m, text):
            return None
        hour_word, mark, frac = m["hour"], m["mark"], m["frac"]
        by_digits = hour_word is not None and hour_word.isdecimal()
        beside_part = m["p1"] or m["p2"]
        said = self.numbers.value(hour_word) if hour_word else self.numbers.whole.get(m["whole"])
        minutes = self._minutes(m)
        if said is None or minutes is None:
            return None
        shift = (self.numbers.before.get(frac) or self.numbers.clock.get(frac) or 0) if frac else 0
        shift += (self.numbers.after.get(m["half"]) or 0) if m["half"] else 0  # สองทุ่มครึ่ง
        value = Decimal(said) + Decimal(shift)
        hour = int(value)
        minute = int((value - hour) * 60) + minutes
        if hour == 0 and shift < 0:  # "quarter to 1" is 12:45
            hour = 12
        part = self.parts.get(beside_part) if beside_part else latest
        since = self.counted_before.get(m["since"]) if m["since"] else self.counted_after.get(mark) if mark else None
        if since is not None:
            if not 1 <= int(said) <= 12:
                return None
            hour = (since + hour) % 24  # หกทุ่ม, 18 + 6, is midnight
        elif mark and (mark in self.am or mark in self.pm):
            if not 1 <= int(said) <= 12:
                return None
            hour = hour % 12 + (12 if mark in self.pm else 0)
        elif part:
            if hour in PART_HOURS[part][1]:
                hour += 12
            elif part in LATE and hour == 12:
                hour = 0  # "raat 12 baje" is midnight
        elif not (m["sep"] == ":" and by_digits and not mark) and 1 <= hour <= (11 if after_noon else 7):
            hour += 12  # "5 baje", "5 o'clock": a visit or a meal, not five in the morning
        if hour > 23 or minute > 59:
            return None
        return f"{hour:02d}:{minute:02d}"

    # ------------------------------------------------------------ dates

    def date(self, text: str, today: dt.date) -> Found | None:
        """The last date the text names, as YYYY-MM-DD, relative to `today`."""
        text = self.numbers.digits(text)
        # Times are blanked out first, so "Dec 3 pm" or "5-6 pm" is no date; so are parts of the
        # day that are no day themselves, so "el jueves por la mañana" is Thursday, not tomorrow.
        parts = [Found(m.group(), m.start(), m.end()) for m in self._part.finditer(text) if self.days.get(m.group()) is None]
        text = blank(text, *(clock.core for clock in self._clocks(text)), *parts)
        hits: list[Found] = []
        taken: list[tuple[int, int]] = []
        for kind, pattern in self._dates:
            for m in pattern.finditer(text):
                if any(m.start() < end and start < m.end() for start, end in taken):
                    continue
                day = self._date(kind, m, today)
                if day:
                    hits.append(Found(day.isoformat(), m.start(), m.end()))
                    taken.append((m.start(), m.end()))
        return max(hits, key=lambda found: found.start) if hits else None

    def _date(self, kind: str, m: re.Match[str], today: dt.date) -> dt.date | None:
        if kind == "iso":
            return _valid(int(m["year"]), int(m["month"]), int(m["day"]))
        if kind in ("day month", "month day"):
            month = int(self.months.get(m["month"].rstrip(".")) or 0)
            said = m["day"] or self.numbers.value(m["said_day"])
            if said is None:
                return None
            return _valid(int(m["year"]), month, int(said)) if m["year"] else _next(today, month, int(said))
        if kind == "of month":
            return self._day_of_month(m, today)
        if kind == "weekday":
            return self._weekday(m, today)
        if kind == "relative":
            days = self.days.get(m.group())
            return None if days is None else today + dt.timedelta(days=days)
        day, month, year = int(m["day"]), int(m["month"]), m["year"]
        if year:  # "25/12/26" is 2026
            return _valid(int(year) + (2000 if len(year) == 2 else 0), month, day)
        return _next(today, month, day)

    def _day_of_month(self, m: re.Match[str], today: dt.date) -> dt.date | None:
        """ "The 3rd", "27th of this month", "the 5th of next month": this month's unless it has passed."""
        if not (m["the"] or m["of_month"]):  # "3rd" alone may be a floor or a gear
            return None
        day, next_month = int(m["day"]), bool(m["next"])
        candidate = _day_of_month(today, day, months_ahead=1 if next_month else 0)
        if candidate and (candidate >= today or next_month):
            return candidate
        return _day_of_month(today, day, months_ahead=1)

    def _weekday(self, m: re.Match[str], today: dt.date) -> dt.date | None:
        """The first such day after today; with "this", today counts; "next week" means the calendar week after."""
        weekday = self.weekdays.get(m["weekday"])
        if weekday is None:
            return None
        target = WEEKDAYS.index(weekday)
        if m["week_before"] or m["week_after"]:
            modifier = m["before"] if m["week_before"] else m["after"]
            week_start = today - dt.timedelta(days=today.weekday())
            return week_start + dt.timedelta(days=target + (7 if modifier in self.next else 0))
        ahead = (target - today.weekday()) % 7
        this = any(said and said not in self.next for said in (m["before"], m["after"]))
        return today + dt.timedelta(days=ahead or (0 if this else 7))

    # ------------------------------------------------------------ head counts

    def count(self, text: str) -> Found | None:
        """How many people (or seats, tickets) the text asks for, as digits; the last mention wins."""
        text = self.numbers.digits(text)
        hits = []
        for pattern, clash_ok in self._counts:
            for m in pattern.finditer(text):
                if not clash_ok and m["n"].casefold() in self.numbers.clashes:
                    continue
                last = self._last_number.search(m["n"])  # "do teen log": no one number, the people are three
                said = self.numbers.value(m["n"]) or self.counts.get(m["n"]) or (last and self.numbers.value(last[0]))
                if said:
                    hits.append(Found(str(int(said)), m.start(), m.end()))
        hits += [Found("1", m.start(), m.end()) for m in self._alone.finditer(text)]
        return max(hits, key=lambda found: found.start) if hits else None

    # ------------------------------------------------------------ both

    def parse(self, text: str, now: dt.datetime, earlier: dt.time | None = None) -> WhenParts:
        """The date and/or time a message mentions, relative to `now` (in the business's zone);
        a part of the day alone stands for its usual hour ("tomorrow evening" is 17:00). `earlier`
        is a time already said, whose half of the day a bare "half past eight" keeps."""
        text = self.numbers.digits(text)
        day, clock = self.date(text, now.date()), self.time(text, earlier)
        if clock:
            time: dt.time | None = dt.time.fromisoformat(clock.value)
        else:
            parts = [self.parts.get(m.group()) for m in self._part.finditer(text)]
            time = dt.time(PART_HOURS[parts[-1]][0]) if parts and parts[-1] else None
        return WhenParts(date=dt.date.fromisoformat(day.value) if day else None, time=time)


def _bound(languages: Sequence[Language], of: Callable[[Language], list[str]]) -> str:
    """The words of a kind (hours, counters) that are written onto a number word, found right after it."""
    words = {key(word) for lang in languages for word in of(lang)}
    return Table(((key(w), key(w), False) for lang in languages for w in lang.bound if key(w) in words), "bound").pattern + END


def _unspaced(languages: Sequence[Language], kind: str, words: Callable[[Language], Mapping[Any, list[str]]]) -> str:
    """Words of the languages that write words onto them (`bound`), matched wherever they stand."""
    return Table(((w, v, False) for lang in languages if lang.bound for v, said in words(lang).items() for w in said), kind).pattern


def _valid(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _next(today: dt.date, month: int, day: int) -> dt.date | None:
    """A day and month without a year: its next occurrence, today included."""
    this_year = _valid(today.year, month, day)
    if this_year is None or this_year >= today:
        return this_year
    return _valid(today.year + 1, month, day)


def _day_of_month(today: dt.date, day: int, months_ahead: int) -> dt.date | None:
    month_index = today.month - 1 + months_ahead
    return _valid(today.year + month_index // 12, month_index % 12 + 1, day)
