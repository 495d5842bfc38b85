"""One waiting hand-over per client: thirty new sessions from one address, or one signed-in
customer's many sessions, asking for a person put one conversation in the operators' queue; the
others are told a person already has their request and their place in the queue. Through the real
app and its SQLite queue."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from conftest import OPERATOR_KEY, Clock, Conversation, app_for, signed_in

OPEN = dt.datetime(2026, 11, 23, 11, 0, tzinfo=ZoneInfo("Asia/Dhaka"))  # the bank's chat team answers


def client_at(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def waiting(app) -> list[dict]:
    response = app.test_client().get("/console/api/queue", headers={"X-API-Key": OPERATOR_KEY.split(":")[-1]})
    assert response.status_code == 200
    return response.get_json()["conversations"]


def bank(tmp_path):
    app = app_for(tmp_path, "bank")
    app.extensions["pipeline"].people.clock = Clock(OPEN)
    return app


def test_thirty_sessions_from_one_address_put_one_conversation_in_the_queue(tmp_path):
    app = bank(tmp_path)
    first = Conversation(client_at(app, "203.0.113.9")).say("I want to talk to someone")
    assert first["handled_by"] == "human"
    others = [Conversation(client_at(app, "203.0.113.9")).say("I want to talk to someone") for _ in range(29)]
    assert [c["session_id"] for c in waiting(app)] == [first["session_id"]]
    for reply in others:
        assert "A person already has your request from another conversation" in reply["reply"]
        assert "number 1 in the queue" in reply["reply"] and reply["handled_by"] == "assistant"
    someone_else = Conversation(client_at(app, "198.51.100.7")).say("I want to talk to someone")
    assert someone_else["handled_by"] == "human" and len(waiting(app)) == 2, "another address waits too"


def test_a_signed_in_customer_waits_once_from_any_address(tmp_path):
    app = bank(tmp_path)
    for n, address in enumerate(["203.0.113.9", "198.51.100.7", "192.0.2.44"]):
        client = client_at(app, address)
        body = {"query": "agent please", "session_id": f"00000000-0000-4000-8000-00000000000{n}"}
        reply = client.post("/chat", json=body, headers=signed_in("cust-7")).get_json()
        assert ("already has your request" in reply["reply"]) is (n > 0)
    assert len(waiting(app)) == 1


def test_once_a_person_takes_it_the_client_may_wait_again(tmp_path):
    app = bank(tmp_path)
    first = Conversation(client_at(app, "203.0.113.9")).say("agent please")
    key = {"X-API-Key": OPERATOR_KEY.split(":")[-1]}
    assert app.test_client().post(f"/console/api/conversations/{first['session_id']}/take", headers=key).status_code == 200
    second = Conversation(client_at(app, "203.0.113.9")).say("agent please")
    assert second["handled_by"] == "human" and len(waiting(app)) == 2
