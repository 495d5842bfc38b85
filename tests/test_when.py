"""Dates and times as customers type them, in English, Hinglish and Banglish."""

from __future__ import annotations

import datetime as dt
import random
import string
from zoneinfo import ZoneInfo

import pytest

from assistant.when import WhenParts, parse_when

NOW = dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Dhaka"))  # a Monday
MON, TUE, WED, SAT, SUN = (dt.date(2026, 11, d) for d in (23, 24, 25, 28, 29))


def at(hour: int, minute: int = 0) -> dt.time:
    return dt.time(hour, minute)


@pytest.mark.parametrize("text, date, time", [
    ("tomorrow evening", TUE, at(17)),
    ("next Saturday 11am", SAT, at(11)),
    ("kal shaam 5 baje", TUE, at(17)),
    ("book me a call tomorrow at 5 pm", TUE, at(17)),
    ("actually make it 6 pm", None, at(18)),
    ("on 25 Dec at 3:30pm", dt.date(2026, 12, 25), at(15, 30)),
    ("December 25th, 10 a.m.", dt.date(2026, 12, 25), at(10)),
    ("day after tomorrow morning", WED, at(10)),
    ("parso dupur", WED, at(13)),
    ("shonibar 11 ta", SAT, at(11)),
    ("robibar bikel", SUN, at(15)),
    ("shanivaar 4 baje", SAT, at(16)),
    ("monday", dt.date(2026, 11, 30), None),
    ("this saturday at noon", SAT, at(12)),
    ("today 17:30", MON, at(17, 30)),
    ("2026-12-01 at 09:15", dt.date(2026, 12, 1), at(9, 15)),
    ("1/12", dt.date(2026, 12, 1), None),
    ("5/11", dt.date(2027, 11, 5), None),
    ("5 o'clock", None, at(17)),
    ("11 baje", None, at(11)),
    ("12 am", None, at(0)),
    ("evening 6 baje", None, at(18)),
    ("aaj raat 8 baje", MON, at(20)),
])
def test_phrases(text, date, time):
    assert parse_when(text, NOW) == WhenParts(date, time)


@pytest.mark.parametrize("text", [
    "my number is 01712345678", "+880 1812-345678", "the code is 482913", "I earn 80k", "1.5 lakh a month",
    "I am 35 years old", "31/02", "25:00", "13 pm", "the Visa Platinum Business Credit Card", "",
])
def test_numbers_that_are_not_dates_or_times(text):
    assert parse_when(text, NOW) == WhenParts()


def test_random_text_never_raises():
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + " :/.-'৳"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        parse_when(text, NOW)
