"""The concierge's four services (search, reserve, send a message, schedule a reminder), run locally against the restaurants pack.

They answer the way external booking and messaging services do, failures included, so the
concierge's fallbacks are exercised for real: search returns up to 5 matches or none; a table
can be fully booked (the pack's simulated calendar, or every table taken by earlier
reservations), answered with alternate slots; the message gateway can be down (the notifier
raises, or refuses a number that has had too many messages); a reminder in the past is refused.
Reservations live in SQLite, so capacity holds across workers and restarts. A reservation made
`until` a time is held only that long unless kept (a guest's, while their number is confirmed):
once it lapses, its table is free again; such holds may take only a share of a time's tables,
so guests who never confirm cannot fill a time and push confirmed customers to another.
"""

from __future__ import annotations

import datetime as dt
import math
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from assistant.booking.notifications import MessagesCapped, Notifier, NotifyError
from assistant.booking.reminders import ReminderStore
from assistant.infra.database import Database, Transaction
from assistant.language.lexicon import WEEKDAYS
from assistant.pack.model import Catalog, Product
from extensions.restaurants.calls import ServiceFault, Unreachable, call_service

MAX_RESULTS = 5
SLOT = dt.timedelta(minutes=30)
INDIAN = "indian"  # any Indian cuisine, as in "an Indian restaurant"
NON_INDIAN = {"chinese", "italian", "continental", "cafe"}
MAX_GUESTS = 20  # the reservation service's limit; the pack's flows ask within it
_COUNTS = "SELECT time, COUNT(*) FROM reservations WHERE restaurant_id=? AND date=? AND id!=? GROUP BY time"
_HELD = (  # the same, of reservations held until a time (not yet confirmed)
    "SELECT time, COUNT(*) FROM reservations WHERE restaurant_id=? AND date=? AND id!=?"
    " AND id IN (SELECT reservation_id FROM held_until) GROUP BY time"
)
TOO_MANY = "too_many_messages"  # send_message's error for a number over its cap
T = TypeVar("T")


class ConciergeServices:
    def __init__(
        self,
        catalog: Catalog,
        calendar: dict[str, dict[str, list[str]]],
        db: Database,
        notifier: Notifier,
        reminders: ReminderStore,
        hold_share: float,
        backoff_max_s: float,
    ):
        """`hold_share`: of a time's tables, the share that reservations held `until` a time may take;
        `backoff_max_s`: the longest Retry-After waited out before one more try."""
        self.catalog = catalog
        self.backoff_max_s = backoff_max_s
        self.hold_share = hold_share
        self.calendar = calendar
        self.notifier = notifier
        self.reminders = reminders
        self._db = db

    def call(self, service: str, call: Callable[[], T]) -> T | Unreachable:
        """A call to one of the services, its failures handled by calls.py (5xx retried once, 429 backed off)."""
        return call_service(service, call, self.backoff_max_s)

    def search_restaurant(self, city: str, locality: str, cuisine: str, date: str, time: str, today: dt.date) -> dict[str, Any]:
        """Up to 5 restaurants open at that time, best rated first; {"restaurants": []} when none match."""
        problem = _missing(city=city, locality=locality, cuisine=cuisine) or _bad_when(date, time, today)
        if problem:
            return {"error": "invalid_request", "details": problem}
        found = [
            r
            for r in self.catalog.products
            if r.value("city") == city and in_locality(r, locality) and serves(r, cuisine) and is_open(r, time)
        ]
        found.sort(key=lambda r: (-r.value("rating"), r.name))
        return {"restaurants": [self._summary(r, date, time) for r in found[:MAX_RESULTS]]}

    def reserve_table(
        self,
        restaurant_id: str,
        date: str,
        time: str,
        guests: int,
        user_name: str,
        user_phone: str,
        *,
        now: dt.datetime,
        until: dt.datetime | None = None,
    ) -> dict[str, Any]:
        """A table, or "no_availability" with the free half-hour slots nearest the one asked for;
        `until`: held only till then unless kept (`keep_table`)."""
        restaurant = self.catalog.product(restaurant_id)
        if restaurant is None:
            return {"status": "invalid_restaurant", "error_message": f"No restaurant {restaurant_id}."}
        if not 1 <= guests <= MAX_GUESTS or not user_name.strip() or not user_phone.startswith("+"):
            return {"error": "invalid_request", "details": f"guests must be 1-{MAX_GUESTS}, with a name and an E.164 phone"}
        with self._db.transaction() as db:  # the count and the insert are one step: no double booking
            _lock_days(db, restaurant.id, {date}, now)
            held = self._hold(db, restaurant, date, time, moving="", holding=until is not None)
            if "table_number" not in held:
                return held
            reservation_id = "rev_" + secrets.token_hex(5)
            db.execute(
                "INSERT INTO reservations VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (reservation_id, restaurant.id, date, time, guests, user_name, user_phone, held["table_number"]),
            )
            if until is not None:
                db.execute("INSERT INTO held_until VALUES (?, ?)", (reservation_id, _utc(until)))
        return {"reservation_id": reservation_id, **held}

    def keep_table(self, reservation_id: str, now: dt.datetime) -> bool:
        """The reservation kept for good; False when it was held until a time that has passed
        (its table is free again, and it is gone)."""
        with self._db.transaction() as db:
            where = db.execute("SELECT restaurant_id, date FROM reservations WHERE id=?", (reservation_id,)).fetchone()
            if where is None:
                return False
            _lock_days(db, where[0], {where[1]}, now)
            db.execute("DELETE FROM held_until WHERE reservation_id=?", (reservation_id,))
            return db.execute("SELECT 1 FROM reservations WHERE id=?", (reservation_id,)).fetchone() is not None

    def move_table(self, reservation_id: str, date: str, time: str, guests: int, *, now: dt.datetime) -> dict[str, Any]:
        """The same reservation at another day, time or head count, answered as `reserve_table`
        answers; a move that finds no table leaves the reservation as it was."""
        if not 1 <= guests <= MAX_GUESTS:
            return {"error": "invalid_request", "details": f"guests must be 1-{MAX_GUESTS}"}
        with self._db.transaction() as db:
            where = db.execute("SELECT restaurant_id, date FROM reservations WHERE id=?", (reservation_id,)).fetchone()
            if where is not None:
                _lock_days(db, where[0], {where[1], date}, now)
            row = db.execute("SELECT restaurant_id FROM reservations WHERE id=?", (reservation_id,)).fetchone()
            restaurant = self.catalog.product(row[0]) if row else None
            if restaurant is None:
                return {"status": "invalid_reservation", "error_message": f"No reservation {reservation_id}."}
            holding = db.execute("SELECT 1 FROM held_until WHERE reservation_id=?", (reservation_id,)).fetchone() is not None
            held = self._hold(db, restaurant, date, time, moving=reservation_id, holding=holding)
            if "table_number" in held:
                db.execute(
                    "UPDATE reservations SET date=?, time=?, guests=?, table_number=? WHERE id=?",
                    (date, time, guests, held["table_number"], reservation_id),
                )
        return {"reservation_id": reservation_id, **held} if "table_number" in held else held

    def _hold(self, db: Transaction, restaurant: Product, date: str, time: str, moving: str, holding: bool) -> dict[str, Any]:
        """A free table at that time (the reservation `moving` aside), inside the caller's
        transaction; `holding`: one held until a time, so within the holds' share too."""
        counts: dict[str, int] = dict(db.execute(_COUNTS, (restaurant.id, date, moving)).fetchall())
        held: dict[str, int] | None = dict(db.execute(_HELD, (restaurant.id, date, moving)).fetchall()) if holding else None
        taken = counts.get(time, 0)
        if not self._free(restaurant, date, time, taken, held):
            alternates = self._alternates(restaurant, date, time, counts, held)
            return {
                "status": "no_availability",
                "alternate_slots": alternates,
                "error_message": f"No tables available at {time}."
                + (f" Next available: {', '.join(alternates)}." if alternates else ""),
            }
        arrive = (
            dt.datetime.combine(dt.date.fromisoformat(date), dt.time.fromisoformat(time)) - dt.timedelta(minutes=10)
        ).strftime("%H:%M")
        return {
            "table_number": str(taken + 1),
            "status": "confirmed",
            "instructions": f"Arrive by {arrive}; the table is held for 15 minutes.",
        }

    def send_message(self, phone_number: str, message_text: str, channel: str) -> dict[str, Any]:
        if len(message_text) > 500:
            return {"status": "failed", "error_message": "Message longer than 500 characters."}
        try:
            self.notifier.send(phone_number, message_text, channel)
        except MessagesCapped as error:
            return {"status": "failed", "error": TOO_MANY, "error_message": str(error)}
        except NotifyError as error:  # down or refusing: for `call` to retry, back off or report
            raise ServiceFault(error.status or 503, error.retry_after, str(error)) from error
        return {"message_id": "msg_" + secrets.token_hex(5), "status": "sent"}

    def schedule_reminder(
        self, user_id: str, reminder_time: dt.datetime, message_text: str, phone: str, reservation_id: str, now: dt.datetime
    ) -> dict[str, Any]:
        if reminder_time <= now:
            return {"error": "invalid_time", "details": "Cannot schedule in the past."}
        reminder_id = self.reminders.schedule(reservation_id, phone, message_text[:300], reminder_time)
        return {"reminder_id": reminder_id, "status": "scheduled", "scheduled_for": f"{reminder_time:%Y-%m-%dT%H:%M}"}

    def _summary(self, restaurant: Product, date: str, time: str) -> dict[str, Any]:
        summary = {
            "id": restaurant.id,
            "name": restaurant.name,
            "address": restaurant.value("address"),
            "rating": restaurant.value("rating"),
            "cuisine": ", ".join(restaurant.value("cuisines")),
        }
        if self._booked_out(restaurant, date, time):
            counts: dict[str, int] = dict(self._db.rows(_COUNTS, (restaurant.id, date, "")))
            summary["available_slots"] = self._alternates(restaurant, date, time, counts)
        return summary

    def _booked_out(self, restaurant: Product, date: str, time: str) -> bool:
        weekday = WEEKDAYS[dt.date.fromisoformat(date).weekday()]
        return time in self.calendar.get(restaurant.id, {}).get(weekday, [])

    def _free(self, restaurant: Product, date: str, time: str, taken: int, held: dict[str, int] | None = None) -> bool:
        """`held`: the day's held reservations per time, for a table to hold (None: one to keep)."""
        tables = restaurant.value("tables")
        within_share = held is None or held.get(time, 0) < max(1, math.floor(self.hold_share * tables))
        return is_open(restaurant, time) and not self._booked_out(restaurant, date, time) and taken < tables and within_share

    def _alternates(
        self, restaurant: Product, date: str, time: str, counts: dict[str, int], held: dict[str, int] | None = None
    ) -> list[str]:
        """The free slot just before and just after the one asked for (as ["19:00", "21:00"] around 20:00);
        `counts` is the day's reservations per time, `held` those held (for a table to hold)."""
        day = dt.date.fromisoformat(date)
        asked = dt.datetime.combine(day, dt.time.fromisoformat(time))
        found = []
        for step in (-1, 1):
            moment = asked + step * SLOT
            while moment.date() == day and _opens(restaurant) <= moment.time() < _closes(restaurant):
                slot = f"{moment:%H:%M}"
                if self._free(restaurant, date, slot, counts.get(slot, 0), held):
                    found.append(slot)
                    break
                moment += step * SLOT
        return sorted(found)


def _utc(moment: dt.datetime) -> str:
    """UTC ISO text, so that times compare correctly as strings in SQL."""
    return moment.astimezone(dt.UTC).isoformat()


def _lock_days(db: Transaction, restaurant_id: str, dates: set[str], now: dt.datetime) -> None:
    """The restaurant's tables on those days are this transaction's until it ends (locked in one
    order, so two transactions never wait for each other), their lapsed holds given up."""
    for date in sorted(dates):
        db.lock(f"tables:{restaurant_id}:{date}")
        lapsed = [
            row[0]
            for row in db.execute(
                "SELECT h.reservation_id FROM held_until h JOIN reservations r ON r.id = h.reservation_id"
                " WHERE r.restaurant_id = ? AND r.date = ? AND h.expires_at <= ?",
                (restaurant_id, date, _utc(now)),
            ).fetchall()
        ]
        for reservation_id in lapsed:
            db.execute("DELETE FROM reservations WHERE id = ?", (reservation_id,))
            db.execute("DELETE FROM held_until WHERE reservation_id = ?", (reservation_id,))


def in_locality(restaurant: Product, locality: str) -> bool:
    """ "Bandra" covers Bandra West and Bandra East."""
    place: str = restaurant.value("locality").lower()
    asked = locality.lower().strip()
    return place == asked or place.startswith(asked + " ")


def serves(restaurant: Product, cuisine: str) -> bool:
    cuisines = restaurant.value("cuisines")
    return cuisine in cuisines or (cuisine == INDIAN and bool(set(cuisines) - NON_INDIAN))


def is_open(restaurant: Product, time: str) -> bool:
    return _opens(restaurant) <= dt.time.fromisoformat(time) < _closes(restaurant)


def _opens(restaurant: Product) -> dt.time:
    return dt.time.fromisoformat(restaurant.value("opens"))


def _closes(restaurant: Product) -> dt.time:
    return dt.time.fromisoformat(restaurant.value("closes"))


def _missing(**fields: str) -> str | None:
    blank = [name for name, value in fields.items() if not (value or "").strip()]
    return f"missing {', '.join(blank)}" if blank else None


def _bad_when(date: str, time: str, today: dt.date) -> str | None:
    try:
        day, _ = dt.date.fromisoformat(date), dt.time.fromisoformat(time)
    except (TypeError, ValueError):
        return "date must be YYYY-MM-DD and time HH:MM"
    return "date must not be in the past" if day < today else None
