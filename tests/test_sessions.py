"""Sessions: isolated under concurrency, no lost updates, kept across a restart; a retried
message is answered once, and a killed worker's lock does not hold up the next turn."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from app import create_app
from assistant.dialogue import sessions as store_module
from assistant.dialogue.sessions import SessionBusy, SQLiteLocks, SQLiteSessionStore, VersionConflict
from assistant.dialogue.state import SessionState
from assistant.dialogue.turns import ChatRequest

REQUESTS = [
    ("I want an islamic gold credit card", {"banking_type": "islami", "tier": "gold"}),
    ("show me conventional platinum credit cards", {"banking_type": "conventional", "tier": "platinum"}),
    ("I need a visa credit card for travel", {"network": "visa", "use_case": "travel"}),
    ("conventional gold credit card for shopping", {"banking_type": "conventional", "tier": "gold"}),
]


def test_concurrent_sessions_never_see_each_others_state(app):
    def converse(index: int) -> tuple[dict, dict, dict]:
        client = app.test_client()
        sid = str(uuid.uuid4())
        query, expected = REQUESTS[index % len(REQUESTS)]
        first = client.post("/chat", json={"query": query, "session_id": sid}).get_json()
        second = client.post("/chat", json={"query": "compare them", "session_id": sid}).get_json()
        return expected, first, second

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(converse, range(16)))

    catalog = app.extensions["pipeline"].catalog
    for expected, first, second in results:
        assert first["state"]["version"] == 1 and second["state"]["version"] == 2
        for name, value in expected.items():
            assert first["state"]["filters"][name] == value
        assert second["state"]["products"] == first["state"]["products"]
        assert second["agents"] == ["comparator", "formatter"]
        for pid in second["comparison"]["products"]:
            product = catalog.product(pid)
            assert all(getattr(product, k, None) == v for k, v in expected.items() if k != "use_case")


def test_concurrent_turns_of_one_session_lose_no_update(app, pipeline):
    sid = str(uuid.uuid4())
    turns = 12

    def say(i: int):
        client = app.test_client()
        return client.post("/chat", json={"query": f"hello {i}", "session_id": sid}).status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert set(pool.map(say, range(turns))) == {200}

    state = pipeline.store.load(sid)
    assert state.version == turns
    said = sorted(t.text for t in state.history if t.role == "user")
    assert said == sorted(f"hello {i}" for i in range(turns))


def test_conversation_continues_after_restart(tmp_path):
    db = tmp_path / "sessions.sqlite3"
    sid = str(uuid.uuid4())
    first_app = create_app({"session_db": db})
    first = first_app.test_client().post("/chat", json={"query": "I need a platinum credit card", "session_id": sid}).get_json()

    restarted = create_app({"session_db": db})
    data = restarted.test_client().post("/chat", json={"query": "compare them", "session_id": sid}).get_json()
    assert data["agents"] == ["comparator", "formatter"]
    assert data["comparison"]["products"] == first["state"]["products"]
    assert data["state"]["version"] == 2


def test_store_rejects_a_stale_write(tmp_path):
    store = SQLiteSessionStore(tmp_path / "s.sqlite3", 3600, 3600)
    state = SessionState(session_id="s1")
    store.save(state)
    copy_a, copy_b = store.load("s1"), store.load("s1")
    copy_a.filters = {"tier": "gold"}
    store.save(copy_a)
    copy_b.filters = {"tier": "platinum"}
    with pytest.raises(VersionConflict):
        store.save(copy_b)
    assert store.load("s1").filters == {"tier": "gold"}
    with pytest.raises(VersionConflict):
        store.save(SessionState(session_id="s1"))


def test_history_is_bounded(tmp_path):
    app = create_app({"session_db": tmp_path / "s.sqlite3", "history_limit": 6})
    client = app.test_client()
    sid = str(uuid.uuid4())
    for i in range(5):
        client.post("/chat", json={"query": f"hi {i}", "session_id": sid})
    state = app.extensions["pipeline"].store.load(sid)
    assert len(state.history) == 6
    assert state.history[-2].text == "hi 4"


def _user_turns(pipeline, session_id: str) -> list[str]:
    return [t.text for t in pipeline.store.load(session_id).history if t.role == "user"]


def test_a_retry_with_the_same_request_id_gets_the_stored_answer_not_a_second_turn(client, pipeline):
    sid = str(uuid.uuid4())
    body, retry = {"query": "I want a platinum credit card", "session_id": sid}, {"X-Request-ID": "msg-1"}
    first = client.post("/chat", json=body, headers=retry)
    again = client.post("/chat", json=body, headers=retry)
    assert first.status_code == again.status_code == 200
    assert again.get_json() == first.get_json() and first.get_json()["state"]["version"] == 1
    streamed = client.post("/chat/stream", json=body, headers=retry).get_data(as_text=True)
    final = json.loads(streamed.rsplit("event: final\ndata: ", 1)[1])
    assert final == first.get_json()
    assert _user_turns(pipeline, sid) == ["I want a platinum credit card"]

    client.post("/chat", json=body)  # no id of the client's own: a new message each time
    client.post("/chat", json=body)
    assert len(_user_turns(pipeline, sid)) == 3


def test_a_request_id_sent_again_with_another_message_is_refused_not_answered_with_the_first(client, pipeline):
    sid, retry = str(uuid.uuid4()), {"X-Request-ID": "msg-1"}
    first = client.post("/chat", json={"query": "I want a platinum credit card", "session_id": sid}, headers=retry)
    other = {"query": "what are the fees?", "session_id": sid}
    reused = client.post("/chat", json=other, headers=retry)
    assert reused.status_code == 422 and reused.get_json()["error"] == "idempotency_key_reused"
    streamed = client.post("/chat/stream", json=other, headers=retry).get_data(as_text=True)
    assert "event: error" in streamed and "idempotency_key_reused" in streamed
    again = client.post("/chat", json={"query": "I want a platinum credit card", "session_id": sid}, headers=retry)
    assert again.get_json() == first.get_json(), "the same message is a retry: its answer again"
    assert _user_turns(pipeline, sid) == ["I want a platinum credit card"]


def test_an_answer_lost_on_the_way_is_given_to_the_retry(app, client, pipeline):
    sid = str(uuid.uuid4())
    with app.app_context():  # the turn is saved, then its worker dies before answering
        lost = pipeline.run(ChatRequest(query="hello", session_id=sid), replay_key="msg-1")
    retried = client.post("/chat", json={"query": "hello", "session_id": sid}, headers={"X-Request-ID": "msg-1"})
    assert retried.get_json() == lost.model_dump() and retried.get_json()["state"]["version"] == 1
    assert _user_turns(pipeline, sid) == ["hello"]


def test_a_request_id_replays_only_within_its_session(client, pipeline):
    retry = {"X-Request-ID": "msg-1"}
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    client.post("/chat", json={"query": "hello", "session_id": first}, headers=retry)
    other = client.post("/chat", json={"query": "I want a gold credit card", "session_id": second}, headers=retry)
    assert other.get_json()["session_id"] == second and _user_turns(pipeline, second) == ["I want a gold credit card"]


def test_a_lock_left_by_a_killed_worker_does_not_hold_up_the_next_turn(client, pipeline):
    sid = str(uuid.uuid4())
    killed_at = time.time() - 4  # it renewed its lease, then was killed 4 s ago
    with sqlite3.connect(pipeline.store.path) as db:
        db.execute("INSERT INTO session_locks VALUES (?, ?, ?)", (sid, "dead-worker", killed_at + store_module.LOCK_LEASE_S))
    started = time.monotonic()
    response = client.post("/chat", json={"query": "hello", "session_id": sid})
    assert response.status_code == 200 and time.monotonic() - started < 3


def test_a_turn_longer_than_the_lease_keeps_its_lock(app, pipeline, monkeypatch):
    monkeypatch.setattr(store_module, "LOCK_LEASE_S", 0.3)
    monkeypatch.setattr(store_module, "LOCK_WAIT_S", 0.3)
    sid, running = str(uuid.uuid4()), threading.Event()
    answer = pipeline._turn

    def slow_turn(*args, **kwargs):
        running.set()
        time.sleep(1.2)  # four leases
        return answer(*args, **kwargs)

    monkeypatch.setattr(pipeline, "_turn", slow_turn)
    with ThreadPoolExecutor(1) as pool:
        turn = pool.submit(app.test_client().post, "/chat", json={"query": "hello", "session_id": sid})
        assert running.wait(10)
        time.sleep(0.6)
        with pytest.raises(SessionBusy), SQLiteLocks(pipeline.store.path).lock(sid):  # another worker
            pass
        assert turn.result().status_code == 200
    assert pipeline.store.load(sid).version == 1


def test_two_keys_on_one_stripe_nest_in_one_thread(tmp_path):
    """An Idempotency-Key held around a concierge plan's key: keys that share a thread-lock stripe
    (these two do: crc32 % 64) are taken one inside the other, not waited on forever."""
    locks = SQLiteLocks(tmp_path / "locks.sqlite3")
    outer, inner = "idempotency:assistant:guest:u1:key-1", "concierge:guest:user-172"
    done = threading.Event()

    def nest() -> None:
        with locks.lock(outer), locks.lock(inner):
            done.set()

    worker = threading.Thread(target=nest, daemon=True)
    worker.start()
    assert done.wait(5), "the inner key waited on the stripe its own thread holds"


def test_a_stripe_held_by_another_thread_is_busy_in_time_not_a_hang(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "LOCK_WAIT_S", 0.2)
    locks = SQLiteLocks(tmp_path / "locks.sqlite3")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with locks.lock("idempotency:assistant:guest:u1:key-1"):
            held.set()
            release.wait(5)

    threading.Thread(target=hold, daemon=True).start()
    assert held.wait(5)
    started = time.monotonic()
    with pytest.raises(SessionBusy), locks.lock("concierge:guest:user-172"):
        pass
    assert time.monotonic() - started < 2
    release.set()
