"""Reminders kept in the durable database and sent when due, exactly once, across restarts,
workers and machines.

Due reminders are claimed before they are sent: the scheduler that sees them first locks their
rows (FOR UPDATE SKIP LOCKED, so another machine's scheduler passes over them rather than waiting)
and marks them its own in one transaction. Two schedulers (or a restarted app and the one it
replaced) never both send one; a claim left by a process that died mid-send expires after five
minutes and the reminder is tried again.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from collections.abc import Callable
from typing import TypedDict

from flask import Flask

from assistant.booking.notifications import NOTIFIER, Notifier
from assistant.infra.config import SETTINGS
from assistant.infra.database import DATABASE, ERRORS, Database
from assistant.infra.extensions import Slot
from assistant.infra.periodic import Periodic, start_chore
from assistant.language.privacy import mask

log = logging.getLogger(__name__)
CLAIM_EXPIRES = dt.timedelta(minutes=5)


def _utc(moment: dt.datetime) -> str:
    """UTC ISO text, so that due times compare correctly as strings in SQL."""
    if moment.tzinfo is None:
        raise ValueError("reminder times must be timezone-aware")
    return moment.astimezone(dt.UTC).isoformat()


class Pending(TypedDict):
    id: str
    booking_id: str
    due_at: str  # UTC, ISO


class ReminderStore:
    def __init__(self, db: Database):
        self._db = db

    def schedule(self, booking_id: str, to: str, text: str, due_at: dt.datetime) -> str:
        reminder_id = "rem_" + secrets.token_hex(8)
        self._db.write(
            "INSERT INTO reminders (id, booking_id, recipient, text, due_at) VALUES (?, ?, ?, ?, ?)",
            (reminder_id, booking_id, to, text, _utc(due_at)),
        )
        return reminder_id

    def cancel(self, booking_id: str) -> int:
        """Drop a booking's unsent reminders (it moved: a new one is scheduled for its new time)."""
        return self._db.write("DELETE FROM reminders WHERE booking_id=? AND sent_at IS NULL", (booking_id,))

    def pending(self) -> list[Pending]:
        rows = self._db.rows("SELECT id, booking_id, due_at FROM reminders WHERE sent_at IS NULL ORDER BY due_at")
        return [{"id": r[0], "booking_id": r[1], "due_at": r[2]} for r in rows]

    def deliver_due(self, now: dt.datetime, notifier: Notifier) -> int:
        """Send every unsent reminder due by `now` that no other scheduler holds; how many this call sent."""
        claim = secrets.token_hex(8)
        with self._db.transaction() as db:
            due = db.execute(
                "SELECT id, recipient, text FROM reminders WHERE sent_at IS NULL AND due_at <= ?"
                " AND (claimed_at IS NULL OR claimed_at < ?) ORDER BY due_at FOR UPDATE SKIP LOCKED",
                (_utc(now), _utc(now - CLAIM_EXPIRES)),
            ).fetchall()
            for reminder_id, _, _ in due:
                db.execute("UPDATE reminders SET claimed_at=?, claim=? WHERE id=?", (_utc(now), claim, reminder_id))
        return sum(self._deliver(reminder_id, to, text, now, notifier, claim) for reminder_id, to, text in due)

    def _deliver(self, reminder_id: str, to: str, text: str, now: dt.datetime, notifier: Notifier, claim: str) -> bool:
        """Send one claimed reminder and mark it sent; a failure releases the claim so a later round retries it."""
        try:
            notifier.send(to, text, "reminder")
        except Exception as error:  # one failing reminder must not stop the others
            log.warning("reminder %s not sent, will retry: %s", reminder_id, mask(str(error)))
            self._release(reminder_id, claim)
            return False
        try:
            self._db.write("UPDATE reminders SET sent_at=? WHERE id=? AND claim=?", (_utc(now), reminder_id, claim))
        except ERRORS as error:  # sent but not recorded; the claim holds it back for five minutes
            log.error("reminder %s sent but not marked sent: %s", reminder_id, error)
        return True

    def _release(self, reminder_id: str, claim: str) -> None:
        """Only our own claim: one that expired and was taken over belongs to the other worker now."""
        try:
            self._db.write(
                "UPDATE reminders SET claim=NULL, claimed_at=NULL WHERE id=? AND claim=? AND sent_at IS NULL", (reminder_id, claim)
            )
        except ERRORS as error:  # the claim then simply expires
            log.error("reminder %s claim not released: %s", reminder_id, error)


class ReminderScheduler(Periodic):
    """Sends due reminders every `interval_s`, and at once on start (those due during downtime)."""

    def __init__(
        self,
        store: ReminderStore,
        notifier: Notifier,
        interval_s: float = 30.0,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    ):
        super().__init__("reminders", interval_s, lambda: store.deliver_due(clock(), notifier))


REMINDERS: Slot[ReminderStore] = Slot("reminders")


def init_app(app: Flask) -> None:
    """Reminders beside the bookings, sent every REMINDER_POLL_S seconds."""
    store = REMINDERS.put(app, ReminderStore(DATABASE.get(app)))
    start_chore(app, ReminderScheduler(store, NOTIFIER.get(app), SETTINGS.get(app).reminder_poll_s))
