"""The book and reserve actions: a flow's details, confirmed by a one-time code where the flow
asks for one, become a booking, which a later message may change.

The flow engine collects the details (which item, how and where to meet, when, who, which
phone). Once all are valid, a 6-digit code goes to the phone through the notifier; the right
code confirms the booking, sends a confirmation and schedules a reminder. The code itself never
passes through here after it is sent: not into replies, state, logs or prompts. A number changed
after its code was sent gets a code of its own, the old code stops working, and the old number
is told. An hour with as many bookings as the option's capacity is refused before any code is
sent, and again, atomically, when the booking is made; the next free hour is offered. A `reserve`
flow's booking is made by the service a pack's extension provides instead (a concierge's
tables, which its POST /assistant books with). A message that says a detail of a booking anew ("make it 7pm
instead") changes it: the booking, its reminder and a notice of the change, with no new code,
as what is booked and for whom stay as confirmed.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from assistant.booking.codes import Booking, BookingStore, new_booking_id
from assistant.booking.notifications import MessagesCapped, Notifier, NotifyError
from assistant.booking.reminders import ReminderStore
from assistant.dialogue.flows import FlowEngine, FlowStep, shown_values
from assistant.dialogue.said import Said
from assistant.infra.allowance import CODES, Allowances, OverAllowance
from assistant.language.lexicon import WEEKDAYS
from assistant.language.privacy import CODE_LIKE, masked
from assistant.pack.flows import Flow, Option, SlotKind
from assistant.pack.model import Catalog, DataError, FilterValue, Product
from assistant.pack.texts import day_words, say

log = logging.getLogger(__name__)
# Kinds a booking keeps in fields of its own (the rest go in its details): what is booked and
# for whom, which stay as confirmed when it changes.
BOOKED_AS = ("item", "person", "phone")
PROPOSED = "proposed"  # the slot holding a change shown to the customer, until they confirm it
CONFIRMING = "confirm_change"  # what the booking's goal waits for meanwhile
CODE = "code"  # a detail of a booking waiting for its one-time code: the code
LOOK_AHEAD_DAYS = 14  # how far the next free hour is looked for when the one asked for is full


@dataclass(frozen=True)
class Made:
    """A booking as made or changed, and the reply's sentences about it."""

    booking: Booking
    said: str


@dataclass(frozen=True)
class Booked:
    """A booking kept, not yet told to the customer: what its messages say of it."""

    booking: Booking
    facts: dict[str, str]
    ahead: str  # how long before it the reminder comes, in words


@dataclass(frozen=True)
class Refused:
    """Why a booking can't be made as asked, in the pack's words, and the kind of slot to ask
    for again (a closed hour: the time); none: it can't be made at all."""

    why: str
    again: SlotKind | None = None
    unplaced: bool = False  # no hour near the one asked for has room either: people may place it
    kept: bool = False  # a service failed, not the booking: what was asked is kept to try again


class Reserver(Protocol):
    """The `reserve` action: the booking service a pack's extension provides (a concierge's tables)."""

    def reserve(self, booking: Booking, count: int, before: dt.timedelta, now: dt.datetime, changing: bool) -> Made | Refused:
        """Make the booking for `count` (or, `changing`, move the one with its id), confirm it
        and remind `before` it starts; the booking comes back as made."""
        ...

    def refuses(self, booking: Booking, count: int) -> Refused | None:
        """Why the booking can't be had at all as asked, known before anything is held."""
        ...


class BookingDesk:
    """The pack's flow engine, and the booking actions' tools: codes, bookings, notices and reminders."""

    def __init__(
        self,
        catalog: Catalog,
        bookings: BookingStore,
        reminders: ReminderStore,
        notifier: Notifier,
        clock: Callable[[], dt.datetime] | None = None,
        tables: Reserver | None = None,
        allowances: Allowances | None = None,
    ):
        """`tables`: what a `reserve` flow books with (an extension provides it: a concierge's tables);
        `allowances`: the codes each client and session may be sent (none: no cap but the number's)."""
        self.catalog = catalog
        self.engine = FlowEngine(catalog)
        self.bookings = bookings
        self.reminders = reminders
        self.notifier = notifier
        self.clock = clock or (lambda: dt.datetime.now(self.engine.zone))
        self.tables = tables
        self.allowances = allowances
        for name, flow in catalog.pack.flows.items():
            if flow.action == "reserve" and not (tables and flow.schedule and flow.asks_item):
                raise DataError(f"flows.{name} reserves, which needs an item slot, a schedule and an extension that reserves")

    def step(
        self, flow_name: str, goal_id: str, slots: dict[str, Any], said: Said, session_id: str, confirm: bool | None = None
    ) -> FlowStep:
        """The booking's next step: a question, the code sent, or the booking made; for a booking
        made, the change the message asks for shown old -> new, then made once `confirm`ed (or,
        declined, nothing changed)."""
        flow = self.engine.flow(flow_name)
        now = self.clock().astimezone(self.engine.zone)
        if slots.get("booking_id"):
            return self._change(flow_name, slots, said, now) if confirm is None else self._settle_change(flow, slots, confirm, now)
        code = CODE_LIKE.search(said.text)
        if slots.get("code_sent") and code:
            return self._confirm(flow, goal_id, slots, code.group(1), now, session_id)
        collected = self.engine.collect(flow_name, slots, said, now)
        if any(slots.get(k) != v for k, v in collected.slots.items()):
            collected.slots["code_sent"] = False  # a changed detail needs a fresh code
        phone = self._phone_slot(flow)
        if collected.slots.get(phone) != slots.get(phone):
            collected.slots["confirmed"] = False  # a code confirms one number
            if slots.get("code_sent"):
                self._number_changed(flow, goal_id, slots[phone], collected.slots.get(phone))
        slots = collected.slots
        if collected.missing:
            text = " ".join([*collected.problems, self.engine.summary(flow_name, slots)]).strip()
            return collected.asking(text)
        if slots.get("code_sent") and not self.engine.languages.asks_again(said.text):
            return FlowStep(slots=slots, text=" ".join(collected.problems), question=say(self.catalog, "code_type_it"))
        full = self._hour(flow, slots, None) if flow.action == "book" else None
        if full:  # told before a code is spent on it
            return self._refused(flow, slots, full)
        if flow.confirm == "code" and not slots.get("confirmed"):  # a booking refused after its code needs none again
            return self._send_code(flow_name, goal_id, slots, now)
        return self._make(flow, slots, self._booking(flow, slots, new_booking_id(), session_id), now)

    def details(self, flow_name: str, slots: dict[str, Any], text: str) -> set[str]:
        """The details of the booking a message gives: the code just sent ("code"), or the slots
        it fills in a form nothing else has (a date, a phone, an option)."""
        if slots.get("code_sent") and CODE_LIKE.search(text):
            return {CODE}
        return self.engine.filled(flow_name, slots, text, self.clock())

    def said(self, flow: str | Flow, slots: dict[str, Any], text: str, asked: Sequence[str]) -> dict[str, Any]:
        """The values a message gives the flow's slots (the flow engine's reading, nothing kept)."""
        patch, _ = self.engine.read(flow, Said(text=text, asked=asked), asked, slots, self.clock().astimezone(self.engine.zone))
        return {slot: value for slot, value in patch.items() if value is not None}

    def changes(
        self, flow_name: str, slots: dict[str, Any], text: str, filters: dict[str, FilterValue], named: Sequence[str]
    ) -> bool:
        """Whether a message changes the booking these slots made: it says one of its details
        anew (another day, time or head count, or one it can't take), names no other item and
        searches for none (no filters: "north indian for 2" is a search), and asks for no other
        booking ("book another one")."""
        if not slots.get("booking_id") or filters or self.engine.languages.asks_another(text):
            return False
        flow = self.engine.flow(flow_name)
        if any(name != self._item(flow, slots).id for name in named):
            return False
        patch, problems = self.engine.read(flow_name, Said(text=text), (), slots, self.clock().astimezone(self.engine.zone))
        kinds = {s.slot: s.kind for s in flow.slots()}
        said = {slot for slot, value in patch.items() if slots.get(slot) != value} | set(problems)
        return any(kinds[slot] not in BOOKED_AS for slot in said)

    def _change(self, flow_name: str, slots: dict[str, Any], said: Said, now: dt.datetime) -> FlowStep:
        """The change a message asks of the booking made, shown old -> new for the customer to
        confirm (kept in the slots as PROPOSED); what is booked and for whom stay. A detail it
        can't take (a day gone by, a table for 25) changes nothing and says why."""
        flow = self.engine.flow(flow_name)
        made = {k: v for k, v in slots.items() if k != PROPOSED}
        collected = self.engine.collect(flow_name, {**made, **(slots.get(PROPOSED) or {})}, said, now)  # the change so far
        collected.slots.update({s.slot: made[s.slot] for s in flow.slots() if s.kind in BOOKED_AS})
        proposed = {k: v for k, v in collected.slots.items() if made.get(k) != v}
        refused = None if collected.missing or not proposed else self._refuses(flow, collected.slots)
        asking = self._refused(flow, collected.slots, refused) if refused else collected.asking(" ".join(collected.problems))
        if collected.missing or (refused and asking.question):  # a day or time it can't have: asked again, as it was meanwhile
            again = set(asking.missing)
            asking.slots = {**made, PROPOSED: {k: v for k, v in proposed.items() if v is not None and k not in again}}
            return asking
        if refused or collected.problems or not proposed:  # a detail it can't take (a table for 25): nothing changes
            kept = say(self.catalog, "change_kept", subject=flow.subject, id=made["booking_id"], old=self._when(flow, made))
            why = [refused.why] if refused else collected.problems
            return FlowStep(slots=made, text=" ".join([*why, kept]), done=True)
        old, new = self._when(flow, made, proposed), self._when(flow, collected.slots, proposed)
        return FlowStep(
            slots={**made, PROPOSED: proposed},
            missing=[CONFIRMING],
            text=say(self.catalog, "change_shown", subject=flow.subject, id=made["booking_id"], old=old),
            question=say(self.catalog, "change_confirm", new=new),
            choices=[say(self.catalog, "change_yes"), say(self.catalog, "change_no")],
        )

    def _refuses(self, flow: Flow, slots: dict[str, Any]) -> Refused | None:
        """Why a booking made can't move as these slots say, known before it is shown: the hour is
        full, or the place is closed then."""
        if flow.action == "reserve":
            assert self.tables is not None, "a reserve flow runs only where the pack has tables (checked at start-up)"
            count = next(slots[s.slot] for s in flow.slots() if s.kind == "number")
            return self.tables.refuses(self._booking(flow, slots, slots["booking_id"], ""), count)
        return self._hour(flow, slots, None)

    def _settle_change(self, flow: Flow, slots: dict[str, Any], confirm: bool, now: dt.datetime) -> FlowStep:
        """The change shown, made once confirmed; declined, the booking stays as it was."""
        made = {k: v for k, v in slots.items() if k != PROPOSED}
        proposed = slots.get(PROPOSED) or {}
        if not confirm or not proposed:
            kept = say(self.catalog, "change_kept", subject=flow.subject, id=made["booking_id"], old=self._when(flow, made))
            return FlowStep(slots=made, text=kept, done=True)
        changed = {**made, **proposed}
        problems = self.engine.check_schedule(flow, dict(changed), now)  # the time may have gone by meanwhile
        booked = self.bookings.get(made["booking_id"])
        assert booked is not None, "a goal holds the id of the booking it made"
        step = (
            None if problems else self._make(flow, changed, self._booking(flow, changed, booked.id, booked.session_id), now, True)
        )
        if step is None or step.booking is None:  # refused (the hour filled up): what was made stays
            kept = say(self.catalog, "change_kept", subject=flow.subject, id=made["booking_id"], old=self._when(flow, made))
            return FlowStep(slots=made, text=" ".join([*problems, step.text if step else "", kept]).strip(), done=True)
        return step

    def _when(self, flow: Flow, slots: dict[str, Any], changed: Collection[str] = ()) -> str:
        """What a change is about, as the summary says it: when, and every other detail changed."""
        when = {flow.schedule.date, flow.schedule.time} if flow.schedule else set()
        shown = [s for s in flow.slots() if (s.slot in when or s.slot in changed) and self.engine.applies(s, slots)]
        return ", ".join(part for s in shown if (part := self.engine.says(s, slots, flow)))

    def _number_changed(self, flow: Flow, goal_id: str, old: str, new: str | None) -> None:
        """The code sent to the old number stops working, and the old number hears of the change
        (a new number then gets a code of its own)."""
        self.bookings.withdraw_code(goal_id)
        if new:
            notice = say(self.catalog, "code_number_changed", subject=flow.subject, phone=masked(new))
            try:
                self.notifier.send(old, notice, "notice")
            except NotifyError as error:  # the change stands: the old number simply isn't told
                log.warning("number change notice not sent: %s", error)

    def _send_code(self, flow_name: str, goal_id: str, slots: dict[str, Any], now: dt.datetime) -> FlowStep:
        try:  # a client or session asking codes for number after number is pumping messages
            if self.allowances:
                self.allowances.spend(CODES)
        except OverAllowance as over:
            minutes = math.ceil(over.retry_after_s / 60)
            return FlowStep(
                slots=slots, text=say(self.catalog, "codes_capped", minutes=minutes), question=say(self.catalog, "code_retry")
            )
        code = self.bookings.issue_code(goal_id, now)
        if code is None:
            return FlowStep(slots=slots, text=say(self.catalog, "code_too_many"), done=True)
        phone = self._phone(self.engine.flow(flow_name), slots)
        try:
            self.notifier.send(phone, say(self.catalog, "code_message", code=code), "otp")
        except MessagesCapped:
            self.bookings.withdraw_code(goal_id)  # never sent: it must not work
            return FlowStep(
                slots=slots, text=say(self.catalog, "code_capped", phone=masked(phone)), question=say(self.catalog, "code_retry")
            )
        slots = {**slots, "code_sent": True}
        summary = self.engine.summary(flow_name, slots)
        return FlowStep(
            slots=slots,
            text=say(self.catalog, "code_sent", summary=summary, phone=masked(phone)),
            question=say(self.catalog, "code_ask"),
        )

    def _confirm(self, flow: Flow, goal_id: str, slots: dict[str, Any], code: str, now: dt.datetime, session_id: str) -> FlowStep:
        with self.bookings.together():  # the code spent only with the booking made: a machine dying between is neither
            result = self.bookings.check_code(goal_id, code, now)
            if result == "wrong":
                return FlowStep(slots=slots, text=say(self.catalog, "code_wrong"), question=say(self.catalog, "code_again"))
            if result != "ok":  # expired, locked (third wrong try) or gone: only a new code helps
                return FlowStep(slots=slots, text=say(self.catalog, f"code_{result}"), question=say(self.catalog, "code_resend"))
            slots = {**slots, "confirmed": True}
            made = self._keep(flow, slots, self._booking(flow, slots, new_booking_id(), session_id), now)
        return self._told(flow, slots, made)

    def _booking(self, flow: Flow, slots: dict[str, Any], booking_id: str, session_id: str) -> Booking:
        """The booking these slots describe."""
        assert flow.schedule is not None, "a booking flow has a schedule (checked at start-up)"
        kinds = {s.slot: s.kind for s in flow.slots()}
        product = self._item(flow, slots)
        return Booking(
            id=booking_id,
            session_id=session_id,
            product_id=product.id,
            product_name=product.name,
            name=next(slots[s] for s, kind in kinds.items() if kind == "person"),
            phone=self._phone(flow, slots),
            starts_at=self.engine.starts_at(flow, slots),
            details={
                s: slots.get(s) if self.engine.applies(flow.slot(s), slots) else None
                for s, kind in kinds.items()
                if kind not in BOOKED_AS and s not in (flow.schedule.date, flow.schedule.time)
            },
        )

    def _make(self, flow: Flow, slots: dict[str, Any], booking: Booking, now: dt.datetime, changing: bool = False) -> FlowStep:
        """The flow's action on the booking (or, `changing`, on its change), kept in the booking
        store; a refusal asks again for what it names."""
        with self.bookings.together():
            made = self._keep(flow, slots, booking, now, changing)
        return self._told(flow, slots, made, changing)

    def _keep(
        self, flow: Flow, slots: dict[str, Any], booking: Booking, now: dt.datetime, changing: bool = False
    ) -> Made | Booked | Refused:
        """What the booking commits in the store, inside the caller's transaction: reserved (the
        extension's tables tell the customer themselves), or its hour taken, its reminder and itself
        kept, to be told once that is committed."""
        before = dt.timedelta(minutes=flow.reminder_minutes_before)
        if flow.action == "reserve":
            assert self.tables is not None, "a reserve flow runs only where the pack has tables (checked at start-up)"
            count = next(slots[s.slot] for s in flow.slots() if s.kind == "number")
            made: Made | Booked | Refused = self.tables.reserve(booking, count, before, now, changing)
        else:
            made = self._book(flow, slots, booking, before, changing)
        if not isinstance(made, Refused):
            (self.bookings.update if changing else self.bookings.save)(made.booking)
        return made

    def _told(self, flow: Flow, slots: dict[str, Any], made: Made | Booked | Refused, changing: bool = False) -> FlowStep:
        """The step that says what was made (a booking confirmed to the phone now), or why not."""
        if isinstance(made, Refused):
            return self._refused(flow, slots, made)
        if isinstance(made, Booked):
            made = self._tell(made, changing)
        assert flow.schedule is not None, "a booking flow has a schedule (checked at start-up)"
        starts = made.booking.starts_at.astimezone(self.engine.zone)  # the service may have found another time
        slots = {
            **slots,
            flow.schedule.date: f"{starts:%Y-%m-%d}",
            flow.schedule.time: f"{starts:%H:%M}",
            "booking_id": made.booking.id,
        }
        return FlowStep(slots=slots, booking=public_booking(made.booking), done=True, text=made.said)

    def _refused(self, flow: Flow, slots: dict[str, Any], refused: Refused) -> FlowStep:
        """Why it can't be booked, and the question for the slot it names again (none: the end, and
        a booking nobody placed)."""
        again = next((s.slot for s in flow.slots() if s.kind == refused.again), None)
        if again is None:
            return FlowStep(slots=slots, text=refused.why, done=True, unplaced=True)
        step = self.engine.ask(flow, {**slots, again: None}).asking(refused.why)
        step.unplaced = refused.unplaced
        return step

    def _hour(self, flow: Flow, slots: dict[str, Any], booking_id: str | None) -> Refused | None:
        """Whether the hour the slots ask for has room for one more booking of the chosen option
        (per value of the slots asked only for it: per branch), or for `booking_id`, which then
        takes it atomically (giving up the hour it had); full: the next free hour offered."""
        assert flow.schedule is not None, "a book flow has a schedule (checked at start-up)"
        hours_of = flow.schedule.hours_of
        option = self.engine.option(flow, slots, hours_of)
        if option is None:
            return None
        resource = ";".join(
            f"{s.slot}={slots[s.slot]}"
            for s in flow.slots()
            if s.slot == hours_of or (hours_of in s.if_ and self.engine.applies(s, slots))
        )
        starts = self.engine.starts_at(flow, slots)
        hour, capacity = _hour_of(starts), option.capacity
        if booking_id is not None:
            room = self.bookings.claim(booking_id, resource, hour, capacity)
        else:
            room = capacity is None or self.bookings.taken(resource, hour).get(hour, 0) < capacity
        if room:
            return None
        assert capacity is not None, "only a capacity fills an hour"
        free = _next_free(option, capacity, self.bookings.taken(resource, hour), starts)
        asked = {"what": option.choice, "day": day_words(starts.date(), self.catalog), "time": f"{starts:%H:%M}"}
        if free is None:
            return Refused(say(self.catalog, "flow_full_ahead", days=LOOK_AHEAD_DAYS, **asked), again="date", unplaced=True)
        free_when = say(self.catalog, "booked_when", day=day_words(free.date(), self.catalog), time=f"{free:%H:%M}")
        return Refused(
            say(self.catalog, "flow_full", free=free_when, **asked), again="time" if free.date() == starts.date() else "date"
        )

    def _book(self, flow: Flow, slots: dict[str, Any], booking: Booking, before: dt.timedelta, changing: bool) -> Booked | Refused:
        """The `book` action's records: the booking's hour taken (or, `changing`, moved) and its reminder."""
        assert flow.schedule is not None, "a book flow has a schedule (checked at start-up)"
        full = self._hour(flow, slots, booking.id)
        if full:
            return full
        option = self.engine.option(flow, slots, flow.schedule.hours_of)
        where = option.confirm.format(**shown_values(flow, slots)) if option and option.confirm else ""
        when = say(
            self.catalog, "booked_when", day=day_words(booking.starts_at.date(), self.catalog), time=f"{booking.starts_at:%H:%M}"
        )
        facts = {
            "subject": flow.subject,
            "id": booking.id,
            "item": booking.product_name,
            "when": when,
            "where": where,
            "time": f"{booking.starts_at:%H:%M}",
            "phone": masked(booking.phone),
        }
        if changing:  # a changed booking's reminder moves with it
            self.reminders.cancel(booking.id)
        self.reminders.schedule(
            booking.id, booking.phone, say(self.catalog, "booked_reminder", **facts), booking.starts_at - before
        )
        return Booked(booking, facts, ahead_words(self.catalog, before))

    def _tell(self, booked: Booked, changing: bool) -> Made:
        """The booking confirmed to the phone, once it is kept (a message can't be taken back)."""
        reply, message = ("booked_changed", "booked_changed_message") if changing else ("booked", "booked_message")
        facts, ahead = booked.facts, booked.ahead
        try:
            self.notifier.send(booked.booking.phone, say(self.catalog, message, **facts), "confirmation")
            sent = say(self.catalog, f"{reply}_sent", ahead=ahead, **facts)
        except MessagesCapped:  # booked all the same: the code to this number was just typed
            sent = say(self.catalog, "booked_capped", ahead=ahead, **facts)
        return Made(booked.booking, say(self.catalog, reply, ahead=ahead, sent=sent, **facts))

    def _item(self, flow: Flow, slots: dict[str, Any]) -> Product:
        product = self.catalog.product(next(slots[s.slot] for s in flow.slots() if s.kind == "item"))
        assert product is not None, "a bookable item slot only ever holds a catalog item's id"
        return product

    @staticmethod
    def _phone_slot(flow: Flow) -> str:
        return next(s.slot for s in flow.slots() if s.kind == "phone")

    def _phone(self, flow: Flow, slots: dict[str, Any]) -> str:
        return str(slots[self._phone_slot(flow)])


def _hour_of(moment: dt.datetime) -> str:
    """The hour a booking takes, as the bookings store counts them: "2026-11-24T17"."""
    return f"{moment:%Y-%m-%dT%H}"


def _next_free(option: Option, capacity: int, taken: dict[str, int], after: dt.datetime) -> dt.datetime | None:
    """The start of the first hour after `after`'s within LOOK_AHEAD_DAYS that the option is
    open in (from its opening, if that falls inside the hour) and that has room."""
    hour = after.replace(minute=0, second=0, microsecond=0)
    for _ in range(LOOK_AHEAD_DAYS * 24):
        hour += dt.timedelta(hours=1)
        opens, closes = option.hours.get(WEEKDAYS[hour.weekday()], (None, None)) if option.hours else (dt.time(0), dt.time.max)
        if opens is None or closes is None:
            continue
        start = max(hour, hour.replace(hour=opens.hour, minute=opens.minute))
        if start.hour == hour.hour and start.time() < closes and taken.get(_hour_of(start), 0) < capacity:
            return start
    return None


def ahead_words(catalog: Catalog, before: dt.timedelta) -> str:
    """How long before a reminder comes, in the pack's words ("an hour", "2 hours", "30 minutes")."""
    minutes = int(before.total_seconds() // 60)
    if minutes == 60:
        return say(catalog, "ahead_hour")
    if minutes % 60 == 0:
        return say(catalog, "ahead_hours", hours=minutes // 60)
    return say(catalog, "ahead_minutes", minutes=minutes)


def public_booking(booking: Booking) -> dict[str, Any]:
    """A booking as the response shows it: its details beside its fields, the phone masked."""
    shown = booking.model_dump(mode="json", exclude={"session_id", "phone", "details"})
    return {**shown, **booking.details, "phone": masked(booking.phone)}
