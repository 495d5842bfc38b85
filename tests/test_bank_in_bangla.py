"""Padma Bank in Bangla: a customer writing Bengali script reads the bank's own words in Bangla,
the figures as the English source states them."""

from __future__ import annotations

import re
from pathlib import Path

from assistant.pack.loading import load_catalog
from assistant.pack.translations import speaking

LATIN_WORD = re.compile(r"\b[a-z]{3,}\b")


def test_a_help_article_is_answered_in_bangla_with_the_sources_figures(chat):
    reply = chat.say("কার্ড হারিয়ে গেছে, কী করব?")
    assert reply["language"] == "bn"
    assert "কার্ডটি ব্লক করুন" in reply["reply"]
    assert "24/7" in reply["reply"] and "16639" in reply["reply"]


def test_what_the_customer_told_about_themselves_is_named_in_bangla(chat):
    chat.say("আমি কি প্লাটিনাম কার্ড পাওয়ার যোগ্য?")
    told = chat.say("চাকরিজীবী")["reply"]
    assert "পেশা চাকরিজীবী" in told
    income = chat.say("মাসে 90 হাজার")["reply"]
    assert "মাসিক আয় ৳90,000" in income
    # the facts said back are the pack's words, not a field's name ("employment", "monthly income")
    said_back = income.split("\n")[0] + told.split("\n")[0]
    assert not LATIN_WORD.findall(said_back)


def test_each_example_on_the_bangla_page_is_read_as_its_english_source(conversation):
    """A page example is a message a tap sends: in Bangla it must ask what the English one asks."""
    catalog = load_catalog(Path("data/bank"))
    with speaking("bn"):
        bangla = catalog.pack.page.examples
    for english, translated in zip(catalog.own_pack.page.examples, bangla, strict=True):
        assert conversation().say(translated)["intent"] == conversation().say(english)["intent"], translated


def test_a_card_spelt_in_bengali_script_is_the_card_of_that_name(conversation):
    """Loanwords sounded out read as the catalog spells the name: the Gold card that is not Islamic."""
    for bangla, card in (("ভিসা গোল্ড ক্রেডিট কার্ড", "visa-gold-credit"), ("মাস্টারকার্ড টাইটানিয়াম ক্রেডিট কার্ড", "mastercard-titanium-credit")):
        reply = conversation().say(f"{bangla}ের জন্য আবেদন করতে চাই")
        assert reply["intent"]["type"] == "booking"
        assert [p["id"] for p in reply["products"]] == [card], bangla
