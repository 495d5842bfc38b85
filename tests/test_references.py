"""The words a conversation's references are read by: pointing at items on screen, taking a filter
back, and names the business doesn't have. Each language's words are data; these pin the rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.language import load_languages
from assistant.pack.loading import load_catalog
from assistant.tools.filters import FilterRules
from assistant.understanding.references import refer
from assistant.understanding.unfamiliar import Unfamiliar

LANGUAGES = load_languages(["hi", "bn", "th"])
DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize(
    "text, positions, first, every, single",
    [
        ("compare the first two", [], 2, False, False),
        ("i'd like to apply for the first one", [1], None, False, False),
        ("tell me about the second card", [2], None, False, False),
        ("second", [2], None, False, False),
        ("the last one please", [-1], None, False, False),
        ("top 3", [], 3, False, False),
        ("doosra wala", [2], None, False, False),
        ("prothomta", [1], None, False, False),
        ("ใบที่สอง", [2], None, False, False),
        ("what is the fee for it", [], None, False, True),
        ("is that card free", [], None, False, True),
        ("compare them", [], None, True, False),
        ("dono mein se kaunsa sasta hai", [], None, True, False),
        # everyday words that are no pointing
        ("my first credit card", [], None, False, False),
        ("2 ghante pehle yaad dila dena", [], None, False, False),
        ("book a visit this saturday", [], None, False, False),
    ],
)
def test_pointing_words_are_read_in_every_language(text, positions, first, every, single):
    pointing = LANGUAGES.pointing(text, ["card", "cards"])
    assert (pointing.positions, pointing.first, pointing.every, pointing.single) == (positions, first, every, single)


def test_a_ranking_among_the_items_shown_or_beyond_them():
    assert LANGUAGES.pointing("which of these is cheaper").among
    assert LANGUAGES.pointing("anything cheaper?").beyond
    assert not LANGUAGES.pointing("which is cheaper").beyond


@pytest.mark.parametrize(
    "text, dropped",
    [
        ("forget the fee limit", ["max_annual_fee"]),
        ("any brand", ["brand"]),
        ("no budget", ["max_price"]),
        ("brand doesn't matter", ["brand"]),
        ("koi bhi brand chalega", ["brand"]),
        ("show me gold cards", []),
    ],
)
def test_a_filter_taken_back(text, dropped):
    nouns = {"max_annual_fee": ["annual fee", "fee"], "brand": ["brand"], "max_price": ["price", "budget"]}
    assert LANGUAGES.dropped(text, nouns) == dropped


@pytest.fixture(scope="module")
def bank():
    return load_catalog(DATA / "bank")


def test_references_resolve_to_the_items_shown_in_their_order(bank):
    shown = bank.products[:3]
    rules = FilterRules(bank)
    second = refer(LANGUAGES.pointing("the second one"), shown, [], {}, rules)
    assert second is not None and second.items == [shown[1]]
    first_two = refer(LANGUAGES.pointing("compare the first two"), shown, [], {}, rules)
    assert first_two is not None and first_two.items == shown[:2]
    too_far = refer(LANGUAGES.pointing("the fifth one"), shown, [], {}, rules)
    assert too_far is not None and too_far.unsure == shown and not too_far.items


def test_it_means_the_one_discussed_and_asks_which_when_several_are_shown(bank):
    shown, rules = bank.products[:3], FilterRules(bank)
    it = LANGUAGES.pointing("does it have lounge access")
    discussed = refer(it, shown, [shown[2]], {}, rules)
    assert discussed is not None and discussed.items == [shown[2]]
    unsure = refer(it, shown, shown, {}, rules)
    assert unsure is not None and unsure.unsure == shown and not unsure.items
    assert refer(LANGUAGES.pointing("show me gold cards"), shown, [], {}, rules) is None


@pytest.mark.parametrize(
    "domain, text, names",
    [
        ("bank", "Do you have a Diners Club card?", ["Diners Club"]),
        ("bank", "I need a black tier card", ["black tier"]),
        ("bank", "I want a Visa Platinum", []),
        ("bank", "is there an Amex card", []),
        ("cars", "I want a Corolla", ["Corolla"]),
        ("cars", "do you have the Toyota Camry?", ["Toyota Camry"]),
        ("cars", "I want a Thar", []),
        ("store", "do you have an Xbox?", ["Xbox"]),
        ("store", "the Legion 5", []),
        ("restaurants", "biryani in Electronic City", ["Electronic City"]),
        ("restaurants", "north indian in Bandra", []),
        ("restaurants", "Is there a Nobu in Mumbai?", ["Nobu"]),
    ],
)
def test_names_the_business_does_not_have(domain, text, names):
    catalog = load_catalog(DATA / domain)
    assert Unfamiliar(catalog, catalog.languages).find(text) == names
