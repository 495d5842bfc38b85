"""Reminders: sent when due, exactly once, across restarts and concurrent workers."""

from __future__ import annotations

import datetime as dt
import threading
import time

from assistant.reminders import ReminderScheduler, ReminderStore

UTC = dt.timezone.utc
DUE = dt.datetime(2026, 11, 24, 10, 0, tzinfo=UTC)


class Recorder:
    def __init__(self, fail: bool = False):
        self.sent: list[tuple[str, str, str]] = []
        self.fail = fail
        self.lock = threading.Lock()

    def send(self, to: str, text: str, kind: str) -> None:
        if self.fail:
            raise ConnectionError("gateway down")
        with self.lock:
            self.sent.append((to, text, kind))


def test_sent_once_when_due_and_not_before(tmp_path):
    store, notifier = ReminderStore(tmp_path / "r.sqlite3"), Recorder()
    store.schedule("BK-1", "+8801712345678", "see you at 11", DUE)
    assert store.deliver_due(DUE - dt.timedelta(seconds=1), notifier) == 0
    assert store.deliver_due(DUE, notifier) == 1
    assert store.deliver_due(DUE + dt.timedelta(hours=1), notifier) == 0
    assert notifier.sent == [("+8801712345678", "see you at 11", "reminder")]
    assert store.pending() == []


def test_a_past_due_reminder_is_sent_once_after_a_restart(tmp_path):
    ReminderStore(tmp_path / "r.sqlite3").schedule("BK-1", "+8801712345678", "soon", DUE)
    restarted, notifier = ReminderStore(tmp_path / "r.sqlite3"), Recorder()
    assert restarted.deliver_due(DUE + dt.timedelta(days=1), notifier) == 1
    assert ReminderStore(tmp_path / "r.sqlite3").deliver_due(DUE + dt.timedelta(days=1), notifier) == 0
    assert len(notifier.sent) == 1


def test_concurrent_workers_send_each_reminder_once(tmp_path):
    path = tmp_path / "r.sqlite3"
    for n in range(20):
        ReminderStore(path).schedule(f"BK-{n}", "+8801712345678", f"reminder {n}", DUE)
    notifier = Recorder()
    stores = [ReminderStore(path) for _ in range(4)]
    threads = [threading.Thread(target=s.deliver_due, args=(DUE, notifier)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(text for _, text, _ in notifier.sent) == sorted(f"reminder {n}" for n in range(20))


def test_a_failed_send_is_retried_later_and_then_sent_once(tmp_path):
    store = ReminderStore(tmp_path / "r.sqlite3")
    store.schedule("BK-1", "+8801712345678", "soon", DUE)
    assert store.deliver_due(DUE, Recorder(fail=True)) == 0
    assert len(store.pending()) == 1
    working = Recorder()
    assert store.deliver_due(DUE, working) == 1 and store.deliver_due(DUE, working) == 0
    assert len(working.sent) == 1


def test_the_scheduler_sends_past_due_reminders_on_start(tmp_path):
    store, notifier = ReminderStore(tmp_path / "r.sqlite3"), Recorder()
    store.schedule("BK-1", "+8801712345678", "soon", DUE)
    scheduler = ReminderScheduler(store, notifier, interval_s=0.05, clock=lambda: DUE + dt.timedelta(minutes=1))
    scheduler.start()
    deadline = time.monotonic() + 2
    while not notifier.sent and time.monotonic() < deadline:
        time.sleep(0.01)
    scheduler.stop()
    assert len(notifier.sent) == 1 and store.pending() == []
