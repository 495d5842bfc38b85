"""Booking a table in the restaurants' chat: the guest's number confirmed by a one-time code, then
the concierge's own reserve, confirmation message and reminder (the ones POST /assistant books
with), the booking card's data, and a change to the table booked ("move it to Sunday", "make it
7pm instead", "change it to 5 people")."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import Clock, Conversation, durable

DOMAIN = "restaurants"
KOLKATA = ZoneInfo("Asia/Kolkata")
MONDAY = dt.datetime(2026, 11, 23, 10, 0, tzinfo=KOLKATA)
PLACE = "res_10005"  # Masala Terrace, Bandra West: open 18:00-23:30


class GuestChat(Conversation):
    """A chat whose guest types the one-time code that reaches their number."""

    def __init__(self, client, outbox: Path):
        super().__init__(client)
        self.outbox = outbox

    def confirm(self, sent: dict) -> dict:
        assert "We've sent a 6-digit code" in sent["reply"] and sent["booking"] is None, sent["reply"]
        otp = [m for m in map(json.loads, self.outbox.read_text().splitlines()) if m["kind"] == "otp"]
        return self.say(re.search(r"\b(\d{6})\b", otp[-1]["text"]).group(1))


@pytest.fixture
def chat(app, client, tmp_path):
    app.extensions["pipeline"].desk.clock = Clock(MONDAY)
    return GuestChat(client, tmp_path / "outbox.jsonl")


@pytest.fixture
def outbox(tmp_path):
    path = tmp_path / "outbox.jsonl"
    return lambda: [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def db(tmp_path):
    def rows(sql: str, *params: object) -> list[tuple]:
        return durable(tmp_path).rows(sql, params)

    return rows


def book(chat: Conversation, catalog, when: str = "this saturday at 8pm", guests: int = 4) -> dict:
    chat.say("north indian in mumbai")
    asked = chat.say(f"book a table for {guests} at {catalog.product(PLACE).name} {when}")
    assert asked["agents"] == ["booking", "formatter"], asked["reply"]
    assert asked["state"]["active_goal"]["missing"] == ["name", "phone"]
    return chat.confirm(chat.say("Rahul Verma 9811122233"))


def test_a_table_is_booked_in_the_chat_as_the_concierge_books_it(chat, catalog, outbox, db, client):
    done = book(chat, catalog)
    booking = done["booking"]
    assert booking["status"] == "confirmed" and booking["id"].startswith("rev_"), done["reply"]
    assert (booking["product_id"], booking["product_name"]) == (PLACE, "Masala Terrace")
    assert booking["starts_at"] == "2026-11-28T20:00:00+05:30" and booking["guests"] == 4 and booking["table"] == "1"
    assert booking["phone"] == "+919******233" and booking["name"] == "Rahul Verma"
    assert booking["id"] in done["reply"] and "Saturday 28 November at 20:00" in done["reply"]
    assert done["state"]["active_goal"] is None
    # the code to the guest's number, then the concierge's reservation, message and reminder
    assert db("SELECT restaurant_id, date, time, guests, name, phone FROM reservations") == [
        (PLACE, "2026-11-28", "20:00", 4, "Rahul Verma", "+919811122233")
    ]
    sent = outbox()
    assert [m["kind"] for m in sent] == ["otp", "sms"] and {m["to"] for m in sent} == {"+919811122233"}
    assert sent[1]["text"].startswith("Your table for 4 at Masala Terrace, 5 Carter Road") and booking["id"] in sent[1]["text"]
    assert db("SELECT booking_id, due_at FROM reminders") == [(booking["id"], "2026-11-28T13:30:00+00:00")]
    assert client.get("/about").get_json()["booking"] == "table"


def test_a_fully_booked_time_takes_the_earliest_alternate_as_the_concierge_does(app, chat, catalog):
    services = app.extensions["concierge"].services
    for n in range(catalog.product(PLACE).value("tables")):  # every table taken through the concierge's service
        reserved = services.reserve_table(PLACE, "2026-11-28", "20:00", 2, f"Guest {n}", "+919800000000", now=MONDAY)
        assert reserved["status"] == "confirmed"
    done = book(chat, catalog)
    assert done["booking"]["starts_at"] == "2026-11-28T19:30:00+05:30"
    assert "20:00 was fully booked, so I took the earliest alternate, 19:30." in done["reply"]


def test_a_closed_hour_and_a_party_too_big_are_asked_again_in_the_packs_words(chat, catalog):
    chat.say("north indian in mumbai")
    closed = chat.say("book a table for 4 at Masala Terrace on saturday at 1pm")
    closed = chat.confirm(chat.say("Rahul Verma 9811122233"))
    assert closed["booking"] is None and closed["reply"].startswith("Masala Terrace is open 18:00–23:30.")
    assert closed["ask_user"] == "At what time?" and closed["state"]["active_goal"]["missing"] == ["time"]
    big = chat.say("8 pm for 25 people")
    assert "We book tables for 1 to 20 guests" in big["reply"] and "E.164" not in big["reply"]
    assert big["state"]["active_goal"]["missing"] == ["guests"] and big["ask_user"] == "For how many people?"
    done = chat.say("6")
    assert done["booking"]["starts_at"] == "2026-11-28T20:00:00+05:30", "the number confirmed once needs no second code"


@pytest.mark.parametrize(
    ("change", "starts_at", "guests"),
    [
        ("can you move it to Sunday, same time?", "2026-11-29T20:00:00+05:30", 4),
        ("make it 7pm instead", "2026-11-28T19:00:00+05:30", 4),
        ("change it to 5 people", "2026-11-28T20:00:00+05:30", 5),
    ],
)
def test_a_change_right_after_the_booking_changes_that_table_once_confirmed(chat, catalog, outbox, db, change, starts_at, guests):
    booked = book(chat, catalog)["booking"]
    shown = chat.say(change)
    assert shown["agents"] == ["booking", "formatter"] and shown["ask_user"].startswith("Shall I change it to"), shown["reply"]
    assert db("SELECT date, time, guests FROM reservations") == [("2026-11-28", "20:00", 4)], "nothing changes before a yes"
    changed = chat.say("yes, change it")
    moved = changed["booking"]
    assert moved["id"] == booked["id"] and moved["starts_at"] == starts_at and moved["guests"] == guests
    assert changed["reply"].startswith("✅ Changed!") and changed["state"]["active_goal"] is None
    day, time = starts_at[:10], starts_at[11:16]
    assert db("SELECT id, date, time, guests FROM reservations") == [(booked["id"], day, time, guests)]
    due = dt.datetime.fromisoformat(starts_at) - dt.timedelta(hours=1)
    assert db("SELECT booking_id, due_at FROM reminders") == [(booked["id"], due.astimezone(dt.UTC).isoformat())]
    notice = outbox()[-1]
    assert notice["to"] == "+919811122233" and "is now for" in notice["text"] and booked["id"] in notice["text"]


def test_the_booking_stays_changeable_after_other_talk_and_a_change_it_cant_take(chat, catalog, outbox, db):
    booked = book(chat, catalog)["booking"]
    chat.say("thanks!")
    too_big = chat.say("change it to 25 people")
    assert "We book tables for 1 to 20 guests" in too_big["reply"] and too_big["booking"] is None
    assert too_big["ask_user"] == "For how many people?"
    closed = chat.say("4 people at 1pm")
    assert closed["reply"].startswith("Masala Terrace is open 18:00–23:30.") and closed["ask_user"] == "At what time?"
    assert db("SELECT time, guests FROM reservations") == [("20:00", 4)], "nothing changed yet"
    assert chat.say("never mind")["booking"] is None
    assert chat.say("make it 10pm")["booking"] is None, "shown first"
    later = chat.say("ok")
    assert later["booking"]["id"] == booked["id"] and later["booking"]["starts_at"] == "2026-11-28T22:00:00+05:30"
    assert [m["kind"] for m in outbox()] == ["otp", "sms", "sms"], "the code, the confirmation and the one change made"


def test_another_booking_and_a_new_search_are_no_change(chat, catalog, db):
    booked = book(chat, catalog)["booking"]
    search = chat.say("north indian in bandra for 2")  # the booked place fits, but this is a search
    assert search["intent"]["type"] == "product_info" and "booking" not in search["agents"] and search["products"]
    another = chat.say("book another one")
    assert another["agents"] == ["booking", "formatter"] and another["state"]["active_goal"]["slots"] == {}
    assert "Which restaurant" in another["ask_user"]
    chat.say("Saffron Verandah, sunday 1pm for 2")
    second = chat.confirm(chat.say("Meera Joshi 9820012345"))["booking"]
    assert second["id"] != booked["id"] and second["product_name"] == "Saffron Verandah"
    assert sorted(db("SELECT id, time FROM reservations")) == sorted([(booked["id"], "20:00"), (second["id"], "13:00")])
