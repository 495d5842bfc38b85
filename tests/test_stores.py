"""Both backends pass the same tests: SQLite (one machine) and Redis (several), the latter
against a real redis-server started here. Locks hold across instances and processes and a killed
worker's lock frees itself within a lease, stale writes are refused, idle sessions expire,
answers are kept for retries, rate windows count across workers."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
import uuid
from pathlib import Path

import pytest
from servers import start_redis

from app import create_app
from assistant.dialogue import sessions as store_module
from assistant.dialogue.sessions import (
    RedisLocks,
    RedisSessionStore,
    SessionBusy,
    SQLiteLocks,
    SQLiteSessionStore,
    VersionConflict,
)
from assistant.dialogue.state import SessionState, Turn
from assistant.infra.counters import RedisRateCounters, SQLiteRateCounters


@pytest.fixture(scope="session")
def redis_url():
    server = start_redis()
    yield server.url
    server.stop()


@pytest.fixture(params=["sqlite", "redis"])
def backend(request, tmp_path):
    """One backend's data: (kind, its SQLite file or Redis URL, the tests' key prefix)."""
    where = str(tmp_path / "s.sqlite3") if request.param == "sqlite" else request.getfixturevalue("redis_url")
    return request.param, where, f"t{uuid.uuid4().hex[:8]}"


def open_part(backend, on_sqlite, on_redis, *args):
    """A part (the store, the locks, the rate counters) on `backend`; each call is another
    worker's, over the same data."""
    kind, where, prefix = backend
    return on_sqlite(Path(where), *args) if kind == "sqlite" else on_redis(where, *args, prefix=prefix)


@pytest.fixture
def on_backend(backend):
    return lambda on_sqlite, on_redis, *args: open_part(backend, on_sqlite, on_redis, *args)


@pytest.fixture
def make_store(on_backend):
    return lambda ttl_s=3600: on_backend(SQLiteSessionStore, RedisSessionStore, ttl_s, 3600)


@pytest.fixture
def make_locks(on_backend):
    return lambda: on_backend(SQLiteLocks, RedisLocks)


@pytest.fixture
def make_counters(on_backend):
    return lambda: on_backend(SQLiteRateCounters, RedisRateCounters)


def test_round_trip_and_stale_writes_are_refused(make_store):
    store = make_store()
    state = SessionState(session_id="s1", filters={"tier": "gold"})
    state.history = [Turn(role="user", text="hello")]
    store.save(state)
    assert state.version == 1
    copy_a, copy_b = store.load("s1"), store.load("s1")
    assert copy_a.filters == {"tier": "gold"} and copy_a.history[0].text == "hello"
    copy_a.filters = {"tier": "platinum"}
    store.save(copy_a)
    copy_b.filters = {"tier": "classic"}
    with pytest.raises(VersionConflict):
        store.save(copy_b)
    with pytest.raises(VersionConflict):
        store.save(SessionState(session_id="s1"))
    assert store.load("s1").filters == {"tier": "platinum"} and store.load("s1").version == 2
    assert store.load("unknown") is None and store.ping()


def test_idle_sessions_expire(make_store):
    store = make_store(ttl_s=0.2)
    store.save(SessionState(session_id="old"))
    assert store.load("old") is not None
    time.sleep(0.35)
    store.purge_expired()
    assert store.load("old") is None
    fresh = SessionState(session_id="old")
    store.save(fresh)  # the id can start over once its session expired
    assert store.load("old").version == 1


def test_sqlite_purge_deletes_expired_rows(tmp_path):
    store = SQLiteSessionStore(tmp_path / "s.sqlite3", ttl_s=0.1, replay_ttl_s=3600)
    for n in range(3):
        store.save(SessionState(session_id=f"s{n}"))
    time.sleep(0.2)
    store.save(SessionState(session_id="recent"))
    assert store.purge_expired() == 3


def test_the_lock_holds_across_store_instances(make_locks):
    first, second = make_locks(), make_locks()
    order = []
    holding = threading.Event()

    def hold():
        with first.lock("s1"):
            holding.set()
            time.sleep(0.2)
            order.append("first done")

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait()
    with second.lock("s1"):
        order.append("second in")
    thread.join()
    assert order == ["first done", "second in"]


def _hold_until_killed(backend, lease_s: float, held) -> None:
    store_module.LOCK_LEASE_S = lease_s
    with open_part(backend, SQLiteLocks, RedisLocks).lock("s1"):
        held.set()
        time.sleep(60)  # a turn that never ends: the test kills its worker


def test_a_live_workers_lock_is_renewed_and_a_killed_workers_frees_itself_within_a_lease(backend, make_locks, monkeypatch):
    lease = 0.5
    monkeypatch.setattr(store_module, "LOCK_LEASE_S", lease)
    monkeypatch.setattr(store_module, "LOCK_WAIT_S", 0.2)
    context = multiprocessing.get_context("spawn")  # a worker process of its own, as gunicorn's
    held = context.Event()
    worker = context.Process(target=_hold_until_killed, args=(backend, lease, held))
    worker.start()
    try:
        assert held.wait(30)
        time.sleep(3 * lease)
        with pytest.raises(SessionBusy), make_locks().lock("s1"):  # renewed: still held after three leases
            pass
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.join()
    monkeypatch.setattr(store_module, "LOCK_WAIT_S", 10)
    started = time.monotonic()
    with make_locks().lock("s1"):
        pass
    assert time.monotonic() - started < lease + 0.3


def test_a_turn_longer_than_the_lease_keeps_its_lock(make_locks, monkeypatch):
    monkeypatch.setattr(store_module, "LOCK_LEASE_S", 0.3)
    monkeypatch.setattr(store_module, "LOCK_WAIT_S", 0.2)
    first, second = make_locks(), make_locks()
    with first.lock("s1"):
        time.sleep(1)
        with pytest.raises(SessionBusy), second.lock("s1"):
            pass
    with second.lock("s1"):  # released at once when the turn ends
        pass


def test_a_turns_answer_is_saved_with_it_and_recalled_in_its_scope_only(make_store):
    store = make_store()
    state = SessionState(session_id="s1")
    store.save(state, ("req-1", '{"reply": "hello"}'))
    assert store.recall("s1", "req-1") == '{"reply": "hello"}'
    assert store.recall("s2", "req-1") is None and store.recall("s1", "req-2") is None
    stale = SessionState(session_id="s1")  # version 0: a writer that lost the race
    with pytest.raises(VersionConflict):
        store.save(stale, ("req-2", '{"reply": "lost"}'))
    assert store.recall("s1", "req-2") is None, "an answer is kept only with the turn it answers"
    store.remember("concierge:u1", "key-1", '{"reservation": 1}')  # any caller's own scope
    assert store.recall("concierge:u1", "key-1") == '{"reservation": 1}'
    assert store.recall("concierge:u", "1:key-1") is None, "scope and key never run into each other"


def test_answers_expire_after_the_replay_time(on_backend):
    store = on_backend(SQLiteSessionStore, RedisSessionStore, 3600, 0.2)
    store.remember("s1", "req-1", "{}")
    time.sleep(0.35)
    store.purge_expired()
    assert store.recall("s1", "req-1") is None


def test_a_busy_session_answers_409_with_retry_after(app, monkeypatch):
    monkeypatch.setattr(store_module, "LOCK_WAIT_S", 0.2)
    pipeline = app.extensions["pipeline"]
    session = str(uuid.uuid4())
    other_worker = SQLiteLocks(pipeline.store.path)
    with other_worker.lock(session):
        response = app.test_client().post("/chat", json={"query": "hello", "session_id": session})
    assert response.status_code == 409 and response.headers["Retry-After"] == "1"
    assert response.get_json()["error"] == "session_busy"
    with pytest.raises(SessionBusy):
        with other_worker.lock(session), pipeline.locks.lock(session):
            pass


def _worker(path: str, session_id: str, turns: int) -> None:
    store, locks = SQLiteSessionStore(path, 3600, 3600), SQLiteLocks(path)
    for n in range(turns):
        with locks.lock(session_id):
            state = store.load(session_id) or SessionState(session_id=session_id)
            state.history = [*state.history, Turn(role="user", text=f"{multiprocessing.current_process().name}-{n}")]
            store.save(state)


def test_worker_processes_sharing_sqlite_lose_no_update(tmp_path):
    path = str(tmp_path / "s.sqlite3")
    SQLiteSessionStore(path, 3600, 3600)
    # Fresh interpreters, as gunicorn's workers are: forked before any connection is opened.
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_worker, args=(path, "shared", 15), name=f"w{n}") for n in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)  # fresh interpreters import the package: slow on a busy two-core machine
    assert [w.exitcode for w in workers] == [0, 0, 0]
    state = SQLiteSessionStore(path, 3600, 3600).load("shared")
    assert state.version == 45 and len({t.text for t in state.history}) == 45


def test_the_app_runs_on_redis_and_a_restart_continues_the_conversation(redis_url, tmp_path):
    config = {"session_store": redis_url, "session_db": tmp_path / "s.sqlite3", "reminder_poll_s": 0}
    session = str(uuid.uuid4())
    first = (
        create_app(config)
        .test_client()
        .post("/chat", json={"query": "I want a platinum conventional credit card for business", "session_id": session})
    )
    again = create_app(config).test_client().post("/chat", json={"query": "compare them", "session_id": session})
    assert again.get_json()["agents"] == ["comparator", "formatter"]
    assert again.get_json()["comparison"]["products"] == first.get_json()["state"]["products"]


def test_rate_windows_count_per_key_across_workers(make_counters):
    first, second = make_counters(), make_counters()
    day = 86_400  # one window for the whole test, whatever the clock says
    assert first.hit("client:a", day)[0] == 1
    assert second.hit("client:a", day)[0] == 2
    count, reset_in = first.hit("client:b", day)
    assert count == 1 and 0 < reset_in <= day
