"""Both backends pass the same tests: SQLite (one machine) and Redis (several), the latter
against a real redis-server started here. Locks hold across instances and processes, stale
writes are refused, idle sessions expire, rate windows count across workers."""

from __future__ import annotations

import multiprocessing
import shutil
import socket
import subprocess
import threading
import time
import uuid

import pytest

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
from assistant.web.ratelimit import RedisRateCounters, SQLiteRateCounters


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    server = shutil.which("redis-server")
    assert server, "redis-server is missing: install Debian's redis-server (bash .ci/run does)"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
    yield url
    process.terminate()
    process.wait()


@pytest.fixture(params=["sqlite", "redis"])
def on_backend(request, tmp_path):
    """Opens a part (the store, the locks, the rate counters) on one backend; each call is
    another worker's, over the same data."""
    prefix = f"t{uuid.uuid4().hex[:8]}"

    def open_part(on_sqlite, on_redis, *args):
        if request.param == "sqlite":
            return on_sqlite(tmp_path / "s.sqlite3", *args)
        return on_redis(request.getfixturevalue("redis_url"), *args, prefix=prefix)

    return open_part


@pytest.fixture
def make_store(on_backend):
    return lambda ttl_s=3600: on_backend(SQLiteSessionStore, RedisSessionStore, ttl_s)


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
    store = SQLiteSessionStore(tmp_path / "s.sqlite3", ttl_s=0.1)
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


def test_a_lock_left_by_a_crashed_worker_is_taken_over(make_locks, monkeypatch):
    monkeypatch.setattr(store_module, "LOCK_LEASE_S", 0.2)
    crashed = make_locks().lock("s1")
    crashed.__enter__()  # never released: its worker "died"
    started = time.monotonic()
    with make_locks().lock("s1"):
        pass
    assert time.monotonic() - started < 5


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
    store, locks = SQLiteSessionStore(path, 3600), SQLiteLocks(path)
    for n in range(turns):
        with locks.lock(session_id):
            state = store.load(session_id) or SessionState(session_id=session_id)
            state.history = [*state.history, Turn(role="user", text=f"{multiprocessing.current_process().name}-{n}")]
            store.save(state)


def test_worker_processes_sharing_sqlite_lose_no_update(tmp_path):
    path = str(tmp_path / "s.sqlite3")
    SQLiteSessionStore(path, 3600)
    # Fresh interpreters, as gunicorn's workers are: forked before any connection is opened.
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_worker, args=(path, "shared", 15), name=f"w{n}") for n in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    state = SQLiteSessionStore(path, 3600).load("shared")
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
