"""Numbers, dates and times said in words in every pack language: compounds, scales said alone,
Thai's shortened tails, corrections, and native digits wherever a number is read."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from assistant.language import WhenParts, shipped

LANGUAGES = shipped()
NOW = dt.datetime(2026, 11, 23, 9, 30)  # a Monday


@pytest.mark.parametrize(
    "text, expected",
    [
        # Thai: a scale alone is one of it, and a unit said last counts in the next scale down
        ("พันห้าร้อย", "1500"),
        ("ไม่เกินพันห้าร้อยบาท", "ไม่เกิน1500บาท"),
        ("สองหมื่นห้า", "25000"),
        ("หมื่นห้า", "15000"),
        ("แสนห้า", "150000"),
        ("ล้านสอง", "1200000"),
        ("สองพันห้า", "2500"),
        ("พันบาท", "1000บาท"),
        ("ร้อยห้าสิบ", "150"),
        ("ยี่สิบห้าบาท", "25บาท"),
        ("สามหมื่นห้าพัน", "35000"),
        ("สองหมื่นห้าร้อย", "20500"),
        ("พันนึง", "1000"),
        # Spanish: "mil" alone, "ciento" before tens, hundreds in one word
        ("mil quinientos", "1500"),
        ("mil euros", "1000 euros"),
        ("ciento cincuenta", "150"),
        ("ciento veinte mil", "120000"),
        ("doscientos cincuenta euros", "250 euros"),
        ("quinientos euros", "500 euros"),
        ("veinte mil", "20000"),
        ("dos millones y medio", "2500000"),
        # Bangla: hundreds written onto their number, every number to 99, the misspelt ডেড়, a scale's genitive
        ("একশো টাকা", "100 টাকা"),
        ("দুই হাজার পাঁচশো", "2500"),
        ("পঁয়ত্রিশ হাজার", "35000"),
        ("ডেড় লাখ", "150000"),
        ("দেড় লাখ", "150000"),
        ("সাড়ে তিন লাখ", "350000"),
        ("১৫ লাখের নিচে", "1500000 নিচে"),
        ("poitrish hajar", "35000"),
        ("pachsho taka", "500 taka"),
        # Hindi and Hinglish: every number to 99
        ("पैंतीस हज़ार", "35000"),
        ("डेढ़ लाख", "150000"),
        ("ढाई हजार", "2500"),
        ("सवा दो लाख", "225000"),
        ("paintis hazaar", "35000"),
        ("chhappan hazaar", "56000"),
        # English compounds of number words
        ("twenty five thousand", "25000"),
        ("two hundred fifty", "250"),
    ],
)
def test_amounts_said_in_words_in_every_language(text, expected):
    assert LANGUAGES.amounts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "แสนดี",  # "very good": a scale alone before no unit is no amount
        "ร้อยละห้า",  # percent
        "mil gracias",
        "the first two",
        "ek card chai",
        "do log",
    ],
)
def test_words_that_only_look_like_amounts_stay(text):
    assert LANGUAGES.amounts(text) == text


@pytest.mark.parametrize(
    "text, bounds",
    [
        ("ไม่เกินพันห้าร้อยบาท", [(1500, "max")]),
        ("งบสามหมื่น", [(30000, "max")]),
        ("มือถืองบสองหมื่นห้า", [(25000, "max")]),
        ("menos de mil quinientos euros", [(1500, "max")]),
        ("masik ay সাড়ে তিন লাখ টাকা", [(350000, None)]),
        ("डेढ़ लाख से कम", [(150000, "max")]),
        # corrections: the amount taken back is left out, the one meant keeps its bound
        ("under 3,500 no, 3.5 lakh", [(350000, "max")]),
        ("১৫ লাখের নিচে, না, ১৮", [(1800000, "max")]),
        ("সাড়ে তিন হাজার, না, সাড়ে তিন লাখ", [(350000, None)]),
        ("डेढ़ हज़ार से कम, नहीं, डेढ़ लाख", [(150000, "max")]),
        ("ไม่เกินสามหมื่น ไม่ใช่ สองหมื่นห้า", [(25000, "max")]),
        ("hasta veinte mil, perdón, treinta mil", [(30000, "max")]),
        # native digits
        ("ไม่เกิน ๑๕๐๐๐ บาท", [(15000, "max")]),
        ("১২ লাখ পর্যন্ত", [(1200000, "max")]),
        ("१२ लाख तक", [(1200000, "max")]),
    ],
)
def test_bounds_said_in_words_and_corrected(text, bounds):
    assert [(int(b.value), b.direction) for b in LANGUAGES.bounds(text)] == bounds


@pytest.mark.parametrize(
    "text, time",
    [
        ("quarter to eight", dt.time(19, 45)),
        ("half past seven", dt.time(19, 30)),
        ("साढ़े सात बजे", dt.time(19, 30)),
        ("शाम साढ़े आठ बजे", dt.time(20, 30)),
        ("সাড়ে সাতটায়", dt.time(19, 30)),
        ("রাত ৮টায়", dt.time(20)),
        ("สองทุ่มครึ่ง", dt.time(20, 30)),
        ("บ่ายสามโมง", dt.time(15)),
        ("ตีสอง", dt.time(2)),
        ("๒ ทุ่ม", dt.time(20)),
        ("a las ocho y media", dt.time(8, 30)),
        ("a las nueve menos cuarto", dt.time(8, 45)),
        ("a las ocho y media de la tarde", dt.time(20, 30)),
        ("kal shaam saade saat baje", dt.time(19, 30)),
    ],
)
def test_times_said_in_words_in_every_language(text, time):
    assert LANGUAGES.parse_when(text, NOW).time == time


@pytest.mark.parametrize(
    "text, date",
    [
        ("পনেরো ডিসেম্বর", dt.date(2026, 12, 15)),
        ("१५ दिसंबर", dt.date(2026, 12, 15)),
        ("पंद्रह दिसंबर", dt.date(2026, 12, 15)),
        ("๑๕ ธันวาคม", dt.date(2026, 12, 15)),
        ("el quince de diciembre", dt.date(2026, 12, 15)),
        ("dos de mayo", dt.date(2027, 5, 2)),
        ("สิบห้า ธันวาคม", dt.date(2026, 12, 15)),
    ],
)
def test_dates_with_the_day_in_words_or_native_digits(text, date):
    assert LANGUAGES.parse_when(text, NOW) == WhenParts(date, None)


@pytest.mark.parametrize("text", ["two may be enough", "one march past", "what to do december"])
def test_english_number_words_before_a_month_are_no_date(text):
    assert LANGUAGES.find_date(text, NOW.date()) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("চারজন", "4"),
        ("দুজন", "2"),
        ("৪জন", "4"),
        ("আমরা পাঁচজন", "5"),
        ("४ लोग", "4"),
        ("๔ คน", "4"),
        ("ยี่สิบห้าคน", "25"),
        ("twenty five people", "25"),
        ("mesa para seis", "6"),
        ("do teen log", "3"),  # no one number: the last is the count, as before
    ],
)
def test_head_counts_in_words_and_native_digits(text, expected):
    found = LANGUAGES.find_count(text)
    assert found is not None and found.value == expected


# ---------------------------------------------------------------- through the app, per pack


@pytest.mark.parametrize(
    "domain, message, filters",
    [
        ("store", "โน้ตบุ๊กไม่เกินสามหมื่นบาท", {"category": "laptop", "max_price": 30000}),
        ("store", "เมาส์ไม่เกินพันห้าร้อยบาท", {"category": "mouse", "max_price": 1500}),
        ("store", "มือถืองบสองหมื่นห้า", {"category": "phone", "max_price": 25000}),
        ("cars", "SUV डेढ़ लाख से कम", {"body_type": "suv", "max_price": 150_000}),
        ("cars", "SUV पैंतीस लाख से कम", {"body_type": "suv", "max_price": 3_500_000}),
        ("cars", "SUV paintis lakh tak", {"body_type": "suv", "max_price": 3_500_000}),
    ],
)
def test_a_search_reads_its_amount_in_words(tmp_path, domain, message, filters):
    from conftest import Conversation, app_for

    data = Conversation(app_for(tmp_path, domain).test_client()).say(message)
    assert data["intent"]["type"] == "product_info"
    assert {name: data["intent"]["filters"].get(name) for name in filters} == filters


def test_a_spanish_price_in_words_bounds_the_search(tmp_path):
    from conftest import Conversation, app_for

    data = Conversation(app_for(tmp_path, "homologation").test_client()).say("reformas de moto por menos de mil quinientos euros")
    assert data["intent"]["type"] == "product_info"
    assert re.search(r"hasta 1[.,]?500 €", data["reply"])


@pytest.mark.parametrize(
    "said, income",
    [("masik ay সাড়ে তিন লাখ টাকা", "৳350,000"), ("amar beton ডেড় লাখ টাকা", "৳150,000"), ("beton পঁয়ত্রিশ হাজার টাকা", "৳35,000")],
)
def test_an_income_in_bangla_words_is_read(tmp_path, said, income):
    from conftest import Conversation, app_for

    chat = Conversation(app_for(tmp_path, "bank").test_client(), employment="salaried")
    chat.say("platinum credit cards")
    data = chat.say(f"am I eligible? {said}")
    assert data["eligibility"] and income in data["reply"]  # the reply is in Bangla; the figure is the same in every language
