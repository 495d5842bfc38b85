"""The car showroom: budget, body type, fuel, seats and transmission filters, named comparisons,
the insurance and documents FAQ, and a test drive confirmed by a one-time code."""

from __future__ import annotations

import pytest

from assistant.tools.filters import FilterRules

DOMAIN = "cars"  # the app fixture (conftest.py) serves this pack


def test_the_showroom_has_forty_cars_of_one_maker_and_its_rivals(catalog):
    brands = [p.value("brand") for p in catalog.products]
    assert len(catalog.products) >= 40 and brands.count("mahindra") >= 15 and len(set(brands)) >= 5
    for car in catalog.products:
        assert car.value("price") > 0 and car.value("seating") >= 2
        assert (car.value("fuel") == "electric") == (car.value("engine_cc") is None)
    topics = " ".join(f"{e.question} {e.answer}".lower() for e in catalog.faq)
    for must in ("rc", "form 29", "third-party", "comprehensive", "zero", "documents", "driving licence"):
        assert must in topics, must


@pytest.mark.parametrize(
    "query,filters",
    [
        ("SUVs under 15 lakhs", {"body_type": "suv", "max_price": 1_500_000}),
        ("a 7 seater diesel automatic", {"min_seats": 7, "fuel": "diesel", "transmission": "automatic"}),
        ("electric cars under 20 lakh", {"fuel": "electric", "max_price": 2_000_000}),
        ("petrol manual hatchback", {"fuel": "petrol", "transmission": "manual", "body_type": "hatchback"}),
        ("sedan with 5 star safety", {"body_type": "sedan", "min_safety": 5}),
    ],
)
def test_recommendations_honour_every_filter(chat, catalog, query, filters):
    data = chat.say(query)
    if data["ask_user"]:  # a broad request gets one question first
        assert data["choices"] and data["products"] == []
        data = chat.say(data["choices"][0])
    assert data["state"]["filters"].items() >= filters.items()
    assert data["products"], data["reply"]
    rules = FilterRules(catalog)
    for shown in data["products"]:
        car = catalog.product(shown["id"])
        assert rules.matches(car, filters)
        assert f"₹{car.value('price') / 100_000:.2f}".rstrip("0").rstrip(".") + " lakh" in data["reply"]


def test_budget_first_when_only_a_body_type_is_given(chat):
    data = chat.say("I want an SUV")
    assert data["ask_user"].startswith("What's your budget") and "Under 15 lakh" in data["choices"]
    answered = chat.say("Under 15 lakh")
    assert answered["state"]["filters"] == {"body_type": "suv", "max_price": 1_500_000}
    assert answered["products"]


def test_compare_named_cars(chat, catalog):
    data = chat.say("compare Thar and Scorpio")
    assert data["agents"] == ["comparator", "formatter"]
    models = [catalog.product(pid).value("model") for pid in data["comparison"]["products"]]
    assert models[0] == "Thar" and models[1].startswith("Scorpio")
    price = next(r for r in data["comparison"]["rows"] if r["key"] == "price")
    cheaper = min(data["comparison"]["products"], key=lambda pid: catalog.product(pid).value("price"))
    assert price["best"] == [cheaper]
    follow_up = chat.say("which one is safer?")  # answered by the ranking on safety, no table of everything
    assert {p["id"] for p in follow_up["products"]} == set(data["comparison"]["products"]), "'which one' means those two"


def test_a_feature_question_about_a_named_car(chat, catalog):
    data = chat.say("what's the mileage of the Nexon EV?")
    car = catalog.product(data["products"][0]["id"])
    assert car.value("model") == "Nexon EV" and f"{car.value('range_km'):,} km" in data["reply"]


def test_faq_answers_and_says_so_when_nothing_is_relevant(chat, catalog):
    insurance = chat.say("what types of car insurance are there?")
    assert "Third-party" in insurance["reply"] or "third-party" in insurance["reply"]
    cat = chat.say("what documents do I need to adopt a cat?")
    assert "couldn't find anything relevant" in cat["reply"]
    assert catalog.business.support_contact in cat["reply"]


def test_test_drive_at_home_checks_the_hours_and_a_quick_question_suspends_it(chat, pipeline):
    import datetime as dt
    from zoneinfo import ZoneInfo

    pipeline.desk.clock = lambda: dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Kolkata"))  # a Monday
    started = chat.say("book a test drive of the Thar at my home on Sunday at 11am")
    assert "Test drive at home: not available on Sundays." in started["reply"], "home test drives run Monday to Saturday"
    chat.say("Saturday at 11am then")
    price = chat.say("wait, what's the price of that car?")
    assert "₹" in price["reply"] and "Back to your test drive:" in price["reply"]
    assert price["state"]["active_goal"]["type"] == "booking"
    named = chat.say("Priya Kulkarni")
    assert named["state"]["active_goal"]["slots"]["name"] == "P**** K*******"  # masked in state


def test_a_test_drive_booked_is_moved_within_its_hours(chat, pipeline, tmp_path):
    import datetime as dt
    import json
    import re
    from zoneinfo import ZoneInfo

    pipeline.desk.clock = lambda: dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Kolkata"))  # a Monday
    chat.say("book a test drive of the Thar at my home on Saturday at 11am")
    chat.say("Priya Kulkarni")
    chat.say("9876543210")
    outbox = [json.loads(line) for line in (tmp_path / "outbox.jsonl").read_text().splitlines()]
    booked = chat.say(re.search(r"\b(\d{6})\b", outbox[-1]["text"]).group(1))["booking"]
    assert booked["starts_at"] == "2026-11-28T11:00:00+05:30"
    evening = chat.say("make it 7pm instead")
    assert evening["booking"] is None and "18:00" in evening["reply"], "home test drives end at 18:00"
    assert chat.say("5 pm then")["ask_user"] == "Shall I change it to Saturday 28 November 2026, at 17:00?"
    moved = chat.say("yes")["booking"]
    assert moved["id"] == booked["id"] and moved["starts_at"] == "2026-11-28T17:00:00+05:30"
    assert [r["due_at"] for r in pipeline.desk.reminders.pending()] == ["2026-11-28T10:30:00+00:00"]
