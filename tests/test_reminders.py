"""Reminders: sent when due, exactly once, across restarts and concurrent workers."""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest

from assistant.booking.reminders import ReminderScheduler, ReminderStore

UTC = dt.UTC
DUE = dt.datetime(2026, 11, 24, 10, 0, tzinfo=UTC)


class Recorder:
    """A notifier that records what it sends, or fails for the numbers in `failing_for`."""

    def __init__(self, failing_for: tuple[str, ...] = ()):
        self.sent: list[tuple[str, str, str]] = []
        self.failing_for = failing_for
        self.lock = threading.Lock()

    def send(self, to: str, text: str, kind: str) -> None:
        if to in self.failing_for:
            raise ConnectionError(f"gateway down for {to}: {text}")
        with self.lock:
            self.sent.append((to, text, kind))


class Crash(BaseException):
    """Gets past deliver_due's error handling, like a process dying mid-send."""


class Crashing:
    def send(self, to: str, text: str, kind: str) -> None:
        raise Crash


def test_sent_once_when_due_and_not_before(open_db):
    store, notifier = ReminderStore(open_db()), Recorder()
    reminder_id = store.schedule("BK-1", "+8801712345678", "see you at 11", DUE)
    assert reminder_id.startswith("rem_")
    assert store.pending() == [{"id": reminder_id, "booking_id": "BK-1", "due_at": "2026-11-24T10:00:00+00:00"}]
    assert store.deliver_due(DUE - dt.timedelta(seconds=1), notifier) == 0
    assert store.deliver_due(DUE, notifier) == 1
    assert store.deliver_due(DUE + dt.timedelta(hours=1), notifier) == 0
    assert notifier.sent == [("+8801712345678", "see you at 11", "reminder")]
    assert store.pending() == []


def test_due_times_in_other_zones_are_compared_in_utc(open_db):
    store, notifier = ReminderStore(open_db()), Recorder()
    dhaka = dt.timezone(dt.timedelta(hours=6))
    store.schedule("BK-1", "+8801712345678", "soon", dt.datetime(2026, 11, 24, 16, 0, tzinfo=dhaka))  # 10:00 UTC
    assert store.pending()[0]["due_at"] == "2026-11-24T10:00:00+00:00"
    assert store.deliver_due(DUE - dt.timedelta(minutes=1), notifier) == 0
    assert store.deliver_due(DUE, notifier) == 1


def test_naive_times_are_refused(open_db):
    with pytest.raises(ValueError):
        ReminderStore(open_db()).schedule("BK-1", "+8801712345678", "soon", dt.datetime(2026, 11, 24))


def test_a_past_due_reminder_is_sent_once_after_a_restart(open_db):
    ReminderStore(open_db()).schedule("BK-1", "+8801712345678", "soon", DUE)
    restarted, notifier = ReminderStore(open_db()), Recorder()
    assert restarted.deliver_due(DUE + dt.timedelta(days=1), notifier) == 1
    assert ReminderStore(open_db()).deliver_due(DUE + dt.timedelta(days=1), notifier) == 0
    assert len(notifier.sent) == 1


def test_concurrent_workers_send_each_reminder_once(open_db):
    for n in range(20):
        ReminderStore(open_db()).schedule(f"BK-{n}", "+8801712345678", f"reminder {n}", DUE)
    notifier, counts = Recorder(), []
    stores = [ReminderStore(open_db()) for _ in range(4)]
    start = threading.Barrier(len(stores))

    def worker(store: ReminderStore) -> None:
        start.wait()
        counts.append(store.deliver_due(DUE, notifier))

    threads = [threading.Thread(target=worker, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(text for _, text, _ in notifier.sent) == sorted(f"reminder {n}" for n in range(20))
    assert sum(counts) == 20 and stores[0].pending() == []


def test_a_failed_send_is_retried_later_and_the_others_still_go(open_db, caplog):
    store = ReminderStore(open_db())
    store.schedule("BK-1", "+8801712345678", "code 482913", DUE)
    store.schedule("BK-2", "+8801812345678", "soon", DUE)
    flaky = Recorder(failing_for=("+8801712345678",))
    assert store.deliver_due(DUE, flaky) == 1
    assert flaky.sent == [("+8801812345678", "soon", "reminder")]
    assert [r["booking_id"] for r in store.pending()] == ["BK-1"]
    assert "gateway down" in caplog.text and "482913" not in caplog.text and "1712345678" not in caplog.text
    working = Recorder()
    assert store.deliver_due(DUE, working) == 1 and store.deliver_due(DUE, working) == 0
    assert working.sent == [("+8801712345678", "code 482913", "reminder")]


def test_a_claim_abandoned_by_a_crashed_worker_is_taken_over_after_five_minutes(open_db):
    ReminderStore(open_db()).schedule("BK-1", "+8801712345678", "soon", DUE)
    with pytest.raises(Crash):
        ReminderStore(open_db()).deliver_due(DUE, Crashing())  # claimed, never sent nor released
    survivor, notifier = ReminderStore(open_db()), Recorder()
    assert survivor.deliver_due(DUE + dt.timedelta(minutes=4), notifier) == 0
    assert survivor.deliver_due(DUE + dt.timedelta(minutes=6), notifier) == 1
    assert len(notifier.sent) == 1 and survivor.pending() == []


def test_the_scheduler_sends_past_due_reminders_on_start(open_db):
    store, notifier = ReminderStore(open_db()), Recorder()
    store.schedule("BK-1", "+8801712345678", "soon", DUE)
    scheduler = ReminderScheduler(store, notifier, interval_s=0.05, clock=lambda: DUE + dt.timedelta(minutes=1))
    threads_before = set(threading.enumerate())
    scheduler.start()
    deadline = time.monotonic() + 2
    while not notifier.sent and time.monotonic() < deadline:
        time.sleep(0.01)
    scheduler.stop()
    assert set(threading.enumerate()) <= threads_before  # stop() joined the thread
    assert len(notifier.sent) == 1 and store.pending() == []
