"""Nobody pumps SMS or fills the tables: the cap per phone number stops one number, so codes are
also counted per client address (as the rate limiter sees it) and per session or concierge user,
tables held unconfirmed per client, and unconfirmed guests may hold only a share of a time's
tables; over a cap POST /assistant answers 429 with Retry-After and the chat says, politely, to try
later or call, and no code goes out. All through the real app, its SQLite counters and its outbox
(the SMS gateway is the one thing not run)."""

from __future__ import annotations

import datetime as dt
import json
import re
from zoneinfo import ZoneInfo

import pytest
from conftest import Clock, Conversation, app_for, durable, signed_in

KOLKATA, DHAKA = ZoneInfo("Asia/Kolkata"), ZoneInfo("Asia/Dhaka")
MONDAY = dt.datetime(2026, 11, 23, 10, 0, tzinfo=KOLKATA)
TABLE = "Book a table for two at Konkan Tiffin House on Wednesday at 1 pm, my name is Meera Joshi, {phone}."
BOOK_A_CALL = "book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card, my name is Rahim Uddin, {phone}"
CODE = re.compile(r"\b(\d{6})\b")


def codes_sent(tmp_path) -> list[str]:
    path = tmp_path / "outbox.jsonl"
    sent = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [m["to"] for m in sent if m["kind"] == "otp"]


def held(tmp_path) -> int:
    return int(durable(tmp_path).rows("SELECT COUNT(*) FROM held_until")[0][0])


@pytest.fixture
def restaurants(tmp_path):
    app = app_for(tmp_path, "restaurants")
    app.extensions["concierge"].clock = Clock(MONDAY)
    return app


@pytest.fixture
def bank(tmp_path):
    app = app_for(tmp_path, "bank")
    app.extensions["pipeline"].desk.clock = Clock(dt.datetime(2026, 11, 23, 9, 30, tzinfo=DHAKA))
    return app


def client_at(app, address: str):
    """A test client whose requests come from `address`."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def post(app, user_id: str, instruction: str, address: str, headers: dict | None = None):
    return app.test_client().post(
        "/assistant",
        json={"user_id": user_id, "instruction": instruction},
        headers=headers or {},
        environ_base={"REMOTE_ADDR": address},
    )


def test_one_client_holds_three_tables_for_new_guests_then_gets_429_and_no_code(restaurants, tmp_path):
    answers = [post(restaurants, f"guest-{n}", TABLE.format(phone=f"98200{n:05d}"), "203.0.113.9") for n in range(10)]
    assert [a.status_code for a in answers] == [200] * 3 + [429] * 7
    assert all("We've sent a 6-digit code" in a.get_json()["ask_user"] for a in answers[:3])
    refused = answers[3]
    assert refused.get_json()["error"] == "too_many_holds" and 1 <= int(refused.headers["Retry-After"]) <= 600
    assert "Please try again in about" in refused.get_json()["message"]
    assert "+91 80 4000 1234" in refused.get_json()["message"], "the pack's support line"
    assert len(codes_sent(tmp_path)) == 3 and held(tmp_path) == 3, "no code and no table past the cap"
    other = post(restaurants, "guest-other", TABLE.format(phone="9845099999"), "198.51.100.7")
    assert other.status_code == 200 and "6-digit code" in other.get_json()["ask_user"], "another client has its own"


def test_a_client_behind_the_proxy_is_counted_by_its_own_address(tmp_path):
    app = app_for(tmp_path, "restaurants", proxy_count=1, forwarded_allow_ips="10.0.0.1")
    app.extensions["concierge"].clock = Clock(MONDAY)
    for n in range(3):
        assert (
            post(app, f"a-{n}", TABLE.format(phone=f"98200{n:05d}"), "10.0.0.1", {"X-Forwarded-For": "203.0.113.9"}).status_code
            == 200
        )
    capped = post(app, "a-3", TABLE.format(phone="9820000003"), "10.0.0.1", {"X-Forwarded-For": "203.0.113.9"})
    assert capped.status_code == 429
    other = post(app, "b-0", TABLE.format(phone="9820000004"), "10.0.0.1", {"X-Forwarded-For": "198.51.100.7"})
    assert other.status_code == 200, "another customer behind the same proxy"


def test_guests_who_never_confirm_hold_only_half_a_times_tables(restaurants, tmp_path):
    """Fourteen guests from fourteen addresses (so no cap per client helps) ask for every table at
    13:00; a member who asks then still gets 13:00."""
    tables = restaurants.extensions["pipeline"].catalog.product("res_10002").value("tables")
    for n in range(tables):
        asked = post(restaurants, f"guest-{n}", TABLE.format(phone=f"98200{n:05d}"), f"203.0.113.{n + 1}")
        assert asked.status_code == 200 and "6-digit code" in asked.get_json()["ask_user"]
    member = post(restaurants, "user_ind002", TABLE.format(phone="9845012345"), "198.51.100.7", signed_in("user_ind002"))
    assert member.get_json()["reservation"]["time"] == "13:00", "the guests' holds left it a table"


def test_one_concierge_user_changing_number_gets_four_codes_then_429(restaurants, tmp_path):
    assert post(restaurants, "guest-1", TABLE.format(phone="9820000000"), "203.0.113.9").status_code == 200
    answers = [post(restaurants, "guest-1", f"sorry, my number is 98450{n:05d}", "203.0.113.9") for n in range(5)]
    assert [a.status_code for a in answers] == [200] * 3 + [429] * 2
    assert answers[3].get_json()["error"] == "too_many_codes" and "Retry-After" in answers[3].headers
    assert len(codes_sent(tmp_path)) == 4


def test_one_client_asking_codes_for_many_numbers_in_chat_stops_at_ten(bank, tmp_path):
    client = client_at(bank, "203.0.113.9")
    replies = [Conversation(client).say(BOOK_A_CALL.format(phone=f"01712{n:06d}")) for n in range(12)]
    assert len(codes_sent(tmp_path)) == 10 and len(set(codes_sent(tmp_path))) == 10
    for reply in replies[10:]:
        assert "so no code went out. Please try again in about" in reply["reply"] and "16639" in reply["reply"]
        assert reply["state"]["active_goal"]["slots"]["code_sent"] is False
    other = Conversation(client_at(bank, "198.51.100.7"))
    assert "We've sent a 6-digit code" in other.say(BOOK_A_CALL.format(phone="01812345678"))["reply"]


def test_one_chat_session_changing_number_gets_four_codes(bank, tmp_path):
    chat = Conversation(client_at(bank, "203.0.113.9"))
    chat.say(BOOK_A_CALL.format(phone="01712000000"))
    replies = [chat.say(f"sorry, my number is 01812{n:06d}") for n in range(4)]
    assert len(codes_sent(tmp_path)) == 4
    assert "so no code went out. Please try again in about" in replies[-1]["reply"]
