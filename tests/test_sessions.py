"""Sessions: isolated under concurrency, no lost updates, and kept across a restart."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from app import create_app
from assistant.dialogue.sessions import SQLiteSessionStore, VersionConflict
from assistant.dialogue.state import SessionState

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
    store = SQLiteSessionStore(tmp_path / "s.sqlite3", 3600)
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
