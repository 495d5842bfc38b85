"""A table reserved, confirmed by message and reminded: the one way both POST /assistant and the
chat book a table (a flow's `reserve` action).

The concierge's plan runs the steps one at a time, since each can fail apart (the message
gateway down, a reminder already past) and the plan goes on from there; the chat's booking desk
runs them together (`reserve`), and moves a table it booked the same way. Either way a fully
booked time takes the earliest free one near it and says so, a closed hour is asked again, the
confirmation goes out with one retry (none for a number that has had too many messages), the
reservation's reminder replaces any earlier one, and every sentence is the pack's. What the
reservation service says about a refusal is for the log. A table may be held only until a time
(while a guest's number is confirmed), then kept.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from assistant.booking.codes import Booking
from assistant.booking.desk import Made, Refused, ahead_words
from assistant.language.privacy import masked
from assistant.pack.model import Catalog, DataError, Product
from assistant.pack.texts import day_words, say
from extensions.restaurants.calls import Unreachable
from extensions.restaurants.data import setup_of
from extensions.restaurants.services import MAX_GUESTS, TOO_MANY, ConciergeServices, is_open

log = logging.getLogger("assistant.concierge")
Channel = Literal["sms", "whatsapp"]


class Table(BaseModel):
    """A table as asked for."""

    restaurant_id: str
    date: str  # YYYY-MM-DD
    time: str  # HH:MM
    guests: int
    name: str
    phone: str  # E.164


class Reservation(BaseModel):
    """A table the reservation service holds (the `reservation` of POST /assistant's answer)."""

    reservation_id: str
    date: str
    time: str
    table_number: str
    status: Literal["confirmed"] = "confirmed"

    def starts(self, zone: ZoneInfo) -> dt.datetime:
        return dt.datetime.combine(dt.date.fromisoformat(self.date), dt.time.fromisoformat(self.time), tzinfo=zone)


class Notification(BaseModel):
    message_id: str
    status: Literal["sent"] = "sent"


class Reminder(BaseModel):
    reminder_id: str
    scheduled_for: str  # local time, YYYY-MM-DDTHH:MM
    status: Literal["scheduled"] = "scheduled"


@dataclass(frozen=True)
class Held:
    """A reserved table, and what the customer should know of how it was got (another time)."""

    reservation: Reservation
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class NotSent:
    """The table is booked, but its confirmation could not be sent: said so, in the pack's words."""

    why: str


class Tables:
    """Reserve, confirm and remind over the concierge's services."""

    def __init__(self, catalog: Catalog, services: ConciergeServices):
        self.catalog = catalog
        self.services = services
        self.channel: Channel = setup_of(catalog).default_channel
        self.zone = ZoneInfo(catalog.business.timezone)
        flows = {"extensions.restaurants.flow": setup_of(catalog).flow}
        flows |= {f"flows.{name}": flow for name, flow in catalog.pack.flows.items() if flow.action == "reserve"}
        wider = [
            f"{where}.{s.slot}" for where, f in flows.items() for s in f.slots() if s.kind == "number" and not _within(s.range)
        ]
        if wider:  # the flow would take a head count the service refuses
            raise DataError(f"{', '.join(wider)}: a head count needs a range within the reservation service's 1-{MAX_GUESTS}")

    def hold(self, table: Table, now: dt.datetime, moving: str | None = None, until: dt.datetime | None = None) -> Held | Refused:
        """The table as asked for, or at the earliest free time near it (noted); `moving`: the
        reservation to move there rather than make a new one (if nothing is free, it stays);
        `until`: held only till then unless kept."""
        restaurant, closed = self._restaurant(table), self._closed(table.restaurant_id, table.time)
        if closed:
            return closed

        def at(time: str) -> dict[str, Any] | Unreachable:
            if moving:
                return self.services.call(
                    "reservation", lambda: self.services.move_table(moving, table.date, time, table.guests, now=now)
                )
            return self.services.call(
                "reservation",
                lambda: self.services.reserve_table(
                    table.restaurant_id, table.date, time, table.guests, table.name, table.phone, now=now, until=until
                ),
            )

        time, answer, notes = table.time, at(table.time), []
        if not isinstance(answer, Unreachable) and answer.get("status") == "no_availability" and answer.get("alternate_slots"):
            time = min(answer["alternate_slots"])
            notes.append(say(self.catalog, "concierge_alternate", asked=table.time, earliest=time))
            answer = at(time)
        if isinstance(answer, Unreachable):
            return Refused(self.unreachable(answer, now), kept=True)
        if answer.get("status") == "confirmed":
            reservation = Reservation(
                reservation_id=answer["reservation_id"], date=table.date, time=time, table_number=answer["table_number"]
            )
            return Held(reservation, notes)
        log.warning("no table: %s", answer.get("error_message") or answer.get("details"))
        if answer.get("status") == "no_availability":
            return Refused(
                say(self.catalog, "concierge_full", place=restaurant.name, day=day_of(table.date, self.catalog), time=time),
                again="time",
            )
        return Refused(say(self.catalog, "concierge_not_booked"))

    def refuses(self, booking: Booking, count: int) -> Refused | None:
        """The booking desk's check before a change is shown: the place is closed at the time asked."""
        return self._closed(booking.product_id, f"{booking.starts_at.astimezone(self.zone):%H:%M}")

    def _closed(self, restaurant_id: str, time: str) -> Refused | None:
        restaurant = self.catalog.product(restaurant_id)
        if restaurant is None or is_open(restaurant, time):
            return None
        opens, closes = restaurant.value("opens"), restaurant.value("closes")
        return Refused(say(self.catalog, "concierge_closed", place=restaurant.name, opens=opens, closes=closes), again="time")

    def keep(self, reservation: Reservation, now: dt.datetime) -> bool:
        """A held table kept for good; False when its time ran out (the table may be gone)."""
        return self.services.keep_table(reservation.reservation_id, now)

    def confirm(self, table: Table, reservation: Reservation, channel: Channel, moved: bool = False) -> Notification | NotSent:
        """The confirmation (of a move, when `moved`) on the customer's channel, retried once."""
        restaurant = self._restaurant(table)
        text = say(
            self.catalog,
            "concierge_changed" if moved else "concierge_confirmation",
            guests=table.guests,
            place=restaurant.name,
            address=restaurant.value("address"),
            day=day_of(reservation.date, self.catalog),
            time=reservation.time,
            table=reservation.table_number,
            reservation=reservation.reservation_id,
        )
        sent = self.services.call("gateway", lambda: self.services.send_message(table.phone, text, channel))
        if isinstance(sent, Unreachable):
            why = "concierge_not_sent" if sent.why == "down" else "concierge_gateway_trouble"
            return NotSent(say(self.catalog, why, reservation=reservation.reservation_id, channel=channel))
        if sent.get("status") == "sent":
            return Notification(message_id=sent["message_id"])
        log.warning("confirmation not sent: %s", sent.get("error_message"))
        if sent.get("error") == TOO_MANY:  # no retry: it would only count against the number again
            return NotSent(say(self.catalog, "concierge_capped", reservation=reservation.reservation_id, phone=masked(table.phone)))
        return NotSent(say(self.catalog, "concierge_not_sent", reservation=reservation.reservation_id, channel=channel))

    def unreachable(self, gone: Unreachable, now: dt.datetime) -> str:
        """What the customer hears of a service given up on: a time to try again when it is busy;
        otherwise that a person takes over (credentials refused are the operators' problem, never named)."""
        if gone.why == "busy":
            again = now.astimezone(self.zone) + dt.timedelta(seconds=gone.wait_s)
            return say(self.catalog, "concierge_busy", minutes=max(1, round(gone.wait_s / 60)), time=f"{again:%H:%M}")
        return say(self.catalog, "concierge_handed_over")

    def remind(self, user_id: str, table: Table, reservation: Reservation, at: dt.datetime, now: dt.datetime) -> Reminder | None:
        """The reservation's reminder at `at`, in place of any earlier one; None when `at` has passed."""
        restaurant = self._restaurant(table)
        self.services.reminders.cancel(reservation.reservation_id)
        text = say(self.catalog, "concierge_reminder_message", place=restaurant.name, time=reservation.time)
        scheduled = self.services.schedule_reminder(user_id, at, text, table.phone, reservation.reservation_id, now)
        if scheduled.get("status") != "scheduled":
            return None
        return Reminder(reminder_id=scheduled["reminder_id"], scheduled_for=scheduled["scheduled_for"])

    def reserve(self, booking: Booking, guests: int, before: dt.timedelta, now: dt.datetime, changing: bool) -> Made | Refused:
        """The booking desk's `reserve` action: the chat's booking (or a change to it) as a table,
        confirmed and reminded `before` it starts; the booking comes back as reserved."""
        asked = booking.starts_at.astimezone(self.zone)
        table = Table(
            restaurant_id=booking.product_id,
            date=f"{asked:%Y-%m-%d}",
            time=f"{asked:%H:%M}",
            guests=guests,
            name=booking.name,
            phone=booking.phone,
        )
        held = self.hold(table, now, moving=booking.id if changing else None)
        if isinstance(held, Refused):
            return held
        reservation, starts = held.reservation, held.reservation.starts(self.zone)  # perhaps another time than asked
        sent = self.confirm(table, reservation, self.channel, moved=changing)
        reminded = self.remind(booking.session_id, table, reservation, starts - before, now)
        facts = {
            "guests": guests,
            "place": booking.product_name,
            "day": day_of(reservation.date, self.catalog),
            "time": reservation.time,
            "reservation": reservation.reservation_id,
            "table": reservation.table_number,
        }
        said = [
            *held.notes,
            say(self.catalog, "concierge_chat_changed" if changing else "concierge_chat_booked", **facts),
            sent.why if isinstance(sent, NotSent) else say(self.catalog, "concierge_sent", phone=masked(table.phone)),
            say(self.catalog, "concierge_reminding", ahead=ahead_words(self.catalog, before)) if reminded else "",
        ]
        made = booking.model_copy(
            update={
                "id": reservation.reservation_id,
                "starts_at": starts,
                "details": {**booking.details, "table": reservation.table_number},
            }
        )
        return Made(made, " ".join(s for s in said if s))

    def _restaurant(self, table: Table) -> Product:
        restaurant = self.catalog.product(table.restaurant_id)
        assert restaurant is not None, "a table is at a restaurant of the catalog"
        return restaurant


def _within(limits: tuple[int, int] | None) -> bool:
    return limits is not None and 1 <= limits[0] and limits[1] <= MAX_GUESTS


def day_of(iso: str, catalog: Catalog) -> str:
    """A reservation's day as the concierge says it: "Saturday 28 November"."""
    return day_words(dt.date.fromisoformat(iso), catalog, year=False)
