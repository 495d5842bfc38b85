"""Replies sized to the question: a fact asked gets that fact, for the items meant; a table only
when a comparison was asked; no topic shown twice, and no heading with nothing under it."""

from __future__ import annotations

import re

import pytest
from conftest import Conversation, app_for

from assistant.pack.texts import say

_TABLE = re.compile(r"^\|---", re.MULTILINE)


def _bare_headings(reply: str) -> list[str]:
    """Lines that are only a bold heading with no bullet under them."""
    lines = reply.split("\n")
    return [
        line
        for i, line in enumerate(lines)
        if re.fullmatch(r"\*\*[^*]+\*\*", line) and not (i + 1 < len(lines) and lines[i + 1].startswith("- "))
    ]


@pytest.fixture
def pack(tmp_path):
    """A conversation with one pack's app, and its catalog."""

    def start(domain: str) -> tuple[Conversation, object]:
        app = app_for(tmp_path / domain, domain)
        return Conversation(app.test_client()), app.extensions["pipeline"].catalog

    return start


def test_one_fact_of_one_item_is_that_line_alone(pack):
    chat, catalog = pack("bank")
    shown = chat.say("platinum credit cards")["products"]
    second = catalog.product(shown[1]["id"])
    data = chat.say("what's the annual fee of the second one?")
    assert [p["id"] for p in data["products"]] == [second.id]
    assert data["reply"].startswith(f"**{second.name}**\n- Annual fee: ৳{second.annual_fee:,}")
    assert data["reply"].count("\n- ") == 1, "the line asked, no other fee"
    assert not any(p["name"] in data["reply"] for p in shown if p["id"] != second.id)
    assert not _TABLE.search(data["reply"]) and data["comparison"] is None


def test_a_fact_asked_while_narrowing_down_names_what_was_found_and_only_that_fact(pack):
    chat, catalog = pack("bank")
    assert chat.say("show me credit cards")["ask_user"], "a search this broad asks which kind first"
    data = chat.say("what's the late fee?")
    assert data["agents"] == ["retriever", "formatter"] and data["products"]
    intro, facts = data["reply"].split("\n\n")
    assert intro.startswith(f"Here are {len(data['products'])} credit cards")
    assert facts.startswith("**Late payment fee**\n")
    for shown in data["products"]:
        card = catalog.product(shown["id"])
        assert f"- **{card.name}**: ৳{card.late_payment_fee:,}" in facts
    assert "interest rate" not in data["reply"] and "Annual fee" not in data["reply"], "no list of everything"


def test_a_line_the_item_has_no_value_for_is_said_to_be_unlisted(pack):
    chat, catalog = pack("cars")
    data = chat.say("what's the safety rating of the Jimny?")
    jimny = catalog.product(data["products"][0]["id"])
    assert jimny.value("safety_rating") is None
    assert data["reply"] == say(catalog, "not_listed", name=jimny.name), "not its airbags, nor a bare heading"


def test_an_electric_cars_mileage_is_its_range(pack):
    chat, catalog = pack("cars")
    data = chat.say("what's the mileage of the Nexon EV?")
    car = catalog.product(data["products"][0]["id"])
    assert data["reply"] == f"**{car.name}**\n- Mileage: {car.value('range_km'):,} km on a charge"


def test_a_line_two_asked_topics_share_is_shown_once(pack):
    chat, catalog = pack("store")
    data = chat.say("what's the stock and price of the Legion 5?")
    item = catalog.product(data["products"][0]["id"])
    assert data["intent"]["type"] == "feature_query"
    assert data["reply"].count("- Price:") == 1 and f"- Stock: {item.value('stock')} in stock" in data["reply"]


@pytest.mark.parametrize(
    "domain, search, question",
    [
        ("bank", "platinum credit cards", "what's the late fee?"),
        ("bank", "platinum credit cards", "what are the fees?"),
        ("bank", "platinum credit cards", "does the gold card have lounge access?"),
        ("cars", "SUVs under 15 lakh", "safety rating?"),
        ("store", "gaming laptops under 40000 baht", "what's the warranty?"),
        ("restaurants", "north indian restaurants in mumbai", "what's the address?"),
    ],
)
def test_a_fact_question_gets_no_table_and_no_bare_heading(pack, domain, search, question):
    chat, _ = pack(domain)
    assert chat.say(search)["products"]
    data = chat.say(question)
    assert data["intent"]["type"] == "feature_query", data["reply"]
    assert not _TABLE.search(data["reply"]) and data["comparison"] is None
    assert not _bare_headings(data["reply"]), data["reply"]
    blocks = [block.split("\n")[0] for block in data["reply"].split("\n\n")]
    assert len(blocks) == len(set(blocks)), "no block twice"


def test_a_comparison_of_one_line_is_a_table_of_that_line(pack):
    chat, catalog = pack("bank")
    shown = chat.say("platinum credit cards")["products"]
    data = chat.say("compare their late fees")
    assert [row["label"] for row in data["comparison"]["rows"]] == ["Late payment fee"]
    rows = [line for line in data["reply"].split("\n") if line.startswith("| ")]
    assert len(rows) == 2 and rows[1].startswith("| Late payment fee |")
    for product in shown:
        assert f"৳{catalog.product(product['id']).late_payment_fee:,}" in rows[1]
    everything = chat.say("compare them")  # asked for nothing in particular: the whole table
    assert len(everything["comparison"]["rows"]) > 1 and "| Annual fee |" in everything["reply"]


def test_which_is_best_on_one_thing_is_answered_by_that_ranking_alone(pack):
    chat, catalog = pack("cars")
    assert chat.say("SUVs under 15 lakh")["products"]
    data = chat.say("which is the safest?")
    ranked = [catalog.product(p["id"]) for p in data["products"]]
    top = [p for p in ranked if p.safety_rating == ranked[0].safety_rating]
    first = data["reply"].split("\n")[0]
    assert ranked[0].safety_rating == max(p.safety_rating or 0 for p in ranked)
    assert all(f"**{p.name}**" in first for p in top)
    assert ("share the highest safety rating" if len(top) > 1 else "has the highest safety rating") in first
    assert not _TABLE.search(data["reply"]) and data["comparison"] is None
