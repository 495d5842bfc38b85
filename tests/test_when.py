"""Dates and times as customers type them, in English, Hinglish and Banglish."""

from __future__ import annotations

import datetime as dt
import random
import string
from zoneinfo import ZoneInfo

import pytest

from assistant.language import WhenParts, load_languages, shipped

parse_when = shipped().parse_when

DHAKA = ZoneInfo("Asia/Dhaka")
NOW = dt.datetime(2026, 11, 23, 9, 30, tzinfo=DHAKA)
MON, TUE, WED, THU, FRI, SAT, SUN = (dt.date(2026, 11, d) for d in range(23, 30))
NEXT_MON = dt.date(2026, 11, 30)
XMAS = dt.date(2026, 12, 25)


def at(hour: int, minute: int = 0) -> dt.time:
    return dt.time(hour, minute)


def test_now_is_a_monday():
    assert NOW.date().weekday() == 0 == MON.weekday()
    assert SUN.weekday() == 6


@pytest.mark.parametrize(
    "text, date, time",
    [
        # the phrases from the booking flow
        ("tomorrow evening", TUE, at(17)),
        ("next Saturday 11am", SAT, at(11)),
        ("kal shaam 5 baje", TUE, at(17)),
        ("book me a call tomorrow at 5 pm", TUE, at(17)),
        ("actually make it 6 pm", None, at(18)),
        ("on 25 Dec at 3:30pm", XMAS, at(15, 30)),
        ("day after tomorrow morning", WED, at(10)),
        ("shonibar 11 ta", SAT, at(11)),
        # relative days
        ("TODAY", MON, None),
        ("aaj 3 ta", MON, at(15)),
        ("aj", MON, None),
        ("ajke dupur", MON, at(13)),
        ("tmrw 10am", TUE, at(10)),
        ("kaal", TUE, None),
        ("kalke bikel", TUE, at(15)),
        ("parso", WED, None),
        ("porshu sokal", WED, at(10)),
        ("porshudin", WED, None),
        # weekdays: always the next one after today
        ("Saturday", SAT, None),
        ("on sat", SAT, None),
        ("this Saturday at noon", SAT, at(12)),
        ("monday", NEXT_MON, None),
        ("Mon", NEXT_MON, None),
        ("tue", TUE, None),
        ("robibar bikel", SUN, at(15)),
        ("shombar", NEXT_MON, None),
        ("sombar", NEXT_MON, None),
        ("mongolbar", TUE, None),
        ("budhbar", WED, None),
        ("brihospotibar", THU, None),
        ("bishudbar", THU, None),
        ("shukrobar", FRI, None),
        ("shonibare 11 tay", SAT, at(11)),
        ("ravivaar", SUN, None),
        ("raviwar", SUN, None),
        ("itwaar", SUN, None),
        ("somvaar ko", NEXT_MON, None),
        ("somwar", NEXT_MON, None),
        ("mangalvaar", TUE, None),
        ("mangalwar", TUE, None),
        ("budhvaar", WED, None),
        ("budhwar subah 9 baje", WED, at(9)),
        ("guruvaar", THU, None),
        ("guruwar", THU, None),
        ("veervaar", THU, None),
        ("shukravaar", FRI, None),
        ("shukrawar", FRI, None),
        ("shanivaar 4 baje", SAT, at(16)),
        ("shaniwar dopahar", SAT, at(13)),
        # explicit dates: the next one on or after today
        ("25 December", XMAS, None),
        ("25th Dec", XMAS, None),
        ("Dec 25", XMAS, None),
        ("December 25th, 10 a.m.", XMAS, at(10)),
        ("25/12", XMAS, None),
        ("25-12", XMAS, None),
        ("25/12/2026", XMAS, None),
        ("2026-12-25", XMAS, None),
        ("2026-12-01 at 09:15", dt.date(2026, 12, 1), at(9, 15)),
        ("1st of march", dt.date(2027, 3, 1), None),
        ("23 nov", MON, None),
        ("22 nov", dt.date(2027, 11, 22), None),
        ("5/11", dt.date(2027, 11, 5), None),
        ("25 Dec 3 pm", XMAS, at(15)),
        # times
        ("5 pm", None, at(17)),
        ("5pm", None, at(17)),
        ("5:30 pm", None, at(17, 30)),
        ("5.30PM", None, at(17, 30)),
        ("17:00", None, at(17)),
        ("today 17:30", MON, at(17, 30)),
        ("11am", None, at(11)),
        ("11 a.m.", None, at(11)),
        ("12 pm", None, at(12)),
        ("12 am", None, at(0)),
        ("noon", None, at(12)),
        ("midday", None, at(12)),
        ("5 o'clock", None, at(17)),
        ("5 o’clock", None, at(17)),
        ("5 baje", None, at(17)),
        ("11 baje", None, at(11)),
        ("12 baje", None, at(12)),
        ("8 baje", None, at(8)),
        ("7 baje", None, at(19)),
        ("5 ta", None, at(17)),
        ("5 tay", None, at(17)),
        ("5 tar dike", None, at(17)),
        ("5 ta te", None, at(17)),
        # parts of the day, alone and with an hour
        ("morning", None, at(10)),
        ("dupur", None, at(13)),
        ("afternoon", None, at(15)),
        ("bikal", None, at(15)),
        ("evening", None, at(17)),
        ("sham", None, at(17)),
        ("sondha", None, at(17)),
        ("sondhya", None, at(17)),
        ("evening 6 baje", None, at(18)),
        ("sondha 6:30", None, at(18, 30)),
        ("aaj raat 8 baje", MON, at(20)),
        ("kal sokale 10 ta", TUE, at(10)),
        ("morning 7 baje", None, at(7)),
        ("in the evening at 7 pm", None, at(19)),
        # the last mention wins: a correction reads as meant
        ("not saturday, sunday 4pm", SUN, at(16)),
        ("change it from 5pm to 6pm", None, at(18)),
        ("between 5-6 pm", None, at(18)),
    ],
)
def test_phrases(text, date, time):
    assert parse_when(text, NOW) == WhenParts(date, time)


@pytest.mark.parametrize(
    "text, time",
    [
        # a clock fraction, minutes in words, the British "half eight"
        ("half past eight in the evening", at(20, 30)),
        ("Half past eight in the evening please", at(20, 30)),
        ("half past eight", at(8, 30)),
        ("half-past 7", at(19, 30)),
        ("quarter past seven", at(19, 15)),
        ("quarter to seven in the morning", at(6, 45)),
        ("a quarter after 9 pm", at(21, 15)),
        ("half eight", at(8, 30)),
        ("half eight in the evening", at(20, 30)),
        ("eight thirty", at(8, 30)),
        ("eight thirty pm", at(20, 30)),
        ("at seven forty-five in the evening", at(19, 45)),
        ("nine fifteen at night", at(21, 15)),
        ("8.30 pm", at(20, 30)),
        ("8:30 in the evening", at(20, 30)),
        # a part of the day before or after the hour decides between morning and afternoon
        ("at 8 in the evening", at(20)),
        ("evening 8 o'clock", at(20)),
        ("8 in the morning", at(8)),
        ("in the afternoon at 3", at(15)),
        ("at 9 at night", at(21)),
        ("1 at night", at(1)),
        ("12 at night", at(0)),
        ("not in the morning, in the evening at 8", at(20)),
        ("at 8 in the morning, not the evening", at(8)),
        ("twelve noon", at(12)),
        ("midnight", at(0)),
        # Hindi and Bengali
        ("saadhe aath baje shaam", at(20, 30)),
        ("shaam ko 8 baje", at(20)),
        ("raat ke 9 baje", at(21)),
        ("raat 2 baje", at(2)),
        ("sawa saat baje subah", at(7, 15)),
        ("aadhi raat", at(0)),
        ("সন্ধ্যা সাড়ে আটটায়", at(20, 30)),
        ("shondha 8 tay", at(20)),
        ("রাত নটায়", at(21)),
        ("দুপুর দুটোয়", at(14)),
        ("বিকেল আড়াইটায়", at(14, 30)),
        ("সকাল ৯টায়", at(9)),
        # Thai: the evening and the small hours have their own counts
        ("สองทุ่มครึ่ง", at(20, 30)),
        ("หนึ่งทุ่ม", at(19)),
        ("ห้าทุ่ม", at(23)),
        ("ตีสอง", at(2)),
        ("หกโมงเช้า", at(6)),
        ("ห้าโมงเย็น", at(17)),
        ("บ่ายสามโมงครึ่ง", at(15, 30)),
        ("สิบเอ็ดโมง", at(11)),
        ("บ่ายโมง", at(13)),
        ("เที่ยงครึ่ง", at(12, 30)),
    ],
)
def test_times_said_in_words(text, time):
    assert parse_when(text, NOW).time == time


def test_a_part_of_the_day_that_names_the_day_is_left_for_the_date():
    """ "tonight at 9" is today at 21:00: a caller that blanks the time out still finds the day."""
    languages = shipped()
    for text, time in (("tonight at 9", "21:00"), ("at 9 tonight", "21:00"), ("คืนนี้สองทุ่ม", "20:00")):
        found = languages.find_time(text)
        assert found is not None and found.value == time
        rest = text[: found.start] + " " * (found.end - found.start) + text[found.end :]
        assert languages.find_date(rest, NOW.date()) == languages.find_date(text, NOW.date())
        assert parse_when(text, NOW).date == MON


def test_a_bare_hour_keeps_the_half_of_the_day_already_said():
    """ "tomorrow evening" (17:00), then "half past eight": 20:30, not the morning; an hour said with
    am/pm, a part of the day or as HH:MM reads as said."""
    evening, morning = at(17), at(10)
    assert parse_when("half past eight", NOW, evening).time == at(20, 30)
    assert parse_when("make it 9 o'clock", NOW, evening).time == at(21)
    assert parse_when("half past eight", NOW, morning).time == at(8, 30)
    assert parse_when("half past eight", NOW).time == at(8, 30)
    assert parse_when("8 in the morning", NOW, evening).time == at(8)
    assert parse_when("9 am", NOW, evening).time == at(9)
    assert parse_when("10:30", NOW, evening).time == at(10, 30)
    assert parse_when("12 baje", NOW, evening).time == at(12)


@pytest.mark.parametrize(
    "text",
    [
        "eight twenty people",
        "eight thirty minutes",
        "it weighs two fifteen five",
        "পাঁচটা বই",
        "5 টাকা",
        "half the price",
    ],
)
def test_minutes_and_counters_that_are_no_time(text):
    assert parse_when(text, NOW).time is None


@pytest.mark.parametrize(
    "text",
    [
        "my number is 01712345678",
        "+880 1812-345678",
        "the code is 482913",
        "I earn 80k",
        "1.5 lakh a month",
        "5-10 lakh",
        "it takes 3-5 days",
        "is the helpline 24/7?",
        "I am 35 years old",
        "born in 1990",
        "at 5",
        "2 ta card chai",
        "interest rate",
        "satisfied",
        "I will decide 3 cards",
        "the Visa Platinum Business Credit Card",
        "31/02",
        "29 feb",
        "2026-02-30",
        "25:00",
        "9:60",
        "13 pm",
        "0 am",
        "",
        "   ",
    ],
)
def test_what_is_not_a_date_or_time(text):
    assert parse_when(text, NOW) == WhenParts()


def test_a_weekday_that_is_today_means_next_week():
    saturday = dt.datetime(2026, 11, 28, 8, 0, tzinfo=DHAKA)
    assert parse_when("saturday", saturday).date == dt.date(2026, 12, 5)
    assert parse_when("next shonibar", saturday).date == dt.date(2026, 12, 5)


def test_a_day_and_month_crosses_into_next_year():
    new_years_eve = dt.datetime(2026, 12, 31, 23, 0, tzinfo=DHAKA)
    assert parse_when("1/1", new_years_eve).date == dt.date(2027, 1, 1)
    assert parse_when("31 dec", new_years_eve).date == dt.date(2026, 12, 31)
    assert parse_when("tomorrow", new_years_eve).date == dt.date(2027, 1, 1)


@pytest.mark.parametrize(
    "text, date",
    [
        ("1 January 2020 at 8 pm", dt.date(2020, 1, 1)),
        ("January 1, 2020", dt.date(2020, 1, 1)),
        ("the 1st of January 2020.", dt.date(2020, 1, 1)),
        ("1 de enero de 2020 a las 8", dt.date(2020, 1, 1)),
        ("১ জানুয়ারি ২০২০", dt.date(2020, 1, 1)),
        ("1 जनवरी 2020 को", dt.date(2020, 1, 1)),
        ("25 Dec 2027", dt.date(2027, 12, 25)),
    ],
)
def test_a_year_said_is_kept_even_one_gone_by(text, date):
    """The year the customer says wins over the next occurrence: a past one is then refused by the flow."""
    assert parse_when(text, NOW).date == date


def test_a_number_after_a_date_that_is_no_year_is_left_alone():
    assert parse_when("25 Dec 20:30", NOW) == WhenParts(XMAS, at(20, 30))
    assert parse_when("25 Dec 5000 taka", NOW).date == XMAS


def test_dates_in_digits_read_in_the_country_order():
    """3/4 is the 3rd of April where the day comes first (every pack's default), March 4 where the month does;
    a date that fits one order only, or an ISO date, reads the same either way."""
    month_first = load_languages(["en"], date_order="month_first").parse_when
    assert parse_when("3/4", NOW).date == dt.date(2027, 4, 3)
    assert month_first("3/4", NOW).date == dt.date(2027, 3, 4)
    assert month_first("12/25/2026", NOW).date == XMAS == parse_when("25/12/2026", NOW).date
    assert month_first("25/12", NOW).date is None
    assert month_first("2026-12-25", NOW).date == XMAS


def test_random_text_never_raises():
    rng = random.Random(7)
    alphabet = string.printable + "৳০১২৩৪৫৬৭৮৯’İ"
    words = [
        "kal",
        "aaj",
        "sat",
        "dec",
        "25",
        "5",
        "12",
        "pm",
        "am",
        "a.m.",
        "baje",
        "ta",
        "tay",
        "tar dike",
        "o'clock",
        ":",
        "/",
        "-",
        ".",
        "sondha",
        "noon",
        "day after tomorrow",
        "2026",
        "99",
        "0",
    ]
    for _ in range(3000):
        noise = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        phrase = " ".join(rng.choice(words) for _ in range(rng.randint(0, 8)))
        for text in (noise, phrase, phrase.replace(" ", "")):
            assert isinstance(parse_when(text, NOW), WhenParts)


def test_head_counts_and_midnight():
    """'a table for 1-2 people' is no date; 'raat 12 baje' is midnight, not noon."""
    assert parse_when("a table for 1-2 people tomorrow", NOW).date == (NOW + dt.timedelta(days=1)).date()
    assert parse_when("2/3 people at 8 pm", NOW).date is None
    assert parse_when("raat 12 baje", NOW).time == dt.time(0, 0)
    assert parse_when("dopahar 12 baje", NOW).time == dt.time(12, 0)
