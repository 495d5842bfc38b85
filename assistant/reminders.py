"""Reminders kept in SQLite and sent when due, exactly once, across restarts and workers.

Each due reminder is claimed with one atomic UPDATE before it is sent, so two workers (or a
restarted app and the one it replaced) never both send it; a claim left by a process that
died mid-send expires after five minutes and the reminder is tried again.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from assistant.notify import Notifier, mask
from assistant.periodic import Periodic

log = logging.getLogger(__name__)
CLAIM_EXPIRES = dt.timedelta(minutes=5)


def _utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).isoformat()


class ReminderStore:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=5, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute("""CREATE TABLE IF NOT EXISTS reminders (
                id TEXT PRIMARY KEY, booking_id TEXT NOT NULL, recipient TEXT NOT NULL, text TEXT NOT NULL,
                due_at TEXT NOT NULL, claim TEXT, claimed_at TEXT, sent_at TEXT)""")

    def schedule(self, booking_id: str, to: str, text: str, due_at: dt.datetime) -> str:
        reminder_id = "rem_" + secrets.token_hex(6)
        with self._lock:
            self._db.execute("INSERT INTO reminders (id, booking_id, recipient, text, due_at) VALUES (?, ?, ?, ?, ?)",
                             (reminder_id, booking_id, to, text, _utc(due_at)))
        return reminder_id

    def pending(self) -> list[dict]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, booking_id, due_at FROM reminders WHERE sent_at IS NULL ORDER BY due_at").fetchall()
        return [{"id": r[0], "booking_id": r[1], "due_at": r[2]} for r in rows]

    def deliver_due(self, now: dt.datetime, notifier: Notifier) -> int:
        """Send every unsent reminder due by `now`; returns how many this call sent."""
        with self._lock:
            due = self._db.execute("SELECT id, recipient, text FROM reminders WHERE sent_at IS NULL AND due_at <= ?",
                                   (_utc(now),)).fetchall()
        sent = 0
        for reminder_id, to, text in due:
            if not self._claim(reminder_id, now):
                continue
            try:
                notifier.send(to, text, "reminder")
            except Exception as error:  # one failing reminder must not stop the others
                log.warning("reminder %s not sent, will retry: %s", reminder_id, mask(str(error)))
                self._release(reminder_id)
                continue
            with self._lock:
                self._db.execute("UPDATE reminders SET sent_at=? WHERE id=?", (_utc(now), reminder_id))
            sent += 1
        return sent

    def _claim(self, reminder_id: str, now: dt.datetime) -> bool:
        with self._lock:
            claimed = self._db.execute(
                "UPDATE reminders SET claim=?, claimed_at=? WHERE id=? AND sent_at IS NULL "
                "AND (claimed_at IS NULL OR claimed_at < ?)",
                (secrets.token_hex(8), _utc(now), reminder_id, _utc(now - CLAIM_EXPIRES)),
            )
        return claimed.rowcount == 1

    def _release(self, reminder_id: str) -> None:
        with self._lock:
            self._db.execute("UPDATE reminders SET claim=NULL, claimed_at=NULL WHERE id=?", (reminder_id,))


class ReminderScheduler(Periodic):
    """Sends due reminders every `interval_s`, and at once on start (those due during downtime)."""

    def __init__(self, store: ReminderStore, notifier: Notifier, interval_s: float = 30.0,
                 clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc)):
        super().__init__("reminders", interval_s, lambda: store.deliver_due(clock(), notifier))
