"""No phone is flooded: every message to a number, codes, confirmations and reminders alike, counts
against caps per hour and per day kept where the sessions are, whoever asks and whichever worker
sends; the concierge confirms a guest's number with a one-time code before it sends anything else
there or holds a table for longer than the code lives; and an instruction retried, or sent again
under the same Idempotency-Key, books one table."""

from __future__ import annotations

import datetime as dt
import json
import re
from zoneinfo import ZoneInfo

import pytest
from conftest import Clock, Conversation, app_for, durable, signed_in

from assistant.booking.notifications import NOTIFIER, MessagesCapped
from assistant.booking.reminders import REMINDERS

DHAKA = ZoneInfo("Asia/Dhaka")
KOLKATA = ZoneInfo("Asia/Kolkata")
MONDAY = dt.datetime(2026, 11, 23, 10, 0, tzinfo=KOLKATA)
CODE = re.compile(r"\b(\d{6})\b")
BOOK_A_CALL = "book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card, my name is Rahim Uddin, {phone}"
TABLE = (
    "Book a table for two at Konkan Tiffin House on Wednesday at 1 pm, my name is Meera Joshi, {phone}. Text me the confirmation."
)
SEED = (
    "Book a table for four at an Indian restaurant in Bandra, Mumbai, next Saturday at 8 PM, "
    "then send a WhatsApp confirmation, and remind me an hour before."
)


def read_outbox(tmp_path) -> list[dict]:
    path = tmp_path / "outbox.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def rows(tmp_path, sql: str) -> list[tuple]:
    return durable(tmp_path).rows(sql)


@pytest.fixture
def bank(tmp_path):
    app = app_for(tmp_path, "bank", client_rate_per_min=0, session_rate_per_min=0, codes_per_client_hour=0)
    app.extensions["pipeline"].desk.clock = Clock(dt.datetime(2026, 11, 23, 9, 30, tzinfo=DHAKA))
    return app


@pytest.fixture
def restaurants(tmp_path):
    app = app_for(
        tmp_path, "restaurants", client_rate_per_min=0, session_rate_per_min=0, codes_per_client_hour=0, holds_per_client=0
    )
    app.extensions["concierge"].clock = Clock(MONDAY)
    return app


def concierge(app, instruction: str, user_id: str, member: bool = False, **headers: str) -> dict:
    """POST /assistant as a guest, or signed in as the member `user_id`."""
    sent = {**(signed_in(user_id) if member else {}), **headers}
    response = app.test_client().post("/assistant", json={"user_id": user_id, "instruction": instruction}, headers=sent)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_codes_asked_for_one_number_from_fresh_sessions_stop_at_the_cap(bank, tmp_path):
    client = bank.test_client()
    replies = [Conversation(client).say(BOOK_A_CALL.format(phone="01712345678")) for _ in range(120)]
    codes = [m for m in read_outbox(tmp_path) if m["kind"] == "otp"]
    assert len(codes) == 5 and {m["to"] for m in codes} == {"+8801712345678"}, "the hour's cap, across 120 sessions"
    sent, capped = replies[:5], replies[5:]
    assert all("We've sent a 6-digit code to +880*******678" in r["reply"] for r in sent)
    for reply in capped:
        assert "We've sent too many messages to +880*******678 for now, so no code went out." in reply["reply"]
        assert "We've sent a 6-digit code" not in reply["reply"] and reply["state"]["active_goal"]["slots"]["code_sent"] is False
        assert reply["state"]["active_goal"]["type"] == "booking", "the booking waits: nothing else changes"
    other = Conversation(client).say(BOOK_A_CALL.format(phone="01812345678"))
    assert "We've sent a 6-digit code to +880*******678" in other["reply"], "another number has its own allowance"


def test_a_code_that_was_never_sent_does_not_work(tmp_path):
    """The code made for a capped message is withdrawn, so no one can book with it."""
    app = app_for(tmp_path, "bank", messages_per_number_hour=1)
    desk = app.extensions["pipeline"].desk
    desk.clock = Clock(dt.datetime(2026, 11, 23, 9, 30, tzinfo=DHAKA))
    NOTIFIER.get(app).send("+8801712345678", "an earlier message", "notice")
    chat = Conversation(app.test_client())
    capped = chat.say(BOOK_A_CALL.format(phone="01712345678"))
    assert "no code went out" in capped["reply"] and len(read_outbox(tmp_path)) == 1
    goal_id = capped["state"]["active_goal"]["id"]
    assert desk.bookings.check_code(goal_id, "123456", desk.clock()) == "none"


def test_every_kind_of_message_counts_against_the_same_number_across_workers(tmp_path):
    """Two apps over the same files are two workers: codes, confirmations and reminders share the caps."""
    workers = [app_for(tmp_path, "bank", messages_per_number_hour=0, messages_per_number_day=4) for _ in range(2)]
    senders = [NOTIFIER.get(app) for app in workers]
    for n, kind in enumerate(["otp", "confirmation", "notice", "otp"]):
        senders[n % 2].send("+8801712345678", f"message {n}", kind)
    with pytest.raises(MessagesCapped):
        senders[0].send("+8801712345678", "one too many", "confirmation")
    store = REMINDERS.get(workers[1])
    store.schedule("BK-1", "+8801712345678", "your appointment is at 17:00", dt.datetime(2026, 11, 24, 10, 0, tzinfo=dt.UTC))
    assert store.deliver_due(dt.datetime(2026, 11, 24, 10, 0, tzinfo=dt.UTC), senders[1]) == 0, "a reminder over the cap too"
    senders[1].send("+8801812345678", "another number", "otp")
    assert [m["to"] for m in read_outbox(tmp_path)] == ["+8801712345678"] * 4 + ["+8801812345678"]


def test_the_hour_cap_holds_besides_the_days(tmp_path):
    sender = NOTIFIER.get(app_for(tmp_path, "bank", messages_per_number_hour=2, messages_per_number_day=10))
    sender.send("+8801712345678", "one", "otp")
    sender.send("+8801712345678", "two", "confirmation")
    with pytest.raises(MessagesCapped):
        sender.send("+8801712345678", "three", "reminder")


def test_a_confirmation_over_the_cap_is_said_not_pretended(tmp_path):
    app = app_for(tmp_path, "bank", messages_per_number_hour=1)
    app.extensions["pipeline"].desk.clock = Clock(dt.datetime(2026, 11, 23, 9, 30, tzinfo=DHAKA))
    chat = Conversation(app.test_client())
    chat.say(BOOK_A_CALL.format(phone="01712345678"))
    done = chat.say(CODE.search(read_outbox(tmp_path)[-1]["text"]).group(1))
    assert done["booking"]["status"] == "confirmed", "booked: the number just proved it is the customer's"
    assert "so no confirmation went out" in done["reply"] and "We've sent a confirmation" not in done["reply"]
    assert [m["kind"] for m in read_outbox(tmp_path)] == ["otp"]


def test_a_guest_confirms_the_number_by_code_before_any_other_message(restaurants, tmp_path):
    asked = concierge(restaurants, SEED.replace("then send", "my name is Meera Joshi, 9820012345, then send"), "guest-1")
    assert set(asked) == {"ask_user"} and "We've sent a 6-digit code to +919******345" in asked["ask_user"]
    assert "for 10 minutes" in asked["ask_user"]
    assert [m["kind"] for m in read_outbox(tmp_path)] == ["otp"], "the code only: no confirmation yet"
    (held,) = rows(tmp_path, "SELECT reservation_id FROM held_until")
    assert rows(tmp_path, "SELECT COUNT(*) FROM reminders") == [(0,)]
    code = CODE.search(read_outbox(tmp_path)[-1]["text"]).group(1)
    wrong = concierge(restaurants, "000000" if code != "000000" else "111111", "guest-1")
    assert wrong == {"ask_user": "That code isn't right. Please check the SMS and type the code again."}
    done = concierge(restaurants, f"the code is {code}", "guest-1")
    assert done["reservation"]["reservation_id"] == held[0] and done["notification"]["status"] == "sent"
    assert done["reminder"]["scheduled_for"] == "2026-11-28T19:00"
    assert [m["kind"] for m in read_outbox(tmp_path)] == ["otp", "whatsapp"]
    assert rows(tmp_path, "SELECT COUNT(*) FROM held_until") == [(0,)], "kept for good"


def test_a_guests_code_over_the_cap_is_said_and_nothing_is_sent(tmp_path):
    app = app_for(tmp_path, "restaurants", messages_per_number_hour=1)
    app.extensions["concierge"].clock = Clock(MONDAY)
    NOTIFIER.get(app).send("+919820012345", "an earlier message", "notice")
    capped = concierge(app, TABLE.format(phone="9820012345"), "guest-1")
    assert capped["error"] == "code_not_sent" and "We've sent too many messages to +919******345" in capped["details"]
    assert [m["kind"] for m in read_outbox(tmp_path)] == ["notice"]


def test_a_guests_number_changed_while_its_code_is_awaited_gets_its_own_code(restaurants, tmp_path):
    concierge(restaurants, TABLE.format(phone="9820012345"), "guest-1")
    asked = concierge(restaurants, "sorry, my number is 9845099999", "guest-1")
    assert "We've sent a 6-digit code to +919******999" in asked["ask_user"]
    assert [(m["kind"], m["to"]) for m in read_outbox(tmp_path)] == [
        ("otp", "+919820012345"),
        ("notice", "+919820012345"),
        ("otp", "+919845099999"),
    ]
    done = concierge(restaurants, CODE.search(read_outbox(tmp_path)[-1]["text"]).group(1), "guest-1")
    assert done["notification"]["status"] == "sent" and read_outbox(tmp_path)[-1]["to"] == "+919845099999"


def test_a_member_signed_in_is_not_asked_for_a_code(restaurants, tmp_path):
    done = concierge(restaurants, SEED, "user_ind001", member=True)
    assert done["notification"]["status"] == "sent" and [m["kind"] for m in read_outbox(tmp_path)] == ["whatsapp"]


def test_the_concierge_cannot_message_200_numbers_for_a_guest_without_codes(restaurants, tmp_path):
    for n in range(200):
        concierge(restaurants, TABLE.format(phone=f"98{n:08d}"), f"guest-{n}")
    sent = read_outbox(tmp_path)
    assert {m["kind"] for m in sent} == {"otp"}, "no confirmation to a number no one confirmed"
    assert len({m["to"] for m in sent}) == len(sent), "one code a number"
    assert rows(tmp_path, "SELECT COUNT(*) FROM reminders") == [(0,)]
    held = rows(tmp_path, "SELECT COUNT(*) FROM held_until")
    assert rows(tmp_path, "SELECT COUNT(*) FROM reservations") == held, "every table only held"


def test_a_held_table_is_free_again_once_its_code_has_lapsed(restaurants, tmp_path):
    services, clock = restaurants.extensions["concierge"].services, restaurants.extensions["concierge"].clock
    tables = restaurants.extensions["pipeline"].catalog.product("res_10002").value("tables")
    for n in range(tables - 1):
        services.reserve_table("res_10002", "2026-11-25", "13:00", 2, f"Guest {n}", "+919800000000", now=MONDAY)
    asked = concierge(restaurants, TABLE.format(phone="9820012345"), "guest-1")
    assert "holding a table for 2 at Konkan Tiffin House on Wednesday 25 November at 13:00" in asked["ask_user"]
    taken = concierge(restaurants, TABLE.format(phone="9845012345"), "user_ind002", member=True)
    assert taken["reservation"]["time"] != "13:00", "the held table is taken while its code lives"
    clock.now = MONDAY + dt.timedelta(minutes=11)
    expired = concierge(restaurants, CODE.search(read_outbox(tmp_path)[0]["text"]).group(1), "guest-1")
    assert expired["ask_user"].startswith("That code has expired.")
    freed = concierge(restaurants, TABLE.format(phone="9830012345"), "user_ind003", member=True)
    assert freed["reservation"]["time"] == "13:00", "the lapsed hold gave its table back"


def test_the_same_instruction_twice_is_one_reservation(restaurants, tmp_path):
    first = concierge(restaurants, SEED, "user_ind001", member=True)
    again = concierge(restaurants, SEED, "user_ind001", member=True)
    assert again == first
    assert rows(tmp_path, "SELECT id FROM reservations") == [(first["reservation"]["reservation_id"],)]
    assert [m["kind"] for m in read_outbox(tmp_path)] == ["whatsapp"]


def test_a_guests_instruction_retried_while_the_code_is_awaited_holds_one_table_and_sends_one_code(restaurants, tmp_path):
    instruction = TABLE.format(phone="9820012345")
    concierge(restaurants, instruction, "guest-1")
    retried = concierge(restaurants, instruction, "guest-1")
    assert retried == {"ask_user": "Please type the 6-digit code we sent you."}
    done = concierge(restaurants, CODE.search(read_outbox(tmp_path)[-1]["text"]).group(1), "guest-1")
    assert concierge(restaurants, instruction, "guest-1") == done, "after it is booked: the same booking"
    assert rows(tmp_path, "SELECT id FROM reservations") == [(done["reservation"]["reservation_id"],)]
    assert [m["kind"] for m in read_outbox(tmp_path)] == ["otp", "sms"]


def test_the_same_words_another_day_are_another_request(restaurants, tmp_path):
    """ "on Wednesday" said the next week is another Wednesday: no answer replayed."""
    first = concierge(restaurants, TABLE.format(phone="9845012345"), "user_ind002", member=True)
    restaurants.extensions["concierge"].clock.now = MONDAY + dt.timedelta(days=7)
    later = concierge(restaurants, TABLE.format(phone="9845012345"), "user_ind002", member=True)
    assert (first["reservation"]["date"], later["reservation"]["date"]) == ("2026-11-25", "2026-12-02")


def test_an_idempotency_key_gets_its_answer_again_and_is_kept_for_its_instruction(restaurants, tmp_path):
    first = concierge(restaurants, SEED, "user_ind001", member=True, **{"Idempotency-Key": "k-1"})
    other = concierge(restaurants, TABLE.format(phone="9820012345"), "user_ind001", member=True, **{"Idempotency-Key": "k-2"})
    again = concierge(restaurants, SEED, "user_ind001", member=True, **{"Idempotency-Key": "k-1"})
    assert again == first, "the stored answer, though another request came between"
    assert sorted(rows(tmp_path, "SELECT id FROM reservations")) == sorted(
        [(first["reservation"]["reservation_id"],), (other["reservation"]["reservation_id"],)]
    )
    client = restaurants.test_client()
    reused = client.post(
        "/assistant",
        json={"user_id": "user_ind001", "instruction": "Book a table for 2 in Colaba tomorrow at 9 pm"},
        headers={**signed_in("user_ind001"), "Idempotency-Key": "k-1"},
    )
    assert reused.status_code == 422 and reused.get_json()["error"] == "idempotency_key_reused"
    as_guest = concierge(restaurants, SEED, "user_ind001", **{"Idempotency-Key": "k-1"})
    assert as_guest != first, "a key is kept for its caller only"
    bad = client.post("/assistant", json={"user_id": "u", "instruction": "hi"}, headers={"Idempotency-Key": "k\u00e9y"})
    assert bad.status_code == 400 and bad.get_json()["error"] == "bad_idempotency_key"
