"""The book action: a flow's details, confirmed by a one-time code, become a booking.

The flow engine collects the details (which item, how and where to meet, when, who, which
phone). Once all are valid, a 6-digit code goes to the phone through the notifier; the right
code confirms the booking, sends a confirmation and schedules a reminder. The code itself never
passes through here after it is sent: not into replies, state, logs or prompts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from assistant.booking.codes import CODE_LIKE, Booking, BookingStore, new_booking_id
from assistant.booking.notifications import Notifier, mask_phone
from assistant.booking.reminders import ReminderStore
from assistant.dialogue.flows import FlowEngine, FlowStep, Said, day_words
from assistant.pack.flows import Flow
from assistant.pack.model import Catalog, Product
from assistant.pack.texts import say

BOOKED_AS = ("item", "person", "phone")  # kinds a booking keeps in fields of its own; the rest go in details


class BookingDesk:
    """The pack's flow engine, and the book action's tools: codes, bookings, notices and reminders."""

    def __init__(
        self,
        catalog: Catalog,
        bookings: BookingStore,
        reminders: ReminderStore,
        notifier: Notifier,
        clock: Callable[[], dt.datetime] | None = None,
    ):
        self.catalog = catalog
        self.engine = FlowEngine(catalog)
        self.bookings = bookings
        self.reminders = reminders
        self.notifier = notifier
        self.clock = clock or (lambda: dt.datetime.now(self.engine.zone))

    def step(self, flow_name: str, goal_id: str, slots: dict[str, Any], said: Said, session_id: str) -> FlowStep:
        """The booking's next step: a question, the code sent, or the booking made."""
        flow = self.engine.flow(flow_name)
        now = self.clock().astimezone(self.engine.zone)
        code = CODE_LIKE.search(said.text)
        if slots.get("code_sent") and code:
            return self._confirm(flow, goal_id, slots, code.group(1), now, session_id)
        collected = self.engine.collect(flow_name, slots, said, now)
        if any(slots.get(k) != v for k, v in collected.slots.items()):
            collected.slots["code_sent"] = False  # a changed detail needs a fresh code
        slots = collected.slots
        if collected.missing:
            text = " ".join([*collected.problems, self.engine.summary(flow_name, slots)]).strip()
            return collected.asking(text)
        if slots.get("code_sent") and not self.engine.languages.asks_again(said.text):
            return FlowStep(slots=slots, text=" ".join(collected.problems), question=say(self.catalog, "code_type_it"))
        if flow.confirm == "code":
            return self._send_code(flow_name, goal_id, slots, now)
        return self._book(flow, slots, now, session_id)

    def answers(self, flow_name: str, slots: dict[str, Any], text: str) -> bool:
        """Whether a message answers the booking rather than asking something new: the code
        just sent, or a detail in a form nothing else has."""
        if slots.get("code_sent") and CODE_LIKE.search(text):
            return True
        return self.engine.fills(flow_name, slots, text, self.clock())

    def _send_code(self, flow_name: str, goal_id: str, slots: dict[str, Any], now: dt.datetime) -> FlowStep:
        code = self.bookings.issue_code(goal_id, now)
        if code is None:
            return FlowStep(slots=slots, text=say(self.catalog, "code_too_many"), done=True)
        phone = self._phone(self.engine.flow(flow_name), slots)
        self.notifier.send(phone, say(self.catalog, "code_message", code=code), "otp")
        slots = {**slots, "code_sent": True}
        summary = self.engine.summary(flow_name, slots)
        return FlowStep(
            slots=slots,
            text=say(self.catalog, "code_sent", summary=summary, phone=mask_phone(phone)),
            question=say(self.catalog, "code_ask"),
        )

    def _confirm(self, flow: Flow, goal_id: str, slots: dict[str, Any], code: str, now: dt.datetime, session_id: str) -> FlowStep:
        result = self.bookings.check_code(goal_id, code, now)
        if result == "wrong":
            return FlowStep(slots=slots, text=say(self.catalog, "code_wrong"), question=say(self.catalog, "code_again"))
        if result != "ok":  # expired, locked (third wrong try) or gone: only a new code helps
            return FlowStep(slots=slots, text=say(self.catalog, f"code_{result}"), question=say(self.catalog, "code_resend"))
        return self._book(flow, slots, now, session_id)

    def _book(self, flow: Flow, slots: dict[str, Any], now: dt.datetime, session_id: str) -> FlowStep:
        kinds = {s.slot: s.kind for s in flow.slots()}
        product = self._item(flow, slots)
        assert flow.schedule is not None, "a book flow has a schedule (checked at start-up)"
        plan = flow.schedule
        booking = Booking(
            id=new_booking_id(),
            session_id=session_id,
            product_id=product.id,
            product_name=product.name,
            name=next(slots[s] for s, kind in kinds.items() if kind == "person"),
            phone=self._phone(flow, slots),
            starts_at=self.engine.starts_at(flow, slots),
            details={
                s: slots.get(s) if self.engine.applies(flow.slot(s), slots) else None
                for s, kind in kinds.items()
                if kind not in BOOKED_AS and s not in (plan.date, plan.time)
            },
        )
        self.bookings.save(booking)
        option = self.engine.option(flow, slots, plan.hours_of)
        where = option.confirm.format(**{k: v for k, v in slots.items() if v}) if option and option.confirm else ""
        when = say(self.catalog, "booked_when", day=day_words(booking.starts_at.date()), time=f"{booking.starts_at:%H:%M}")
        facts = {
            "subject": flow.subject,
            "id": booking.id,
            "item": product.name,
            "when": when,
            "where": where,
            "time": f"{booking.starts_at:%H:%M}",
            "phone": mask_phone(booking.phone),
        }
        self.notifier.send(booking.phone, say(self.catalog, "booked_message", **facts), "confirmation")
        before = dt.timedelta(minutes=flow.reminder_minutes_before)
        self.reminders.schedule(
            booking.id, booking.phone, say(self.catalog, "booked_reminder", **facts), booking.starts_at - before
        )
        return FlowStep(
            slots={**slots, "booking_id": booking.id},
            booking=public_booking(booking),
            done=True,
            text=say(self.catalog, "booked", ahead=self._ahead(before), **facts),
        )

    def _ahead(self, before: dt.timedelta) -> str:
        """How long before a reminder comes, in the pack's words ("an hour", "2 hours", "30 minutes")."""
        minutes = int(before.total_seconds() // 60)
        if minutes == 60:
            return say(self.catalog, "ahead_hour")
        if minutes % 60 == 0:
            return say(self.catalog, "ahead_hours", hours=minutes // 60)
        return say(self.catalog, "ahead_minutes", minutes=minutes)

    def _item(self, flow: Flow, slots: dict[str, Any]) -> Product:
        product = self.catalog.product(next(slots[s.slot] for s in flow.slots() if s.kind == "item"))
        assert product is not None, "a bookable item slot only ever holds a catalog item's id"
        return product

    @staticmethod
    def _phone(flow: Flow, slots: dict[str, Any]) -> str:
        return str(next(slots[s.slot] for s in flow.slots() if s.kind == "phone"))


def public_booking(booking: Booking) -> dict[str, Any]:
    """A booking as the response shows it: its details beside its fields, the phone masked."""
    shown = booking.model_dump(mode="json", exclude={"session_id", "phone", "details"})
    return {**shown, **booking.details, "phone": mask_phone(booking.phone)}
