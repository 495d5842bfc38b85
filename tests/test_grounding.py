"""The grounding guard: figures, product names and verdicts in an LLM reply must come from data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.llm.grounding import Facts, figures, violations
from assistant.pack.model import load_catalog

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="module")
def packs():
    return {name: load_catalog(DATA / name) for name in ("bank", "cars", "store")}


def test_figures_are_normalised_across_spellings(packs):
    bank = packs["bank"]
    assert figures("৳3,00,000 or 3 lakh or Tk 300000", bank) == {300000.0}
    assert figures("23% and 2.5 percent", bank) == {23.0, 2.5}
    assert figures("50k", bank) == {50000.0}
    assert figures("1. first, 2 cards", bank, claims_only=True) == set()


def test_figures_are_read_in_each_packs_currency_and_languages(packs):
    assert figures("₹16.35 lakh, Rs. 16,35,000 or 1635000 rupees", packs["cars"]) == {1635000.0}
    assert figures("฿1,500, 1500 บาท or หนึ่งพันห้าร้อย", packs["store"]) == {1500.0}
    assert figures("a fee of ₹75 or 75 rupees", packs["cars"], claims_only=True) == {75.0}
    assert figures("ค่าส่ง 50 บาท or ฿50", packs["store"], claims_only=True) == {50.0}


@pytest.mark.parametrize(
    "pack, reply",
    [
        ("cars", "It comes with a booking fee of just ₹99."),
        ("cars", "It comes with a booking fee of just 99 rupees."),
        ("store", "Delivery is only ฿49."),
        ("store", "Delivery is only 49 บาท."),
    ],
)
def test_an_invented_small_price_is_named_in_every_currency(packs, pack, reply):
    facts = Facts(text="Here is the one you asked about.", product_names=set())
    figure = re.search(r"\d+", reply)[0]
    assert violations(reply, facts, packs[pack]) == [f"the figure {figure}"]


@pytest.fixture
def facts(catalog):
    card = catalog.product("visa-platinum-business")
    return Facts(text=card.model_dump_json(), product_names={card.name}, verdicts=[None])


def test_a_reply_using_only_data_passes(facts, catalog):
    reply = "The **Visa Platinum Business Credit Card** costs ৳6,000 a year at 24% with 6 lounge visits."
    assert violations(reply, facts, catalog) == []


def test_an_invented_price_is_named(facts, catalog):
    problems = violations("The Visa Platinum Business Credit Card costs only ৳4,999 a year.", facts, catalog)
    assert problems == ["the figure 4999"]


def test_a_product_not_in_this_turn_or_not_in_the_catalog_is_named(facts, catalog):
    other = catalog.product("jcb-platinum-business").name
    problems = violations(f"You could also try the {other} or the Padma Diamond Elite Credit Card.", facts, catalog)
    assert problems == [f"the product '{other}'", "the product 'Padma Diamond Elite Credit Card' (not in our catalog)"]


def test_verdicts_the_rules_did_not_give_are_named(facts, catalog):
    assert violations("Good news, you're eligible!", facts, catalog) == ["an 'eligible' verdict the rules did not give"]
    assert violations("Sorry, you are not eligible.", facts, catalog) == ["a 'not eligible' verdict the rules did not give"]


def test_tool_names_and_reasoning_never_reach_the_customer(facts, catalog):
    assert violations("Thought: I used search_products\nHere you go.", facts, catalog) == [
        "the assistant's internal tool names or reasoning"
    ]


def test_asking_about_eligibility_is_not_a_verdict(facts, catalog):
    assert violations("I can check whether you're eligible, or if you are eligible elsewhere.", facts, catalog) == []
