"""Times, dates and counts as people say them, turned into the canonical forms a service stores.

Times come out as "HH:MM" (24 h), dates as "YYYY-MM-DD" relative to a given today, counts as
digits. English phrasings are read here ("half past 11 in the morning", "evening 6:15", "the 3rd",
"Wednesday next week"); Hinglish and Banglish ones ("kal shaam 8 baje") fall back to
`assistant.when`, which already knows them. Each finder returns the span it read, so callers can
blank it out before looking for other things (a "7" in "7 in the evening" is no party size).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import NamedTuple

from assistant.when import parse_when


class Found(NamedTuple):
    """A normalised value and where in the text it was said."""

    value: str
    start: int
    end: int


NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple": 2, "couple": 2, "single": 1,
}
_NUM = r"(\d{1,2}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"


def number(token: str) -> int:
    """A digit string or a number word as an int."""
    return int(token) if token.isdigit() else NUMBER_WORDS[token]


# ---------------------------------------------------------------- times

_PARTS = r"(morning|afternoon|evening|night|noon)"
_CLOCK = rf"{_NUM}(?:[:.](\d{{2}}))?"
_AMPM = r"(a\.?m\.?|p\.?m\.?)(?![a-z])"
_TIME_PATTERNS = [
    # "half past 11 in the morning", "quarter to 12", "quarter past 7 pm"
    re.compile(rf"\b(half|quarter)\s+(past|to)\s+{_NUM}(?:\s+o'?clock)?"
               rf"(?:\s*{_AMPM}|\s+(?:in the|at)\s+{_PARTS}|\s+tonight)?"),
    # "7:15 pm", "12 o'clock in the afternoon", "6 in the evening", "8 at night", "7 tonight"
    re.compile(rf"\b{_CLOCK}\s*(?:o'?clock\s*)?(?:{_AMPM}|(?:in the|at)\s+{_PARTS}|tonight\b)"),
    # "evening 6:15", "this afternoon 12:30", "morning 11"
    re.compile(rf"\b{_PARTS}\s+(?:at\s+)?{_CLOCK}(?:\s+o'?clock)?(?![\d:])(?!\s*(?:people|persons?|guests|pax)\b)"),
    # "7 o'clock", "18:30", "11:30"
    re.compile(rf"\b{_CLOCK}\s*o'?clock|(?<![\d:.$])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])"),
    re.compile(r"\b(noon|midday|midnight)\b"),
]


def _hour24(hour: int, minute: int, ampm: str | None, part: str | None) -> str | None:
    """Apply am/pm or a part of the day to a 12-hour clock reading."""
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.startswith("p") else 0)
    elif part in ("afternoon", "evening", "night", "noon") and hour < 12:
        hour += 12
    elif part == "night" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


def find_time(text: str) -> Found | None:
    """The last time of day the text names, as HH:MM; a part of the day alone is no time."""
    lowered = text.lower().replace('"', "'").replace("’", "'")
    hits: list[Found] = []
    taken: list[tuple[int, int]] = []
    for index, pattern in enumerate(_TIME_PATTERNS):
        for m in pattern.finditer(lowered):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            value = _read_time(index, m)
            if value:
                hits.append(Found(value, m.start(), m.end()))
                taken.append((m.start(), m.end()))
    if not hits and re.search(r"\d", lowered):
        fallback = parse_when(text, dt.datetime(2000, 1, 1)).time  # Hinglish/Banglish hour words
        if fallback:
            m = re.search(r"\d{1,2}(?:[:.]\d{2})?\s*(?:baje|ta|tay|tar)\b", lowered)
            span = (m.start(), m.end()) if m else (0, 0)
            hits.append(Found(fallback.strftime("%H:%M"), *span))
    return max(hits, key=lambda found: found.start) if hits else None


def _read_time(index: int, m: re.Match) -> str | None:
    groups = m.groups()
    if index == 0:  # half/quarter past/to
        fraction, direction, hour_word, ampm, part = groups
        minutes = 30 if fraction == "half" else 15
        hour = number(hour_word)
        if direction == "to":
            hour, minutes = (hour - 1) % 12 or 12, 60 - minutes
        if "tonight" in m.group() and not part:
            part = "evening"
        return _hour24(hour, minutes, ampm, part)
    if index == 1:
        hour_word, minute, ampm, part = groups
        part = part or ("evening" if m.group().endswith("tonight") else None)
        return _hour24(number(hour_word), int(minute or 0), ampm, part)
    if index == 2:
        part, hour_word, minute = groups
        return _hour24(number(hour_word), int(minute or 0), None, part)
    if index == 3:
        hour_word, minute, hour24, minute24 = groups
        if hour24 is not None:
            return _hour24(int(hour24), int(minute24), None, None)
        hour = number(hour_word)  # "7 o'clock": a meal or a visit, so 1-7 are afternoon hours
        return _hour24(hour, int(minute or 0), None, "evening" if 1 <= hour <= 7 else None)
    return "00:00" if groups[0] == "midnight" else "12:00"


# ---------------------------------------------------------------- dates

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"]
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?" \
         r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_WEEKDAY = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
_DATE_PATTERNS = [
    re.compile(r"\b(day after tomorrow|tomorrow|today|tonight)\b"),
    re.compile(rf"\b(?:(this|next|coming)\s+)?{_WEEKDAY}(?:\s+(this|next)\s+week)?\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}"),
    re.compile(rf"\b{_MONTH}\s+(?:the\s+)?{_DAY}\b"),
    re.compile(rf"\b{_ORDINAL}\s+of\s+(?:this|the|next)\s+month\b"),
    re.compile(rf"\b(?:the|on)\s+{_ORDINAL}\b"),
    re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"),
]


def find_date(text: str, today: dt.date) -> Found | None:
    """The last date the text names, as YYYY-MM-DD, relative to `today`."""
    lowered = text.lower()
    hits: list[Found] = []
    taken: list[tuple[int, int]] = []
    for index, pattern in enumerate(_DATE_PATTERNS):
        for m in pattern.finditer(lowered):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            day = _read_date(index, m, today)
            if day:
                hits.append(Found(day.isoformat(), m.start(), m.end()))
                taken.append((m.start(), m.end()))
    if not hits:
        time_free = blank(lowered, find_time(lowered))
        fallback = parse_when(time_free, dt.datetime.combine(today, dt.time())).date
        if fallback:  # Hinglish/Banglish day words ("kal", "parso") and numeric dates ("25/12")
            hits.append(Found(fallback.isoformat(), 0, 0))
    return max(hits, key=lambda found: found.start) if hits else None


def _read_date(index: int, m: re.Match, today: dt.date) -> dt.date | None:
    groups = m.groups()
    if index == 0:
        return today + dt.timedelta(days={"today": 0, "tonight": 0, "tomorrow": 1}.get(groups[0], 2))
    if index == 1:
        before, weekday, week = groups
        target = _WEEKDAYS.index(weekday)
        if week == "next":  # "Wednesday next week": that day in the calendar week after this one
            return today + dt.timedelta(days=7 - today.weekday() + target)
        ahead = (target - today.weekday()) % 7
        if before == "next" and ahead == 0:
            ahead = 7
        return today + dt.timedelta(days=ahead)
    if index == 2:
        return _next_occurrence(today, _month(groups[1]), int(groups[0]))
    if index == 3:
        return _next_occurrence(today, _month(groups[0]), int(groups[1]))
    if index in (4, 5):
        day = int(groups[0])
        month_ahead = "next month" in m.group()
        candidate = _day_of_month(today, day, months_ahead=1 if month_ahead else 0)
        if candidate and (candidate >= today or month_ahead):
            return candidate
        return _day_of_month(today, day, months_ahead=1)
    try:
        return dt.date(int(groups[0]), int(groups[1]), int(groups[2]))
    except ValueError:
        return None


def _month(name: str) -> int:
    return next(i for i, month in enumerate(_MONTHS, 1) if month.startswith(name.rstrip(".")[:3]))


def _day_of_month(today: dt.date, day: int, months_ahead: int) -> dt.date | None:
    month_index = today.month - 1 + months_ahead
    try:
        return dt.date(today.year + month_index // 12, month_index % 12 + 1, day)
    except ValueError:
        return None


def _next_occurrence(today: dt.date, month: int, day: int) -> dt.date | None:
    """A day and month without a year: its next occurrence, today included."""
    for year in (today.year, today.year + 1):
        try:
            candidate = dt.date(year, month, day)
        except ValueError:
            return None
        if candidate >= today:
            return candidate
    return None


# ---------------------------------------------------------------- counts

_PEOPLE = r"(?:people|persons?|guests?|adults?|diners|seats?|pax|of us|members|heads|tickets?|rooms?)"
_COUNT_PATTERNS = [
    re.compile(rf"\b{_NUM}\s+{_PEOPLE}\b"),
    re.compile(rf"\b(?:party|group|family|table)\s+of\s+{_NUM}\b"),
    re.compile(rf"\b(?:for|be)\s+(?:only\s+|just\s+)?{_NUM}\b(?!\s*(?:[:.]\d|am\b|pm\b|o'?clock|hours?|days?|nights?|minutes?))"),
]
_ALONE = re.compile(r"\b(?:just|only) (?:me|myself)\b|\b(?:by|for) myself\b|\bjust for me\b")


def find_count(text: str) -> Found | None:
    """How many people (or seats, tickets) the text asks for, as digits; the last mention wins."""
    lowered = text.lower()
    hits = [Found(str(number(m.group(1))), m.start(), m.end())
            for pattern in _COUNT_PATTERNS for m in pattern.finditer(lowered)]
    hits += [Found("1", m.start(), m.end()) for m in _ALONE.finditer(lowered)]
    return max(hits, key=lambda found: found.start) if hits else None


def blank(text: str, *spans: Found | None) -> str:
    """The text with each found span replaced by spaces (offsets kept), so later finders skip it."""
    for found in spans:
        if found and found.end > found.start:
            text = text[:found.start] + " " * (found.end - found.start) + text[found.end:]
    return text
