"""Booking an appointment: slots, validation, the one-time code from the outbox (and a number
changed after it was sent), reminders, interruptions that suspend and resume the booking,
cancelling, and an hour's capacity."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from zoneinfo import ZoneInfo

import pytest
from conftest import Clock, Conversation, durable

from app import create_app
from assistant.booking.codes import BookingStore
from assistant.booking.notifications import OutboxNotifier

DHAKA = ZoneInfo("Asia/Dhaka")
NOW = dt.datetime(2026, 11, 23, 9, 30, tzinfo=DHAKA)  # a Monday morning


@pytest.fixture
def clock(pipeline):
    clock = Clock(NOW)
    pipeline.desk.clock = clock
    return clock


@pytest.fixture
def outbox(tmp_path):
    path = tmp_path / "outbox.jsonl"

    def read(kind: str | None = None) -> list[dict]:
        lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        return [m for m in lines if kind is None or m["kind"] == kind]

    return read


def last_code(outbox) -> str:
    return re.search(r"\b(\d{6})\b", outbox("otp")[-1]["text"]).group(1)


@pytest.fixture
def chat(client, clock):
    return Conversation(client, "business_owner")


def fill_until_code(chat) -> dict:
    chat.say("I want a platinum conventional credit card for business")
    chat.say("I'd like to apply for the Mastercard one")
    chat.say("a call-back tomorrow at 5 pm please")
    chat.say("Rahim Uddin")
    return chat.say("01712345678")


def test_full_booking_with_the_code_from_the_outbox(chat, outbox, pipeline, caplog):
    caplog.set_level(logging.DEBUG)
    chat.say("I want a platinum conventional credit card for business")
    start = chat.say("I'd like to apply for the Mastercard one")
    assert start["intent"]["type"] == "booking" and start["agents"] == ["booking", "formatter"]
    goal = start["state"]["active_goal"]
    assert goal["type"] == "booking" and goal["status"] == "blocked"
    assert goal["slots"]["product"] == "mastercard-platinum-business"
    assert goal["missing"][0] == "channel" and start["choices"] == ["Branch visit", "Call-back"]

    several = chat.say("a call-back tomorrow at 5 pm please")
    slots = several["state"]["active_goal"]["slots"]
    assert (slots["channel"], slots["date"], slots["time"]) == ("call", "2026-11-24", "17:00")
    assert "name" in several["ask_user"]

    chat.say("Rahim Uddin")
    sent = chat.say("01712345678")
    assert sent["state"]["active_goal"]["slots"]["phone"] == "+880*******678"  # masked wherever state is shown
    otp = outbox("otp")
    assert len(otp) == 1 and otp[0]["to"] == "+8801712345678"
    code = last_code(outbox)
    assert code not in json.dumps(sent) and "code" in sent["ask_user"]

    done = chat.say(f"the code is {code}")
    booking = done["booking"]
    assert booking["status"] == "confirmed" and re.fullmatch(r"BK-[0-9A-F]{8}", booking["id"])
    assert booking["id"] in done["reply"] and booking["product_id"] == "mastercard-platinum-business"
    assert booking["starts_at"] == "2026-11-24T17:00:00+06:00" and booking["phone"].endswith("678")
    assert done["state"]["active_goal"] is None
    confirmation = outbox("confirmation")
    assert len(confirmation) == 1 and booking["id"] in confirmation[0]["text"]
    assert [r["due_at"] for r in pipeline.desk.reminders.pending()] == ["2026-11-24T10:00:00+00:00"]

    stored = pipeline.store.load(chat.session_id)
    assert code not in stored.model_dump_json(), "the code is not kept in the session"
    assert all(code not in record.getMessage() for record in caplog.records)


def test_a_typed_phone_number_gets_its_code_but_history_keeps_it_masked(chat, client, outbox, pipeline):
    chat.say("I want a platinum conventional credit card for business")
    chat.say("I'd like to apply for the Mastercard one")
    chat.say("a call-back tomorrow at 5 pm please")
    chat.say("Rahim Uddin")
    chat.say("my number is 01898 765432")
    assert [m["to"] for m in outbox("otp")] == ["+8801898765432"], "the code goes to the real number"
    history = client.get(f"/sessions/{chat.session_id}").get_json()["history"]
    assert history[-2]["text"] == "my number is +880*******432", "masked as replies and state show it"
    stored = " ".join(turn.model_dump_json() for turn in pipeline.store.load(chat.session_id).history)
    assert "765432" not in stored and "+880*******432" in stored, "the stored history keeps it masked only"


def test_several_slots_at_once_and_a_correction(chat, catalog):
    first = chat.say("book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card")
    slots = first["state"]["active_goal"]["slots"]
    assert slots["product"] == "visa-platinum-business" and slots["channel"] == "call"
    assert (slots["date"], slots["time"]) == ("2026-11-24", "17:00")
    corrected = chat.say("actually make it 6 pm")
    assert corrected["state"]["active_goal"]["slots"]["time"] == "18:00"
    assert corrected["state"]["active_goal"]["slots"]["date"] == "2026-11-24"


def test_a_vague_product_is_asked_for_with_choices(chat, catalog):
    data = chat.say("I'd like to apply for a Visa Platinum")
    assert data["state"]["active_goal"]["missing"][0] == "product"
    assert data["choices"] and all("Visa" in c and "Platinum" in c for c in data["choices"])
    picked = chat.say(data["choices"][0])
    assert catalog.product(picked["state"]["active_goal"]["slots"]["product"]).name == data["choices"][0]


@pytest.mark.parametrize(
    "message, slot, complaint",
    [
        ("book a call-back today at 8am for the Visa Platinum Business Credit Card", "time", "already passed"),
        (  # a year said is kept (never moved to a later one), and a day gone by is asked again
            "book a call-back on 1 January 2020 at 11am for the Visa Platinum Business Credit Card",
            "date",
            "Wednesday 1 January 2020 has already passed.",
        ),
        ("book a call-back tomorrow at 9 pm for the Visa Platinum Business Credit Card", "time", "between 09:00 and 20:00"),
        (
            "book a branch visit at Gulshan on Friday at 11am for the Visa Platinum Business Credit Card",
            "date",
            "Branch visit: not available on Fridays.",
        ),
    ],
)
def test_impossible_times_are_refused_and_asked_again(chat, message, slot, complaint):
    data = chat.say(message)
    assert complaint in data["reply"]
    assert not data["state"]["active_goal"]["slots"].get(slot)
    assert data["state"]["active_goal"]["missing"][0] == slot


def test_a_bad_phone_number_is_refused(chat):
    chat.say("book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card")
    chat.say("my name is Nusrat Jahan")
    data = chat.say("12345678")
    assert "doesn't look like a mobile number" in data["reply"]
    assert data["state"]["active_goal"]["missing"] == ["phone"]


def test_wrong_codes_then_locked_then_a_new_code_works(chat, outbox):
    fill_until_code(chat)
    code = last_code(outbox)
    wrong = "000000" if code != "000000" else "111111"
    assert "isn't right" in chat.say(wrong)["reply"]
    chat.say(wrong)
    locked = chat.say(wrong)
    assert "third wrong code" in locked["reply"] and locked["booking"] is None
    assert chat.say(code)["booking"] is None, "a locked code no longer works, even the right one"
    chat.say("send a new code")
    assert len(outbox("otp")) == 2
    assert chat.say(last_code(outbox))["booking"]["status"] == "confirmed"


def test_a_code_said_in_words_goes_to_the_waiting_booking_not_the_help_centre(chat, outbox):
    """ "the code is …" reads like the help article on payment codes; once a code is sent, it is
    the booking's answer."""
    fill_until_code(chat)
    code = last_code(outbox)
    wrong = "123456" if code != "123456" else "654321"
    data = chat.say(f"the code is {wrong}")
    assert "isn't right" in data["reply"] and data["help"]["article"] is None
    assert data["state"]["active_goal"]["type"] == "booking"
    assert chat.say(f"the code is {code}")["booking"]["status"] == "confirmed"


def test_an_expired_code_is_refused(chat, outbox, clock):
    fill_until_code(chat)
    code = last_code(outbox)
    clock.now = NOW + dt.timedelta(minutes=11)
    expired = chat.say(code)
    assert "expired" in expired["reply"] and expired["booking"] is None
    chat.say("resend please")
    assert chat.say(last_code(outbox))["booking"]["status"] == "confirmed"


@pytest.mark.parametrize(
    "question, answer_has",
    [
        ("wait, what's the annual fee of that card?", "Annual fee: ৳5,000"),
        ("my card was declined yesterday, why?", "declined"),
    ],
)
def test_a_question_mid_booking_is_answered_then_the_booking_resumes(chat, question, answer_has):
    chat.say("I want a platinum conventional credit card for business")
    chat.say("I'd like to apply for the Mastercard one")
    chat.say("a call-back tomorrow at 5 pm please")
    asked = chat.say("Rahim Uddin")
    interrupted = chat.say(question)
    assert "booking" not in interrupted["agents"]
    assert answer_has in interrupted["reply"]
    assert interrupted["reply"].endswith(f"Back to your appointment: {asked['ask_user']}")
    assert interrupted["ask_user"] == asked["ask_user"]
    goal = interrupted["state"]["active_goal"]
    assert goal["type"] == "booking" and goal["slots"]["name"] == "R**** U****"
    assert interrupted["state"]["goal_stack"] == []
    assert "code" in chat.say("01712345678")["ask_user"]


def test_the_stack_shows_the_suspended_booking_while_a_question_waits(chat):
    chat.say("book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card")
    data = chat.say("show me other cards")  # too broad: the new goal asks a clarifying question
    assert data["state"]["active_goal"]["type"] == "product_info"
    assert [g["type"] for g in data["state"]["goal_stack"]] == ["booking"]
    assert data["state"]["goal_stack"][0]["status"] == "suspended"


def test_never_mind_cancels_the_booking(chat, pipeline):
    chat.say("book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card")
    data = chat.say("never mind")
    assert data["intent"]["type"] == "cancel" and "cancelled the appointment" in data["reply"]
    assert data["state"]["active_goal"] is None
    trail = pipeline.store.load(chat.session_id).goals.transitions
    assert [(t.goal_type, t.to_status) for t in trail if t.goal_type == "booking"][-1] == ("booking", "cancelled")
    assert all(t.why for t in trail)
    assert "nothing to cancel" in chat.say("cancel")["reply"]


def test_the_reminder_is_delivered_exactly_once_across_a_restart(tmp_path):
    config = {
        "session_db": tmp_path / "s.sqlite3",
        "bookings_db": tmp_path / "b.sqlite3",
        "notify_outbox": tmp_path / "outbox.jsonl",
        "reminder_poll_s": 0,
    }
    first = create_app(config)
    first.extensions["pipeline"].desk.clock = Clock(NOW)
    chat = Conversation(first.test_client(), "salaried")
    chat.say("book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card")
    chat.say("I am Karim Ahmed")
    chat.say("+880 1812-345678")
    lines = (tmp_path / "outbox.jsonl").read_text().splitlines()
    code = re.search(r"\b(\d{6})\b", json.loads(lines[-1])["text"]).group(1)
    assert chat.say(code)["booking"]["status"] == "confirmed"

    restarted = create_app(config)  # the first app "went down" before the reminder was due
    due = dt.datetime(2026, 11, 24, 16, 30, tzinfo=DHAKA)
    stores = [first.extensions["pipeline"].desk.reminders, restarted.extensions["pipeline"].desk.reminders]
    outbox = OutboxNotifier(tmp_path / "outbox.jsonl")
    threads = [threading.Thread(target=s.deliver_due, args=(due, outbox)) for s in stores * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sent = [json.loads(line) for line in (tmp_path / "outbox.jsonl").read_text().splitlines()]
    reminders = [m for m in sent if m["kind"] == "reminder"]
    assert len(reminders) == 1 and reminders[0]["to"] == "+8801812345678"
    assert restarted.extensions["pipeline"].desk.reminders.pending() == []
    with sqlite3.connect(tmp_path / "b.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM bookings").fetchone()[0] == 1


def test_that_card_means_the_card_being_booked(chat, catalog):
    chat.say("book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card")
    data = chat.say("wait, what's the annual fee of that card?")
    fee = catalog.product("visa-platinum-business").annual_fee
    assert data["intent"]["type"] == "feature_query" and data["agents"] == ["formatter"]
    assert f"Annual fee: ৳{fee:,}" in data["reply"] and "Back to your appointment" in data["reply"]
    assert [p["id"] for p in data["products"]] == ["visa-platinum-business"]


def test_a_banglish_booking_request(chat):
    data = chat.say("Visa Platinum Business Credit Card er jonno kal shaam 5 baje call korun")
    slots = data["state"]["active_goal"]["slots"]
    assert (slots["product"], slots["channel"], slots["date"], slots["time"]) == (
        "visa-platinum-business",
        "call",
        "2026-11-24",
        "17:00",
    )
    assert data["state"]["active_goal"]["missing"] == ["name", "phone"]


def test_a_name_and_number_given_before_they_are_asked_are_kept(chat, pipeline, client):
    """Out of order, bare, beside the phone number: the name is the words before it. Kept whole
    in the session, and masked in every state a client sees."""
    chat.say("book me a call tomorrow at 5 pm")
    data = chat.say("Nusrat Jahan, 01712345678")
    kept = pipeline.store.load(chat.session_id).goals.active.slots
    assert kept["name"] == "Nusrat Jahan" and kept["phone"] == "+8801712345678"
    assert "name" not in data["state"]["active_goal"]["missing"]
    restored = client.get(f"/sessions/{chat.session_id}").get_json()["state"]
    for state in (data["state"], restored):
        slots = state["active_goal"]["slots"]
        assert slots["name"] == "N***** J****" and slots["phone"] == "+880*******678"


@pytest.mark.parametrize("said", ["whatsapp 01712345678", "tomorrow 01712345678", "my number is 01712345678"])
def test_words_before_a_number_that_are_no_name(chat, said):
    chat.say("book me a call tomorrow at 5 pm")
    assert not chat.say(said)["state"]["active_goal"]["slots"].get("name")


def confirmed(chat, outbox) -> dict:
    """A call-back booked for Tuesday 24 November at 17:00, its code typed."""
    fill_until_code(chat)
    return chat.say(last_code(outbox))["booking"]


def test_a_change_right_after_the_booking_is_shown_then_moves_it_its_reminder_and_says_so(chat, outbox, pipeline):
    booked = confirmed(chat, outbox)
    shown = chat.say("can you move it to Wednesday, same time?")
    assert "is on Tuesday 24 November 2026, at 17:00" in shown["reply"], shown["reply"]
    assert shown["ask_user"] == "Shall I change it to Wednesday 25 November 2026, at 17:00?"
    assert shown["choices"] == ["Yes, change it", "No, keep it"] and shown["booking"] is None
    assert pipeline.desk.bookings.get(booked["id"]).starts_at.day == 24, "nothing changes before the customer confirms"
    assert len(outbox("confirmation")) == 1, "and nobody is told of a change not made"
    moved = chat.say("yes please")
    assert moved["agents"] == ["booking", "formatter"] and moved["reply"].startswith("✅ Changed!"), moved["reply"]
    assert moved["booking"] | {"starts_at": None} == booked | {"starts_at": None}, "the same booking, only later"
    assert moved["booking"]["starts_at"] == "2026-11-25T17:00:00+06:00"
    assert pipeline.desk.bookings.get(booked["id"]).starts_at == dt.datetime(2026, 11, 25, 17, 0, tzinfo=DHAKA)
    assert [r["due_at"] for r in pipeline.desk.reminders.pending()] == ["2026-11-25T10:00:00+00:00"], "the reminder moved"
    notice = outbox("confirmation")[-1]
    assert booked["id"] in notice["text"] and "is now on Wednesday 25 November 2026 at 17:00" in notice["text"]
    assert len(outbox("otp")) == 1, "a change to a confirmed booking needs no new code"

    late = chat.say("make it 9pm instead")
    assert "between 09:00 and 20:00" in late["reply"] and late["ask_user"] == "What time? (for example 11am or 5 pm)"
    assert pipeline.desk.bookings.get(booked["id"]).starts_at.hour == 17, "unchanged until a time it can have"
    assert chat.say("7 pm then")["ask_user"] == "Shall I change it to Wednesday 25 November 2026, at 19:00?"
    assert chat.say("yes")["booking"]["starts_at"] == "2026-11-25T19:00:00+06:00"
    assert len(pipeline.desk.reminders.pending()) == 1


def test_a_change_declined_or_left_for_another_question_changes_nothing(chat, outbox, pipeline):
    booked = confirmed(chat, outbox)
    chat.say("move my appointment to Thursday")
    kept = chat.say("no, keep it")
    assert "stays as it was, on Tuesday 24 November 2026, at 17:00" in kept["reply"] and kept["booking"] is None
    chat.say("could you make it 6pm instead?")
    other = chat.say("what is the annual fee of the visa gold card?")
    assert "Back to" not in other["reply"] and not other["state"]["active_goal"], "the change asked for is dropped"
    assert chat.say("yes")["booking"] is None, "a yes after another question confirms nothing"
    assert pipeline.desk.bookings.get(booked["id"]).starts_at == dt.datetime(2026, 11, 24, 17, 0, tzinfo=DHAKA)
    assert len(outbox("confirmation")) == 1 and len(outbox("otp")) == 1


def test_book_another_one_is_a_new_booking(chat, outbox, pipeline):
    booked = confirmed(chat, outbox)
    another = chat.say("book another one")
    goal = another["state"]["active_goal"]
    assert another["agents"] == ["booking", "formatter"] and another["booking"] is None
    assert goal["type"] == "booking" and "booking_id" not in goal["slots"]
    assert pipeline.desk.bookings.get(booked["id"]).starts_at == dt.datetime(2026, 11, 24, 17, 0, tzinfo=DHAKA)


def test_a_number_changed_after_its_code_was_sent_gets_its_own_code_and_the_old_number_is_told(chat, outbox):
    fill_until_code(chat)
    old_code = last_code(outbox)
    changed = chat.say("sorry, my number is 01812345699")
    assert "We've sent a 6-digit code to +880*******699" in changed["reply"]
    assert [m["to"] for m in outbox("otp")] == ["+8801712345678", "+8801812345699"]
    (notice,) = outbox("notice")
    assert notice["to"] == "+8801712345678" and "changed to +880*******699" in notice["text"]
    assert "no longer works" in notice["text"] and "01812345699" not in notice["text"]
    if last_code(outbox) != old_code:
        assert "isn't right" in chat.say(old_code)["reply"], "the old number's code no longer works"
    done = chat.say(last_code(outbox))
    assert done["booking"]["status"] == "confirmed" and done["booking"]["phone"] == "+880*******699"
    assert outbox("confirmation")[0]["to"] == "+8801812345699"


def test_an_hour_at_its_capacity_is_refused_with_the_next_free_one(client, clock, outbox, catalog, pipeline):
    capacity = catalog.pack.flows["booking"].slot("channel").options["call"].capacity
    ask = "book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card, my name is Rahim Uddin, 0171234{:04d}"
    for n in range(capacity):
        chat = Conversation(client)
        chat.say(ask.format(n))
        assert chat.say(last_code(outbox))["booking"]["starts_at"] == "2026-11-24T17:00:00+06:00"
    late = Conversation(client)
    full = late.say(ask.format(capacity))
    assert "Call-back: Tuesday 24 November 2026 at 17:00 is fully booked." in full["reply"]
    assert "The next free time is Tuesday 24 November 2026 at 18:00." in full["reply"]
    assert full["ask_user"] == "What time? (for example 11am or 5 pm)" and full["booking"] is None
    assert len(outbox("otp")) == capacity, "no code is spent on a full hour"
    late.say("6 pm then")
    assert late.say(last_code(outbox))["booking"]["starts_at"] == "2026-11-24T18:00:00+06:00"


def test_an_hours_capacity_holds_for_workers_booking_at_once(open_db):
    """Two workers' stores over one database, twelve bookings of one hour at once: only its capacity get it."""
    stores = [BookingStore(open_db()) for _ in range(2)]
    with ThreadPoolExecutor(max_workers=12) as pool:
        got = list(pool.map(lambda n: stores[n % 2].claim(f"BK-{n}", "channel=call", "2026-11-24T17", 3), range(12)))
    assert sum(got) == 3 and stores[0].taken("channel=call", "2026-11-24T17") == {"2026-11-24T17": 3}
    winner = f"BK-{got.index(True)}"
    assert stores[1].claim(winner, "channel=call", "2026-11-24T17", 3), "a booking that has the hour keeps it"


class MachineDied(BaseException):
    """The process gone between keeping the booking's parts: nothing after it runs."""


def test_a_machine_dying_mid_confirmation_leaves_the_code_unspent_and_nothing_half_made(chat, outbox, tmp_path, monkeypatch):
    """The code, the hour, the reminder and the booking are one transaction: dying before the
    booking is kept spends none of them, and the same code then books once, told once."""
    fill_until_code(chat)
    code = last_code(outbox)
    kept = BookingStore.save

    def dying(store, booking):
        raise MachineDied

    monkeypatch.setattr(BookingStore, "save", dying)
    with pytest.raises(MachineDied):
        chat.say(code)
    db = durable(tmp_path)
    assert db.rows("SELECT COUNT(*) FROM booked_hours") == [(0,)] and db.rows("SELECT COUNT(*) FROM reminders") == [(0,)]
    assert outbox("confirmation") == []
    monkeypatch.setattr(BookingStore, "save", kept)
    booked = chat.say(code)["booking"]
    assert booked["status"] == "confirmed" and len(outbox("confirmation")) == 1
    assert db.rows("SELECT COUNT(*) FROM bookings") == db.rows("SELECT COUNT(*) FROM reminders") == [(1,)]
    assert db.rows("SELECT COUNT(*) FROM booked_hours") == [(1,)]
