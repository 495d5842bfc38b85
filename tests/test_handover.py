"""People take conversations over: every trigger in every pack, the assistant silent while a
person has one, operators racing for it, the panic switch, and what nobody could answer grouped
by meaning; all through the real app, its SQLite stores and its embedding model."""

from __future__ import annotations

import datetime as dt
import json
import threading
import uuid
from zoneinfo import ZoneInfo

import pytest
from conftest import OPERATOR_KEY, Clock, Conversation, app_for, signed_in

from assistant.pack.translations import figures

ASHA_KEY, RAVI_KEY = "asha-key-0123456789-0123456789abcdef", "ravi-key-0123456789-0123456789abcdef"
ASHA, RAVI = {"X-API-Key": ASHA_KEY}, {"X-API-Key": RAVI_KEY}
DHAKA = ZoneInfo("Asia/Dhaka")
OPEN = dt.datetime(2026, 11, 23, 11, 0, tzinfo=DHAKA)  # a Monday morning: the bank's chat team answers


@pytest.fixture
def app(tmp_path):
    app = app_for(tmp_path, "bank", operator_api_keys=[OPERATOR_KEY, f"asha:{ASHA_KEY}", f"ravi:{RAVI_KEY}"])
    pipeline = app.extensions["pipeline"]
    pipeline.desk.clock = pipeline.people.clock = Clock(OPEN)
    return app


def queue(client) -> list[dict]:
    response = client.get("/console/api/queue", headers=ASHA)
    assert response.status_code == 200
    return response.get_json()["conversations"]


@pytest.mark.parametrize(
    "domain, message",
    [
        ("bank", "I want to talk to someone"),
        ("bank", "can I speak with a real person please"),
        ("bank", "agent please"),
        ("bank", "I need a human"),
        ("bank", "amar ekjon manusher sathe kotha bola dorkar"),
        ("bank", "ekjon agent dorkar"),
        ("bank", "kono manusher sathe kotha bolte chai"),
        ("bank", "আমি একজন মানুষের সাথে কথা বলতে চাই"),
        ("cars", "mujhe kisi insaan se baat karni hai"),
        ("cars", "मुझे किसी इंसान से बात करनी है"),
        ("cars", "mujhe ek agent chahiye"),
        ("restaurants", "connect me to customer service"),
        ("store", "ขอคุยกับพนักงานหน่อย"),
        ("store", "ช่วยโอนสายให้หน่อย"),
        ("homologation", "prefiero hablar con alguien de la oficina"),
        ("homologation", "necesito un humano"),
        ("homologation", "¿me pasas con alguien de la oficina?"),
    ],
)
def test_asking_for_a_person_hands_over_in_every_pack_and_says_what_happens_next(tmp_path, domain, message):
    client = app_for(tmp_path, domain).test_client()
    chat = Conversation(client)
    data = chat.say(message)
    assert data["handled_by"] == "human" and data["help"]["handover"] is True
    assert data["intent"] == {"type": "handover", "filters": {}, "reason": "asked"}
    assert data["agents"] == ["formatter"] and data["products"] == []
    catalog = client.application.extensions["pipeline"].catalog
    rules = catalog.pack.handover
    phone = figures(rules.phone or catalog.business.support_contact)  # the number, in whatever language the reply words it
    waits, calls = str(rules.wait_minutes) in data["reply"], all(part in data["reply"] for part in phone)
    assert waits or calls, "the wait, or when people answer and whom to call"
    (waiting,) = client.get("/console/api/queue", headers={"X-API-Key": OPERATOR_KEY}).get_json()["conversations"]
    assert waiting["session_id"] == chat.session_id and waiting["reason"] == "asked" and waiting["pack"] == domain


@pytest.mark.parametrize(
    "domain, message",
    [
        ("bank", "the agent at the branch was rude about my fee"),
        ("bank", "I need a card for a person who travels a lot"),
        ("bank", "can someone else use my card abroad"),
        ("bank", "amar ekta credit card lagbe"),
        ("cars", "mujhe ek SUV chahiye 7 seater"),
        ("restaurants", "table for two persons tonight"),
    ],
)
def test_words_about_people_are_no_request_for_one(tmp_path, domain, message):
    assert Conversation(app_for(tmp_path, domain).test_client()).say(message)["handled_by"] == "assistant"


def test_outside_opening_hours_the_customer_is_told_when_people_answer_and_whom_to_call(app, client, chat):
    app.extensions["pipeline"].people.clock = Clock(dt.datetime(2026, 11, 27, 23, 0, tzinfo=DHAKA))  # a Friday night
    reply = chat.say("talk to a human")["reply"]
    assert "Sunday-Thursday 09:00-20:00, Saturday 10:00-16:00" in reply
    assert "from Saturday 10:00" in reply and "16639" in reply


def test_two_misunderstandings_in_a_row_hand_over_and_one_does_not(client, chat):
    first = chat.say("blorf the zanzibar quantum")
    assert first["handled_by"] == "assistant"
    assert chat.say("show me gold credit cards")["handled_by"] == "assistant"  # understood: the count starts again
    assert chat.say("frobnicate my wibble please")["handled_by"] == "assistant"
    second = chat.say("glorp zindle vex")
    assert second["handled_by"] == "human" and "I'm passing you to a person" in second["reply"]
    assert [c["reason"] for c in queue(client)] == ["not_understood"]


def test_a_fraud_report_answers_then_goes_to_people(client, chat):
    data = chat.say("I believe someone stole my card details and used them")
    assert data["help"]["article"] == "fraud-suspected" and "16639" in data["reply"]
    assert data["handled_by"] == "human" and data["reply"].endswith("Everything we've done so far stays as it is.")
    assert [c["reason"] for c in queue(client)] == ["article"]


def test_a_booking_no_hour_can_take_goes_to_people(app, client, chat):
    bookings = app.extensions["pipeline"].desk.bookings
    capacity = app.extensions["pipeline"].catalog.pack.flows["booking"].slot("channel").options["call"].capacity
    hour = OPEN.replace(minute=0)
    for n in range(16 * 24):  # every hour of the days ahead, taken by other customers' call-backs
        for seat in range(capacity):
            bookings.claim(f"other-{n}-{seat}", "channel=call", f"{hour + dt.timedelta(hours=n):%Y-%m-%dT%H}", capacity)
    data = chat.say(
        "book me a call tomorrow at 5 pm about the Visa Platinum Business Credit Card, my name is Rahim Uddin, 01712345678"
    )
    assert "fully booked, and so is every time" in data["reply"]
    assert data["handled_by"] == "human" and [c["reason"] for c in queue(client)] == ["unplaced"]


def test_while_a_person_has_it_the_assistant_is_silent_and_then_resumes_with_its_state(client, chat, searches):
    listed = chat.say("show me gold credit cards")
    chat.say("I'd like to talk to a person")
    assert client.post(f"/console/api/conversations/{chat.session_id}/take", headers=ASHA).status_code == 200
    hello = client.post(f"/console/api/conversations/{chat.session_id}/reply", headers=ASHA, json={"text": "Hi, Asha here."})
    assert hello.status_code == 200
    searched = len(searches)
    silent = client.post("/chat", json={"query": "what's the fee of the second one?", "session_id": chat.session_id}).get_json()
    assert silent["reply"] == "" and silent["agents"] == [] and silent["handled_by"] == "human"
    assert len(searches) == searched, "no agent ran"
    polled = client.get(f"/sessions/{chat.session_id}/messages", query_string={"after": hello.get_json()["message"]["at"] - 0.001})
    assert polled.get_json()["handled_by"] == "human" and polled.get_json()["operator"] == "asha"
    assert [(m["role"], m["text"]) for m in polled.get_json()["messages"]] == [
        ("operator", "Hi, Asha here."),
        ("user", "what's the fee of the second one?"),
    ]
    released = client.post(f"/console/api/conversations/{chat.session_id}/release", headers=ASHA, json={"note": "told the fee"})
    assert released.status_code == 200 and queue(client) == []
    back = chat.say("what's the annual fee of the second one?")
    second = listed["products"][1]
    assert back["handled_by"] == "assistant" and [p["id"] for p in back["products"]] == [second["id"]]
    assert client.get(f"/sessions/{chat.session_id}/messages").get_json()["handled_by"] == "assistant"


def test_while_waiting_each_message_is_acknowledged_and_kept_for_the_person(client, chat):
    chat.say("talk to a human")
    data = chat.say("it's about my credit limit")
    assert data["reply"] == "Your message is with our team: a person will answer here soon." and data["handled_by"] == "human"
    view = client.get(f"/console/api/conversations/{chat.session_id}", headers=ASHA).get_json()
    assert view["transcript"][-2]["text"] == "it's about my credit limit" and view["handover"]["status"] == "waiting"


def test_two_operators_racing_for_a_conversation_one_gets_it_the_other_is_told_who(client, chat):
    chat.say("I want to speak to someone")
    results: dict[str, object] = {}
    start = threading.Barrier(2)

    def take(name: str, headers: dict[str, str]) -> None:
        start.wait()
        response = client.post(f"/console/api/conversations/{chat.session_id}/take", headers=headers)
        results[name] = (response.status_code, response.get_json())

    racers = [threading.Thread(target=take, args=(name, h)) for name, h in (("asha", ASHA), ("ravi", RAVI))]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    statuses = sorted(status for status, _ in results.values())  # type: ignore[misc]
    assert statuses == [200, 409]
    winner = next(name for name, (status, _) in results.items() if status == 200)  # type: ignore[misc]
    loser = next(body for status, body in results.values() if status == 409)  # type: ignore[misc]
    assert loser["operator"] == winner and loser["message"] == f"{winner} has this conversation."
    other = RAVI if winner == "asha" else ASHA
    assert (
        client.post(f"/console/api/conversations/{chat.session_id}/reply", headers=other, json={"text": "me too"}).status_code
        == 409
    )
    assert client.post(f"/console/api/conversations/{chat.session_id}/release", headers=other).status_code == 409


def test_the_panic_switch_sends_every_new_message_to_people_until_it_is_off(client):
    assert client.post("/console/api/panic", json={"on": True}, headers=signed_in("cust-1")).status_code == 403
    on = client.post("/console/api/panic", json={"on": True}, headers=ASHA).get_json()
    assert on["on"] is True and on["by"] == "asha"
    held = Conversation(client).say("show me gold credit cards")
    assert held["handled_by"] == "human" and held["products"] == [] and held["intent"]["reason"] == "panic"
    off = client.post("/console/api/panic", json={"on": False}, headers=RAVI).get_json()
    assert off["on"] is False and [(e["on"], e["by"]) for e in off["log"]] == [(False, "ravi"), (True, "asha")]
    fresh = Conversation(client).say("show me gold credit cards")
    assert fresh["handled_by"] == "assistant" and fresh["products"]
    assert [c["reason"] for c in queue(client)] == ["panic"], "who wrote during the panic still waits for a person"


def test_the_console_is_for_operators_only(client, chat):
    chat.say("talk to a person")
    assert client.get("/console/api/queue").status_code == 401
    assert client.get("/console/api/queue", headers=signed_in("cust-1")).status_code == 403
    assert client.get("/console/api/queue", headers={"X-API-Key": "guess"}).status_code == 401
    assert client.get("/console/api/whoami", headers=ASHA).get_json() == {"operator": "asha"}
    assert client.get("/console").status_code == 200  # the page itself holds no data
    bad = client.post(f"/console/api/conversations/{chat.session_id}/reply", headers=ASHA, json={"text": " "})
    assert bad.status_code == 400
    assert client.post("/console/api/conversations/not-a-uuid/take", headers=ASHA).status_code == 400
    assert client.post(f"/console/api/conversations/{uuid.uuid4()}/take", headers=ASHA).status_code == 404


@pytest.mark.parametrize("text", ["hi \ud800", "\udfff", "hi\x00 there", "\x1b[31mred", "one\x85next"])
def test_a_lone_surrogate_or_a_control_character_in_an_operators_words_is_refused(client, chat, text):
    chat.say("talk to a person")
    path = f"/console/api/conversations/{chat.session_id}"
    assert client.post(f"{path}/take", headers=ASHA).status_code == 200
    for action, field in (("reply", "text"), ("release", "note")):
        raw = json.dumps({field: text})  # a lone surrogate travels as a \u escape, as a client's JSON carries it
        refused = client.post(f"{path}/{action}", data=raw, content_type="application/json", headers=ASHA)
        assert refused.status_code == 400 and refused.get_json()["error"] == "invalid_request", refused.get_data(as_text=True)
    view = client.get(path, headers=ASHA).get_json()
    assert view["handover"]["operator"] == "asha" and all(t["role"] != "operator" for t in view["transcript"])
    line_breaks = client.post(f"{path}/reply", headers=ASHA, json={"text": "Two lines:\n\tfirst, then second."})
    assert line_breaks.status_code == 200


def test_an_operators_name_from_a_token_shows_no_hidden_characters(client):
    disguised = signed_in("asha\u202e\u200bnimda\x00", role="operator")
    assert client.get("/console/api/whoami", headers=disguised).get_json() == {"operator": "ashanimda"}
    assert client.get("/console/api/whoami", headers=signed_in("\u202e\u200b", role="operator")).status_code == 401


def test_what_nobody_could_answer_is_grouped_by_meaning_masked_and_exported(app, client):
    desk = app.extensions["pipeline"].people
    for question in [
        "can I open a savings account with you",
        "how do I open a savings account",
        "I'd like to start a savings account, what do I need",
        "do you give home loans",
        "can I get a mortgage to buy a house",
        "my number is 01712345678 and my mail is rafiq@example.com, call me about a car loan",
    ]:
        desk.note_unanswered(question, "not_understood")
    groups = client.get("/console/api/unanswered", headers=ASHA).get_json()["groups"]
    assert [g["count"] for g in groups] == [3, 2, 1]
    assert "savings account" in groups[0]["example"] and groups[0]["reasons"] == {"not_understood": 3}
    assert any(word in groups[1]["example"] for word in ("home loans", "mortgage"))
    assert groups[2]["example"] == "my number is *********78 and my mail is ***@***, call me about a car loan"
    exported = client.get("/console/api/unanswered.csv", headers=ASHA)
    assert exported.mimetype == "text/csv" and "01712345678" not in exported.get_data(as_text=True)
    assert exported.get_data(as_text=True).splitlines()[0] == '"count","example","reasons","last_asked"'


def test_the_metrics_count_the_queue_the_reasons_and_the_conversations_people_handled(client, chat):
    chat.say("talk to a person")
    client.post(f"/console/api/conversations/{chat.session_id}/take", headers=ASHA)
    Conversation(client).say("agent please")
    text = client.get("/metrics").get_data(as_text=True)
    assert 'assistant_handover_queue{status="waiting"} 1.0' in text and 'assistant_handover_queue{status="taken"} 1.0' in text
    assert 'assistant_handovers_total{reason="asked"} 2.0' in text and "assistant_handled_by_people_total 1.0" in text
    assert "assistant_handover_wait_seconds" in text
