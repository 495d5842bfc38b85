"""Store faults answer 503 with Retry-After and JSON, never a 500, and change nothing: a SQLite
database write-locked past the busy timeout (the sessions' or the bookings') and Redis down.
/ready reports them; the stream ends with an error event of the same code."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import Clock, Conversation, app_for
from servers import new_database, start_postgres, start_redis

from assistant.infra import migrations
from assistant.web.errors import store_unavailable

UNAVAILABLE = "store_unavailable"


@contextlib.contextmanager
def write_locked(path: Path) -> Iterator[None]:
    """Another process's writer holding the database's write lock, as a stuck worker would."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        db.execute("ROLLBACK")
        db.close()


def assert_unavailable(response) -> None:
    assert response.status_code == 503 and int(response.headers["Retry-After"]) > 0
    body = response.get_json()
    assert body["error"] == UNAVAILABLE and body["message"] and set(body) == {"error", "message"}


def last_event(response) -> tuple[str, dict]:
    kind, data = response.get_data(as_text=True).strip().split("\n\n")[-1].split("\n", 1)
    return kind.removeprefix("event: "), json.loads(data.removeprefix("data: "))


@pytest.fixture
def app(tmp_path):
    """Waits 0.2 s for a lock; no rate limits, so the turn itself meets the locked database. SQLite's
    write lock holds the whole file: these tests are about that file, whatever TEST_DATABASE says."""
    bookings = f"sqlite:///{tmp_path / 'bookings.sqlite3'}"
    return app_for(tmp_path, sqlite_busy_timeout_s=0.2, client_rate_per_min=0, session_rate_per_min=0, database_url=bookings)


def test_a_write_locked_sessions_database_answers_503_and_changes_nothing(app, client, pipeline):
    chat = Conversation(client)
    chat.say("I want a platinum credit card")
    before = pipeline.store.load(chat.session_id)
    body = {"query": "compare them", "session_id": chat.session_id}
    with write_locked(pipeline.store.path):
        assert_unavailable(client.post("/chat", json=body))
        assert last_event(client.post("/chat/stream", json=body))[1]["error"] == UNAVAILABLE
    assert pipeline.store.load(chat.session_id) == before
    assert chat.say("compare them")["state"]["version"] == 2  # the lock gone, the same message goes through


def test_a_write_locked_rate_window_answers_503_too(tmp_path):
    app = app_for(tmp_path, sqlite_busy_timeout_s=0.2)
    with write_locked(tmp_path / "sessions.sqlite3"):
        assert_unavailable(app.test_client().post("/chat", json={"query": "hello", "session_id": str(uuid.uuid4())}))


def test_a_write_locked_bookings_database_answers_503_mid_booking(app, client, pipeline, tmp_path):
    pipeline.desk.clock = Clock(dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Dhaka")))
    chat = Conversation(client, "business_owner")
    for message in (
        "I want a platinum conventional credit card for business",
        "I'd like to apply for the Mastercard one",
        "a call-back tomorrow at 5 pm please",
        "Rahim Uddin",
    ):
        chat.say(message)
    before = pipeline.store.load(chat.session_id)
    body = {"query": "01712345678", "session_id": chat.session_id, "user_employment": "business_owner"}
    with write_locked(tmp_path / "bookings.sqlite3"):
        assert_unavailable(client.post("/chat", json=body))
    assert pipeline.store.load(chat.session_id) == before
    assert "code" in chat.say("01712345678")["ask_user"]


@pytest.mark.parametrize("database", ["sessions.sqlite3", "bookings.sqlite3"])
def test_ready_reports_a_write_locked_database(client, tmp_path, database):
    assert client.get("/ready").status_code == 200
    with write_locked(tmp_path / database):
        response = client.get("/ready")
    assert response.status_code == 503 and response.headers["Retry-After"]
    assert response.get_json()["checks"] == {"store": False, "index": True}
    assert client.get("/ready").status_code == 200


def test_postgresql_down_answers_503_and_changes_nothing(tmp_path):
    """The durable database unreachable mid-booking: 503 with Retry-After, /ready says so, and the
    same message goes through once it is back."""
    server = start_postgres()
    try:
        url = new_database(server.url, "bookings")
        migrations.upgrade(url)
        app = app_for(tmp_path, database_url=url, sqlite_busy_timeout_s=1, client_rate_per_min=0, session_rate_per_min=0)
        app.extensions["pipeline"].desk.clock = Clock(dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Dhaka")))
        client = app.test_client()
        chat = Conversation(client, "business_owner")
        for message in ("I want a platinum conventional credit card for business", "I'd like to apply for the Mastercard one"):
            chat.say(message)
        chat.say("a call-back tomorrow at 5 pm please")
        chat.say("Rahim Uddin")
        before = app.extensions["pipeline"].store.load(chat.session_id)
        server.process.terminate()
        server.process.wait()
        body = {"query": "01712345678", "session_id": chat.session_id, "user_employment": "business_owner"}
        assert_unavailable(client.post("/chat", json=body))
        assert client.get("/ready").get_json()["checks"]["store"] is False
        assert app.extensions["pipeline"].store.load(chat.session_id) == before
    finally:
        server.stop()


def test_redis_down_answers_503(tmp_path):
    server = start_redis()
    try:
        client = app_for(tmp_path, session_store=server.url, client_rate_per_min=0, session_rate_per_min=0).test_client()
        chat = Conversation(client)
        chat.say("hello")
    finally:
        server.stop()
    body = {"query": "I want a gold credit card", "session_id": chat.session_id}
    assert_unavailable(client.post("/chat", json=body))
    assert last_event(client.post("/chat/stream", json=body))[1]["error"] == UNAVAILABLE
    ready = client.get("/ready")
    assert ready.status_code == 503 and ready.get_json()["checks"]["store"] is False


def test_only_a_locked_database_or_an_unreachable_redis_is_a_store_fault(tmp_path):
    db = sqlite3.connect(tmp_path / "x.sqlite3", timeout=0, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError) as missing:
        db.execute("SELECT * FROM nowhere")
    assert not store_unavailable(missing.value), "a bug of ours stays a 500"
    with write_locked(tmp_path / "x.sqlite3"), pytest.raises(sqlite3.OperationalError) as locked:
        db.execute("BEGIN IMMEDIATE")
    assert store_unavailable(locked.value)
