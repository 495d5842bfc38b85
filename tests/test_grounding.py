"""The grounding guard: figures, product names and verdicts in an LLM reply must come from data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.llm.grounding import Facts, figures, framing, violations
from assistant.pack.loading import load_catalog

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


# --- beyond facts: what a real small model did ----------------------------------------------------


@pytest.fixture
def turn(catalog):
    """Two cards on screen, the draft about them, and what the prompts told the model."""
    gold, classic = catalog.product("visa-gold-credit"), catalog.product("visa-classic-credit")
    draft = f"**{gold.name}**: annual fee ৳3,000. **{classic.name}**: annual fee ৳1,500."
    return Facts(
        text="\n".join([draft, gold.model_dump_json(), classic.model_dump_json()]),
        product_names={gold.name, classic.name},
        items={gold.name: gold.model_dump_json(), classic.name: classic.model_dump_json()},
        instructions="You are the Response Formatter. Your personal goal is: turn the verified facts into a friendly reply "
        f"for the customer.\nThis is the expected criteria for your final answer: a reply in markdown.\n{draft}",
    )


def test_a_figure_from_one_item_said_of_another_is_named(turn, catalog):
    gold, classic = catalog.product("visa-gold-credit").name, catalog.product("visa-classic-credit").name
    assert violations(f"The {gold} has an annual fee of ৳1,500.", turn, catalog) == [f"the figure 1500 said of {gold}"]
    assert violations(f"The {gold} costs ৳3,000 and the {classic} ৳1,500.", turn, catalog) == []


def test_the_prompts_own_text_never_reaches_the_customer(turn, catalog):
    leaked = "Sure! Your personal goal is: turn the verified facts into a friendly reply."
    assert violations(leaked, turn, catalog) == ["the text of its instructions"]
    assert violations("Here you go <<<show me cards>>>", turn, catalog) == ["the text of its instructions"]
    gold = catalog.product("visa-gold-credit").name
    assert violations(f"**{gold}**: annual fee ৳3,000.", turn, catalog) == [], "the draft's own words are data, not instructions"


@pytest.mark.parametrize("reply", ["\x00\x07\x1b[31m", "৳৳৳ 3,000 ---- ****", "Hello\x0b there"])
def test_a_reply_that_is_not_language_is_refused(turn, catalog, reply):
    assert "text that is not language" in violations(reply, turn, catalog)


def test_a_price_in_another_currency_is_named(turn, catalog):
    assert violations("The Visa Gold costs $3,000 a year.", turn, catalog) == ["a price in another currency ($)"]


def test_a_date_or_time_the_data_does_not_name_is_named(catalog):
    facts = Facts(text="Your call-back is booked for Tuesday 25 November 2026 at 11:00.", product_names=set())
    assert violations("See you Tuesday 25 November 2026 at 11:00!", facts, catalog) == []
    time, date = violations("See you on 26 November at 24:30 or maybe 13:30.", facts, catalog)
    assert time == "the time 13:30" and re.fullmatch(r"the date \d{4}-11-26", date), "the day after the booked one"


def test_a_promise_the_data_does_not_make_is_named(catalog):
    facts = Facts(text="Here are the cards you asked about.", product_names=set())
    assert violations("Great choice! We'll call you next week to finish it.", facts, catalog) == [
        "a promise the data doesn't make ('we'll call')"
    ]
    booked = Facts(text="Booked! We'll call you on Tuesday at 11:00.", product_names=set())
    assert violations("All set: we'll call you Tuesday at 11:00.", booked, catalog) == []


def test_a_reply_that_drops_the_flows_question_is_named(catalog):
    facts = Facts(
        text="Which card would you like the appointment for?",
        product_names=set(),
        question="Which card would you like the appointment for?",
    )
    assert violations("Happy to help you book an appointment!", facts, catalog) == ["the question the customer must answer next"]
    assert violations("Happy to help! Which card would you like the appointment for?", facts, catalog) == []


def test_the_framing_keeps_only_sentences_that_state_nothing(catalog):
    """A small number with no unit ("a minimum age of 30") passed the figure check, which reads
    only prices, percentages and numbers of 100 or more. The framing
    around the draft keeps no sentence with a number, an item, a date, a promise or a repeat."""
    gold = catalog.product("visa-gold-credit").name
    draft = f"**{gold}**: annual fee ৳3,000."
    reply = (
        "Thanks for asking! You need a minimum age of 30 for this card. "
        f"The {gold} is a great pick. We'll call you tomorrow. **{gold}**: annual fee ৳3,000. Here is what I found."
    )
    assert framing(reply, draft, catalog) == "Thanks for asking! Here is what I found."


def test_the_framing_leaves_out_a_question_and_an_answer_cut_off_by_the_token_cap(catalog):
    draft = "Here are the cards."
    assert framing("Thanks for asking! I picked these with care for your", draft, catalog) == "Thanks for asking!"
    assert framing("I'm ready to help. What's your product or service?", draft, catalog) == "I'm ready to help."
    assert framing("আপনাকে ধন্যবাদ। এগুলো দেখুন।", draft, catalog) == "আপনাকে ধন্যবাদ। এগুলো দেখুন।"


def test_the_framing_says_nothing_an_items_data_says_even_of_an_unnamed_item(catalog):
    visa = catalog.product("visa-platinum-business")
    reply = "It also offers rewards for travel and office supplies, which is great. Happy to help you choose."
    assert visa.rewards and "travel and office supplies" in visa.rewards
    assert framing(reply, "Here are the cards.", catalog, [visa.model_dump_json()]) == "Happy to help you choose."


def test_a_link_the_data_does_not_have_is_named(catalog):
    """By hand on the real small model: "you can find more about the card here: [https://www."
    reached a customer as framing around a help article."""
    facts = Facts(text="Call us on 16639 or see https://padmabank.example/cards.", product_names=set())
    assert violations("More on https://padmabank.example/cards.", facts, catalog) == []
    assert violations("See more here: [https://www.", facts, catalog) == ["the link https://www."]
    assert (
        framing("Sorry to hear that. You can find more here: [https://www.", "Here is what to do.", catalog)
        == "Sorry to hear that."
    )
