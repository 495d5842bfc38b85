"""Confirmed bookings, the hours they take, and their one-time codes, in the durable database,
apart from session state.

A code lives only here, salted and hashed: it is never in session state, replies, logs or
prompts. It expires after 10 minutes, allows 3 wrong tries, and is compared in constant time.
An hour's bookings are counted and a new one added in one transaction holding the hour's lock, so
workers booking the same hour at once, on any machine, never take more than its capacity; a
code's row is locked while it is checked, so it confirms once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from contextlib import AbstractContextManager
from typing import Literal

from pydantic import BaseModel

from assistant.infra.config import CODE_TTL
from assistant.infra.database import Database, Transaction

MAX_WRONG_TRIES = 3
MAX_CODES_PER_GOAL = 4  # the first code and three resends

CodeCheck = Literal["ok", "wrong", "expired", "locked", "none"]


class Booking(BaseModel):
    id: str
    session_id: str
    product_id: str
    product_name: str
    name: str
    phone: str
    starts_at: dt.datetime
    status: Literal["confirmed"] = "confirmed"
    details: dict[str, str | int | None] = {}  # the flow's other slots: how to meet, where, how many


class BookingStore:
    def __init__(self, db: Database):
        self._db = db

    def together(self) -> AbstractContextManager[Transaction]:
        """`with store.together():` what the desk does next in this thread (codes, hours, bookings,
        reminders: one database) is one transaction."""
        return self._db.transaction()

    def issue_code(self, goal_id: str, now: dt.datetime) -> str | None:
        """A fresh 6-digit code for this goal (replacing any earlier one); None once too many were sent."""
        code = f"{secrets.randbelow(10**6):06d}"
        salt = secrets.token_bytes(16)
        with self._db.transaction() as db:
            db.lock(f"code:{goal_id}")  # the goal may have no row yet to lock
            row = db.execute("SELECT issued FROM codes WHERE goal_id=?", (goal_id,)).fetchone()
            issued = row[0] if row else 0
            if issued >= MAX_CODES_PER_GOAL:
                return None
            db.execute(
                "INSERT INTO codes VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT (goal_id) DO UPDATE SET salt=excluded.salt,"
                " digest=excluded.digest, expires_at=excluded.expires_at, wrong=0, issued=excluded.issued",
                (goal_id, salt, _digest(salt, code), (now + CODE_TTL).isoformat(), issued + 1),
            )
        return code

    def check_code(self, goal_id: str, code: str, now: dt.datetime) -> CodeCheck:
        with self._db.transaction() as db:
            row = db.execute("SELECT salt, digest, expires_at, wrong FROM codes WHERE goal_id=? FOR UPDATE", (goal_id,)).fetchone()
            if row is None:
                return "none"
            salt, digest, expires_at, wrong = bytes(row[0]), bytes(row[1]), row[2], row[3]
            if not digest:  # withdrawn
                return "none"
            if wrong >= MAX_WRONG_TRIES:
                return "locked"
            if now >= dt.datetime.fromisoformat(expires_at):
                return "expired"
            if hmac.compare_digest(_digest(salt, code), digest):
                db.execute("DELETE FROM codes WHERE goal_id=?", (goal_id,))
                return "ok"
            db.execute("UPDATE codes SET wrong = wrong + 1 WHERE goal_id=?", (goal_id,))
            return "locked" if wrong + 1 >= MAX_WRONG_TRIES else "wrong"

    def withdraw_code(self, goal_id: str) -> None:
        """The goal's code no longer works (it was never sent, or went to a number since changed);
        the count of codes sent for the goal stays."""
        self._db.write("UPDATE codes SET digest=? WHERE goal_id=?", (b"", goal_id))

    def claim(self, booking_id: str, resource: str, hour: str, capacity: int | None) -> bool:
        """The hour (of a resource: a channel, a branch) for this booking, unless `capacity` other
        bookings already take it; a booking that claims again gives up the hour it had."""
        with self._db.transaction() as db:
            db.lock(f"hour:{resource}:{hour}")  # counts rows a racing booking would add, so no row lock does
            taken = db.execute(
                "SELECT COUNT(*) FROM booked_hours WHERE resource=? AND hour=? AND booking_id!=?", (resource, hour, booking_id)
            ).fetchone()[0]
            if capacity is not None and taken >= capacity:
                return False
            db.execute(
                "INSERT INTO booked_hours VALUES (?, ?, ?) ON CONFLICT (booking_id) DO UPDATE SET resource=excluded.resource,"
                " hour=excluded.hour",
                (booking_id, resource, hour),
            )
        return True

    def taken(self, resource: str, since: str) -> dict[str, int]:
        """How many bookings take each hour of a resource from `since` on."""
        rows = self._db.rows(
            "SELECT hour, COUNT(*) FROM booked_hours WHERE resource=? AND hour>=? GROUP BY hour", (resource, since)
        )
        return {hour: count for hour, count in rows}

    def save(self, booking: Booking) -> None:
        self._db.write("INSERT INTO bookings VALUES (?, ?)", (booking.id, booking.model_dump_json()))

    def get(self, booking_id: str) -> Booking | None:
        row = self._db.one("SELECT body FROM bookings WHERE id=?", (booking_id,))
        return Booking.model_validate_json(row[0]) if row else None

    def update(self, booking: Booking) -> None:
        """A booking changed after it was made (another day, time or head count), under its id."""
        if self._db.write("UPDATE bookings SET body=? WHERE id=?", (booking.model_dump_json(), booking.id)) != 1:
            raise KeyError(f"no booking {booking.id} to update")


def new_booking_id() -> str:
    return "BK-" + secrets.token_hex(4).upper()


def _digest(salt: bytes, code: str) -> bytes:
    return hashlib.sha256(salt + code.encode()).digest()
