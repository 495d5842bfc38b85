"""Two app processes, as on two machines, over one PostgreSQL and one Redis: what one customer
commits to holds whichever machine answers. Each race below starts in both processes at once
(a barrier), against real servers started here:

- a one-time code is confirmed once;
- an hour's capacity and a restaurant's tables are never overbooked;
- a due reminder is delivered once, whichever scheduler sees it first;
- a hand-over is taken by one operator;
- a conversation goes on from one machine to the other."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from conftest import postgres_database
from servers import start_redis

from app import create_app
from assistant.booking.codes import BookingStore
from assistant.booking.reminders import ReminderStore
from assistant.handover.store import HANDOVERS, HandoverStore, Taken
from assistant.infra.database import DATABASE, open_database

NOW = dt.datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Asia/Kolkata"))
HOUR_CAPACITY, TRIES, REMINDERS = 3, 6, 30  # TRIES: each machine's threads racing for an hour, or tables
RESTAURANT, DAY, TIME = "res_10002", "2026-11-25", "13:00"  # a restaurant with fewer tables than 2 * 2 * TRIES


class Sent:
    """A notifier that keeps what it was asked to send."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.lock = threading.Lock()

    def send(self, to: str, text: str, kind: str) -> None:
        with self.lock:
            self.texts.append(text)


def machine(name: str, url: str, redis_url: str, folder: Path, start: Any, code: str, session: str, turn: int) -> dict:
    """One machine's app, and its side of every race (each begun when both apps are up)."""
    app = create_app(
        {
            "domain": "restaurants",
            "database_url": url,
            "session_store": redis_url,
            "session_db": folder / f"{name}-sessions.sqlite3",  # unused: sessions are in Redis
            "notify_outbox": folder / f"{name}-outbox.jsonl",
            "reminder_poll_s": 0,
            "client_rate_per_min": 0,
            "session_rate_per_min": 0,
        }
    )
    db, result = DATABASE.get(app), dict[str, Any]()
    start.wait()
    result["code"] = BookingStore(db).check_code("goal-1", code, NOW)
    start.wait()
    bookings = BookingStore(db)
    with ThreadPoolExecutor(TRIES) as pool:
        claims = pool.map(lambda n: bookings.claim(f"BK-{name}-{n}", "channel=call", "2026-11-24T17", HOUR_CAPACITY), range(TRIES))
        result["hours"] = sum(claims)
    start.wait()
    services = app.extensions["concierge"].services
    with ThreadPoolExecutor(TRIES) as pool:
        tables = pool.map(
            lambda n: services.reserve_table(RESTAURANT, DAY, TIME, 2, f"{name} {n}", "+919800000000", now=NOW),
            range(TRIES),
        )
        result["tables"] = [t["table_number"] for t in tables if t.get("status") == "confirmed"]
    start.wait()
    sent = Sent()
    ReminderStore(db).deliver_due(NOW + dt.timedelta(days=1), sent)
    result["reminders"] = sent.texts
    start.wait()
    try:
        HANDOVERS.get(app).take("handed-1", name)
        result["took"] = True
    except Taken:
        result["took"] = False
    start.wait()
    for _ in range(turn):  # machine a answers the first turn, then machine b the second
        start.wait()
    said = app.test_client().post("/chat", json={"query": ["hello", "what can you do?"][turn], "session_id": session})
    result["turn"] = (said.status_code, said.get_json()["state"]["version"])
    for _ in range(1 - turn):
        start.wait()
    return result


def _run(queue: Any, *args: Any) -> None:
    queue.put((args[0], machine(*args)))


@pytest.fixture(scope="module")
def redis_url():
    server = start_redis()
    yield server.url
    server.stop()


def test_two_machines_on_one_postgresql_and_one_redis_commit_everything_once(tmp_path, redis_url):
    url = postgres_database()
    db = open_database(url)
    code = BookingStore(db).issue_code("goal-1", NOW)
    assert code is not None
    reminders = ReminderStore(db)
    for n in range(REMINDERS):
        reminders.schedule(f"BK-{n}", "+919800000000", f"reminder {n}", NOW)
    HandoverStore(db).hand_over("handed-1", "restaurants", "asked", "wants a person")
    context = multiprocessing.get_context("spawn")  # a fresh interpreter each, as a machine has
    start, queue, session = context.Barrier(2), context.Queue(), str(uuid.uuid4())
    machines = [
        context.Process(target=_run, args=(queue, name, url, redis_url, tmp_path, start, code, session, turn))
        for turn, name in enumerate(("a", "b"))
    ]
    for process in machines:
        process.start()
    results = dict(queue.get(timeout=300) for _ in machines)
    for process in machines:
        process.join(timeout=60)
    a, b = results["a"], results["b"]

    assert sorted([a["code"], b["code"]]) == ["none", "ok"], "the code confirms once"
    assert a["hours"] + b["hours"] == HOUR_CAPACITY
    assert BookingStore(db).taken("channel=call", "2026-11-24T17") == {"2026-11-24T17": HOUR_CAPACITY}
    tables = a["tables"] + b["tables"]
    restaurant_tables = int(db.rows("SELECT COUNT(*) FROM reservations WHERE restaurant_id = ?", (RESTAURANT,))[0][0])
    assert len(tables) == restaurant_tables == len(set(tables)), "no table given twice"
    assert 0 < len(tables) < 2 * 2 * TRIES, "the restaurant's tables ran out, none twice"
    sent = a["reminders"] + b["reminders"]
    assert sorted(sent) == sorted(f"reminder {n}" for n in range(REMINDERS)), "each reminder once"
    assert sorted([a["took"], b["took"]]) == [False, True], "one operator has the conversation"
    assert a["turn"] == (200, 1) and b["turn"] == (200, 2), "machine b went on from machine a's turn"
    db.close()
