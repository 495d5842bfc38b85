"""Dates and times as customers type them: "tomorrow evening", "next Saturday 11am", "kal shaam 5 baje".

A bare number is never a time (phone numbers, codes and amounts are full of them): an hour
needs am/pm, a colon, "o'clock" or an hour word (baje, ta, tay). Without am/pm, an hour word
means the afternoon for 1-7 ("5 baje" is 17:00) and the morning for 8-11.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class WhenParts:
    date: dt.date | None = None
    time: dt.time | None = None


_RELATIVE = [
    (re.compile(r"\b(day after tomorrow|parso|porshu|porshudin)\b"), 2),
    (re.compile(r"\b(tomorrow|tmrw|tmr|kal|kaal|kalke|agamikal)\b"), 1),
    (re.compile(r"\b(today|tonight|aaj|aj|ajke)\b"), 0),
]
_WEEKDAYS = {  # date.weekday(): Monday is 0
    0: "monday|mon|shombar|sombar|somvaar|somwar", 1: "tuesday|tue|tues|mongolbar|mangalvaar|mangalwar",
    2: "wednesday|wed|budhbar|budhvaar|budhwar", 3: "thursday|thu|thur|thurs|brihospotibar|bishudbar|guruvaar|guruwar|veervaar",
    4: "friday|fri|shukrobar|shukravaar|shukrawar", 5: "saturday|sat|shonibar|shanivaar|shaniwar",
    6: "sunday|sun|robibar|ravivaar|raviwar|itwaar",
}
_WEEKDAY = re.compile(r"\b(" + "|".join(_WEEKDAYS.values()) + r")\b")
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH)
_MONTH_DAY = re.compile(r"\b" + _MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b")
_NUMERIC = re.compile(r"(?<![\d/.-])(\d{1,2})[/-](\d{1,2})(?![\d/-])")
_CLOCK = re.compile(
    r"(?<![\d:.])(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'?clock|baje|tay|tar dike|ta)(?![a-z])"
    r"|(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])"
)
_PARTS = [  # part of day: (pattern, default hour, adds 12 to an hour word of 1-11)
    (re.compile(r"\b(morning|sokal|shokal|subah|subha)\b"), 10, False),
    (re.compile(r"\b(noon|midday|dupur|dopahar|dophor)\b"), 13, True),
    (re.compile(r"\b(afternoon|bikel|bikal|bikele)\b"), 15, True),
    (re.compile(r"\b(evening|tonight|night|shaam|sham|sondha|sondhya|raat|rat)\b"), 17, True),
]


def parse_when(text: str, now: dt.datetime) -> WhenParts:
    """The date and/or time a message mentions, relative to `now` (in the business's zone)."""
    lowered = text.lower()
    return WhenParts(date=_date(lowered, now.date()), time=_time(lowered))


def _date(text: str, today: dt.date) -> dt.date | None:
    for pattern, days in _RELATIVE:
        if pattern.search(text):
            return today + dt.timedelta(days=days)
    if m := _WEEKDAY.search(text):
        target = next(day for day, names in _WEEKDAYS.items() if m.group(1) in names.split("|"))
        return today + dt.timedelta(days=(target - today.weekday() - 1) % 7 + 1)
    if m := _ISO.search(text):
        return _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for pattern, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        if m := pattern.search(text):
            return _next(today, _MONTHS.index(m.group(month_group)[:3]) + 1, int(m.group(day_group)))
    if m := _NUMERIC.search(text):
        return _next(today, int(m.group(2)), int(m.group(1)))  # day first, as written in Bangladesh
    return None


def _time(text: str) -> dt.time | None:
    part = next(((hour, pm) for pattern, hour, pm in _PARTS if pattern.search(text)), None)
    if re.search(r"\b(noon|midday)\b", text) and not _CLOCK.search(text):
        return dt.time(12)
    m = _CLOCK.search(text)
    if not m:
        return dt.time(part[0]) if part else None
    if m.group(4):  # 17:00
        return dt.time(int(m.group(4)), int(m.group(5)))
    hour, minute, word = int(m.group(1)), int(m.group(2) or 0), m.group(3).replace(".", "")
    if hour > 23 or minute > 59 or (word in ("am", "pm") and not 1 <= hour <= 12):
        return None
    if word == "pm" and hour < 12:
        hour += 12
    elif word == "am" and hour == 12:
        hour = 0
    elif word not in ("am", "pm") and 1 <= hour <= 11 and ((part and part[1]) or (not part and hour <= 7)):
        hour += 12
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
