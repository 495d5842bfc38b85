"""Rate limits per client and per session: 429 with Retry-After, and nothing changes."""

from __future__ import annotations

import uuid

import pytest

from app import create_app
from assistant.web import ratelimit


@pytest.fixture(autouse=True)
def long_windows(monkeypatch):
    """A day-long window, so no test's few requests straddle a window boundary."""
    monkeypatch.setattr(ratelimit, "WINDOW_S", 86_400)


def make(tmp_path, **limits):
    return create_app({"session_db": tmp_path / "s.sqlite3", "reminder_poll_s": 0, **limits}).test_client()


def test_a_client_over_its_limit_gets_429_and_changes_nothing(tmp_path):
    client = make(tmp_path, client_rate_per_min=3, session_rate_per_min=0)
    session = str(uuid.uuid4())
    for _ in range(3):
        assert client.post("/chat", json={"query": "hello", "session_id": session}).status_code == 200
    refused = client.post("/chat", json={"query": "hello", "session_id": session})
    assert refused.status_code == 429 and refused.get_json()["error"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 86_400
    assert client.get(f"/sessions/{session}").get_json()["state"]["version"] == 3
    other_address = client.post("/chat", json={"query": "hello"}, environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert other_address.status_code == 200
    assert client.post("/chat/stream", json={"query": "hello"}).status_code == 429


def test_a_session_over_its_limit_gets_429_while_others_go_on(tmp_path):
    client = make(tmp_path, client_rate_per_min=0, session_rate_per_min=2)
    busy, other = str(uuid.uuid4()), str(uuid.uuid4())
    assert [client.post("/chat", json={"query": "hi", "session_id": busy}).status_code for _ in range(3)] == [200, 200, 429]
    assert client.post("/chat", json={"query": "hi", "session_id": other}).status_code == 200


def test_behind_a_proxy_the_forwarded_address_is_the_client(tmp_path):
    client = make(tmp_path, client_rate_per_min=1, session_rate_per_min=0, proxy_count=1, forwarded_allow_ips="127.0.0.1")
    first = client.post("/chat", json={"query": "hi"}, headers={"X-Forwarded-For": "203.0.113.5"})
    second = client.post("/chat", json={"query": "hi"}, headers={"X-Forwarded-For": "203.0.113.9"})
    again = client.post("/chat", json={"query": "hi"}, headers={"X-Forwarded-For": "203.0.113.5"})
    assert (first.status_code, second.status_code, again.status_code) == (200, 200, 429)
