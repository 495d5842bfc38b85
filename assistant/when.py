"""Dates and times as customers type them: "tomorrow evening", "next Saturday 11am", "kal shaam 5 baje".

A bare number is never a time (phone numbers, codes and amounts are full of them): an hour
needs am/pm, a colon, "o'clock" or an hour word (baje, ta, tay, tar dike). Without am/pm, an
hour word means the afternoon for 1-7 ("5 baje" is 17:00) and the morning for 8-11, unless a
part of the day says otherwise. When a message mentions several dates or times, the last one
wins, so a correction ("not 5, make it 6 pm") reads as the customer meant it.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class WhenParts:
    """What a message says about when; either part is None where it says nothing."""

    date: dt.date | None = None
    time: dt.time | None = None

    def slots(self) -> dict[str, str]:
        """What was said, as bookings store it: {"date": "YYYY-MM-DD", "time": "HH:MM"}."""
        said = {"date": self.date.isoformat() if self.date else None,
                "time": self.time.strftime("%H:%M") if self.time else None}
        return {key: value for key, value in said.items() if value}


def _words(groups: dict[str, str]) -> re.Pattern:
    """One pattern over whole words; the named group that matched tells which key it was."""
    return re.compile("|".join(rf"\b(?P<{key}>{names})\b" for key, names in groups.items()))


_RELATIVE = _words({  # days from today; "kal" is tomorrow here, as nobody books yesterday
    "d2": r"day after tomorrow|parso|porshu|porshudin",
    "d1": r"tomorrow|tmrw?|kaa?l|kalke|agamikal",
    "d0": r"today|tonight|aa?j|aa?jke",
})
_WEEKDAY = _words({  # date.weekday(): Monday is 0; Bengali names may take the locative -e
    "w0": r"monday|mon|s(?:h)?ombare?|som[vw]aa?r",
    "w1": r"tuesday|tues?|mongolbare?|mangal[vw]aa?r",
    "w2": r"wednesday|wed|budhbare?|budh[vw]aa?r",
    "w3": r"thursday|thu|thurs?|briho(?:s|sh)potibare?|bishudbare?|guru[vw]aa?r|veer[vw]aa?r",
    "w4": r"friday|fri|s(?:h)?ukrobare?|shukra[vw]aa?r",
    "w5": r"saturday|sat|s(?:h)?onibare?|shani[vw]aa?r",
    "w6": r"sunday|sun|robibare?|ravi[vw]aa?r|it[vw]aa?r",
})
_PART = _words({  # parts of the day: the hour they stand for alone, and whether they make 1-11 pm
    "morning": r"morning|s(?:h)?okale?|subah|subha",
    "noon": r"noon|midday",
    "dupur": r"dupure?|dopahar",
    "afternoon": r"afternoon|bik[ae]le?",
    "evening": r"evening|tonight|night|shaam|sham|sondh(?:y)?a(?:y|e)?|raa?t|raate",  # not "rate"
})
_PART_HOURS = {"morning": (10, False), "noon": (12, True), "dupur": (13, True),
               "afternoon": (15, True), "evening": (17, True)}

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?")
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s*(?:of\s+)?" + _MONTH)
_MONTH_DAY = re.compile(r"\b" + _MONTH + r"\s*(\d{1,2})(?:st|nd|rd|th)?\b")
_NUMERIC = re.compile(  # day first, as written in Bangladesh; not "24/7", nor ranges of amounts or durations
    r"(?<![\d/.-])(?!24/7\b)(\d{1,2})[/-](\d{1,2})(?:[/-](\d{2}|\d{4}))?(?![\d/.-])"
    r"(?!\s*(?:k|lakh|lac|crore|tk|taka|%|days?|din|weeks?|months?|years?|people|persons|guests|pax|log|seats)(?![a-z]))"
)
_CLOCK = re.compile(  # "ta" also counts things ("2 ta card"): an hour only where no other word follows
    r"(?<![\d:.])(\d{1,2})(?:[:.](\d{2}))?\s*"
    r"(a\.?m\.?|p\.?m\.?|o['’]?clock|baje|tay|tar(?: dike)?|ta(?!\s+(?!(?:e|te|theke|porjonto)\b)[a-z]))(?![a-z])"
    r"|(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])"
)


def parse_when(text: str, now: dt.datetime) -> WhenParts:
    """The date and/or time a message mentions, relative to `now` (in the business's zone)."""
    lowered = text.lower()
    clocks = list(_CLOCK.finditer(lowered))
    # Times are blanked out before dates are read, so "Dec 3 pm" or "5-6 pm" is no date.
    rest = _CLOCK.sub(lambda m: " " * len(m.group()), lowered)
    return WhenParts(date=_date(rest, now.date()), time=_time(clocks, _last(_PART, rest)))


def _last(pattern: re.Pattern, text: str) -> re.Match | None:
    """The latest mention, as a later one corrects an earlier one."""
    return next(reversed(list(pattern.finditer(text))), None)


def _date(text: str, today: dt.date) -> dt.date | None:
    """The last date mentioned: relative, weekday, ISO, day-month or month-day, or numeric."""
    found: list[tuple[int, dt.date | None]] = []
    if m := _last(_RELATIVE, text):
        found.append((m.start(), today + dt.timedelta(days=int(m.lastgroup[1]))))
    if m := _last(_WEEKDAY, text):  # "saturday", "this" or "next saturday": the first one after today
        days_ahead = (int(m.lastgroup[1]) - today.weekday() - 1) % 7 + 1
        found.append((m.start(), today + dt.timedelta(days=days_ahead)))
    if m := _last(_ISO, text):
        found.append((m.start(), _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    for pattern, day_at, month_at in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        if m := _last(pattern, text):
            found.append((m.start(), _next(today, _MONTHS.index(m.group(month_at)[:3]) + 1, int(m.group(day_at)))))
    if m := _last(_NUMERIC, text):
        day, month, year = int(m.group(1)), int(m.group(2)), m.group(3)
        if year:  # "25/12/26" is 2026
            found.append((m.start(), _valid(int(year) + (2000 if len(year) == 2 else 0), month, day)))
        else:
            found.append((m.start(), _next(today, month, day)))
    return max(found, key=lambda start_date: start_date[0])[1] if found else None


def _time(clocks: list[re.Match], part: re.Match | None) -> dt.time | None:
    """The last clock time mentioned, else the hour a part of the day stands for."""
    default, afternoon = _PART_HOURS[part.lastgroup] if part else (None, None)
    if not clocks:
        return dt.time(default) if part else None
    m = clocks[-1]
    if m.group(4):  # a 24-hour clock; a part of the day still makes "sondha 6:30" 18:30
        hour, minute = int(m.group(4)), int(m.group(5))
        return dt.time(hour + 12 if afternoon and 1 <= hour <= 11 else hour, minute)
    hour, minute, word = int(m.group(1)), int(m.group(2) or 0), m.group(3).replace(".", "")
    if hour > 23 or minute > 59 or (word in ("am", "pm") and not 1 <= hour <= 12):
        return None
    if word == "pm" and hour < 12:
        hour += 12
    elif word == "am" and hour == 12:
        hour = 0
    elif word not in ("am", "pm") and 1 <= hour <= 11 and (afternoon if part else hour <= 7):
        hour += 12
    elif word not in ("am", "pm") and hour == 12 and part and part.lastgroup == "evening":
        hour = 0  # "raat 12 baje" is midnight
    return dt.time(hour, minute)


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
