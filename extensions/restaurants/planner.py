"""The one-instruction concierge: one instruction in, a booked table, a message and a reminder out.

A plan per user_id runs the steps in order: search, reserve, confirm by message, and
schedule the reminder if one was asked for. What is missing is asked for, one question at a
time (`ask_user`), and the next instruction from that user continues the same plan. Failures
take fallbacks: no restaurant found suggests other localities; a fully booked slot
takes the earliest alternate and says so; a failed message is retried once; a reminder in the
past asks for a valid time. Plans live in SQLite and are locked per user, so concurrent
requests never mix users' state.

A guest's number is confirmed with a one-time code (the booking desk's) before anything but the
code is sent to it: their table is held only as long as the code lives, and kept once the code
is typed. A registered member, known by a verified token, is not asked. An instruction retried
as it was said, once it has reserved a table, gets the same answer again, not a second table.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import re
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from assistant.booking.codes import BookingStore
from assistant.booking.desk import Refused
from assistant.dialogue.flows import FlowEngine
from assistant.dialogue.said import Said
from assistant.dialogue.sessions import SessionLocks
from assistant.infra.allowance import CODES, HOLDS, Allowances
from assistant.infra.config import CODE_TTL
from assistant.infra.database import Database
from assistant.language import blank, phrases
from assistant.language.phones import PHONE_LIKE, e164
from assistant.language.privacy import CODE_LIKE, masked, redact_codes
from assistant.pack.flows import Flow
from assistant.pack.model import Catalog, DataError, Product
from assistant.pack.texts import day_words, say
from assistant.understanding.nlu import DONTCARE, SchemaUnderstanding
from assistant.understanding.reader import normalise
from extensions.restaurants.calls import Unreachable
from extensions.restaurants.data import ConciergeSetup, setup_of
from extensions.restaurants.services import INDIAN, TOO_MANY, in_locality, is_open, serves
from extensions.restaurants.tables import Notification, NotSent, Reminder, Reservation, Table, Tables, day_of

log = logging.getLogger("assistant.concierge")
WHO = ("person", "phone")  # slot kinds asked for once a table is found
SEARCH = ("city", "locality", "cuisine", "date", "time", "restaurant_id")
WHERE = ("city", "locality", "cuisine", "restaurant_id")  # another of these is another table, not a change
MOVES = ("date", "time", "guests")  # what a change moves a table booked to
BOOK = "ReserveRestaurant"  # the schema's intent for booking a table (data/restaurants/schema.json)
FROM_SCHEMA = {
    "city": "city",
    "locality": "locality",
    "cuisine": "cuisine",
    "restaurant_name": "restaurant_id",
    "date": "date",
    "time": "time",
    "party_size": "guests",
}  # the schema's slot -> the plan's


class Plan(BaseModel):
    """One user's request in progress: what is known, what each step returned, what was asked."""

    id: str = Field(default_factory=lambda: secrets.token_hex(8))  # names its one-time code
    slots: dict[str, Any] = {}
    restaurant: dict[str, Any] | None = None
    reservation: Reservation | None = None
    notification: Notification | None = None
    reminder: Reminder | None = None
    notes: list[str] = []
    asking: str | None = None
    done: bool = False
    code_to: str | None = None  # the number a code went to and is awaited from
    code_paid: bool = False  # the next code was counted with the table held for it (`_reserve`)
    confirmed: str | None = None  # the number the code confirmed
    first_said: str | None = None  # the instruction that opened the plan, and the last one, as read (`_retried`)
    last_said: str | None = None
    answer: dict[str, Any] | None = None  # the answer that finished it
    reserved: Table | None = None  # the table its reservation holds, as reserved or last moved
    changing: bool = False  # its booked table is being, or was, moved: the messages say so
    made: Plan | None = None  # the table booked last, which a change still moves while this plan names no place

    def committed(self) -> bool:
        """Whether its table is booked for good (confirmed, or being moved), so that a change
        moves it and nothing else may lose it."""
        return self.reserved is not None and (self.notification is not None or self.changing)

    def booked(self) -> tuple[Table, Reservation]:
        """The table and its reservation, which every step after reserving needs."""
        assert self.restaurant is not None and self.reservation is not None, "a step ran before the table was reserved"
        return self.table(), self.reservation

    def table(self) -> Table:
        """The table asked for, once a restaurant is chosen and the customer is known."""
        assert self.restaurant is not None, "a table is asked for at the restaurant the search chose"
        keys = ("date", "time", "guests", "name", "phone")
        return Table(restaurant_id=self.restaurant["id"], **{key: self.slots[key] for key in keys})


class Concierge:
    def __init__(
        self,
        catalog: Catalog,
        tables: Tables,
        db: Database,
        locks: SessionLocks,
        members: dict[str, dict[str, str]],
        reader: ServiceReader,
        allowances: Allowances,
        clock: Callable[[], dt.datetime] | None = None,
    ):
        self.catalog = catalog
        self.tables = tables
        self.services = tables.services
        self.locks = locks
        self.members = members
        self.zone = ZoneInfo(catalog.business.timezone)
        self.clock = clock or (lambda: dt.datetime.now(self.zone))
        self.languages = catalog.languages
        self._plans = db
        self.codes = BookingStore(db)  # the booking desk's one-time codes
        self.reader = reader
        self.allowances = allowances
        self.engine = FlowEngine(catalog)
        self._channels = {name: phrases(said) for name, said in self.setup.channels.items()}
        self._booking = phrases(catalog.vocabulary.intents.get("booking", []))

    @property
    def setup(self) -> ConciergeSetup:
        """The pack's concierge in the reply's language (its questions)."""
        return setup_of(self.catalog)

    @property
    def flow(self) -> Flow:
        return self.setup.flow

    def handle(self, user_id: str, instruction: str, *, member: bool = False) -> dict[str, Any]:
        """One instruction of `user_id`'s plan. `member`: the id comes from a verified token, so the
        registered member's name and phone are used. A guest's id only names their own plan, kept
        apart from any member's, so knowing a member's id reaches neither their data nor their plan.
        The instruction that opened the plan, or the last one, sent again (a client's retry) goes on
        with the same plan, and once that plan has its table gets the same answer."""
        key = f"{'member' if member else 'guest'}:{user_id}"
        with self.locks.lock(f"concierge:{key}"):
            row = self._plans.one("SELECT body FROM concierge_plans WHERE user_id=?", (key,))
            plan = Plan.model_validate_json(row[0]) if row else Plan()
            now = self.clock().astimezone(self.zone)
            said = self.read(instruction, now, plan)
            retried = _retried(instruction, said)
            again = retried in (plan.first_said, plan.last_said)  # sent again: the same request, not a new one
            if again and plan.done and plan.reservation is not None and plan.answer is not None:
                return plan.answer  # its table, not a second one
            plan = self._going_on(plan, instruction, said, again)
            known = self.members.get(user_id, {}) if member else None
            answer = self._advance(plan, key, known, instruction, said, now)
            plan.first_said, plan.last_said = plan.first_said or retried, retried
            if plan.done:
                plan.answer = answer
            self._plans.write(
                "INSERT INTO concierge_plans VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET body=excluded.body",
                (key, plan.model_dump_json()),
            )
            return answer

    def _going_on(self, plan: Plan, instruction: str, said: dict[str, Any], again: bool) -> Plan:
        """The plan an instruction goes on with. A change of the table booked last ("make it
        Saturday, same time") reopens its plan, which moves it and keeps everything else; a new
        request, another place for a booked table, or anything once a plan is done starts a new
        plan, which keeps who the customer is and the table booked last, for a change to move
        until the new plan names a place of its own. Anything else goes on with the plan."""
        booked = plan if plan.committed() else plan.made
        if booked and (booked is plan or not any(plan.slots.get(k) for k in WHERE)) and self._changes(booked, instruction, said):
            booked.done, booked.answer, booked.made = False, None, None
            return booked
        elsewhere = booked is plan and not self._keeps_place(plan, said)
        if plan.done or elsewhere or (not again and self._new_request(instruction, said)):
            who = {key: plan.slots[key] for key in ("name", "phone") if plan.slots.get(key)}
            return Plan(slots=who, made=_settled(booked) if booked else None)
        return plan

    def _changes(self, booked: Plan, instruction: str, said: dict[str, Any]) -> bool:
        """Whether an instruction changes the table booked: it asks for a change ("move it",
        "instead", "badal do") of its day, time or party size, at the same place. A question
        that names a day ("are you open on Sunday?") changes nothing."""
        return (
            self.languages.asks_change(instruction)
            and not self.languages.asks_another(instruction)
            and any(key in said for key in MOVES)
            and self._keeps_place(booked, said)
        )

    def _keeps_place(self, plan: Plan, said: dict[str, Any]) -> bool:
        """Whether what was said leaves the plan's restaurant as it is: none other named, nor
        another city, area or cuisine it doesn't have."""
        assert plan.restaurant is not None, "a plan with a table has its restaurant"
        restaurant = self.catalog.product(plan.restaurant["id"])
        assert restaurant is not None, "a table is at a restaurant of the catalog"
        return said.get("restaurant_id") in (None, restaurant.id) and _there(restaurant, said)

    def _advance(
        self, plan: Plan, key: str, known: dict[str, str] | None, instruction: str, said: dict[str, Any], now: dt.datetime
    ) -> dict[str, Any]:
        """Take in what the instruction said, then run the plan's next steps as far as they go:
        the answer, a question, or an error. A changed search detail means searching again.
        `known`: a member's name and phone; None: a guest, whose number a code confirms."""
        if plan.reservation is None and any(plan.slots.get(k) not in (None, v) for k, v in said.items() if k in SEARCH):
            plan.restaurant = None
        if plan.reservation and not plan.committed() and not self._keeps_place(plan, said):
            plan.reservation = plan.reserved = plan.restaurant = None  # a table held elsewhere: its hold lapses
        plan.slots.update(said)
        self._fit(plan.slots, said)
        for field in ("name", "phone"):
            plan.slots[field] = plan.slots.get(field) or (known or {}).get(field)
        for slot in self.flow.slots():  # a table for 25: asked again, in the pack's words
            why = self.engine.refused(slot, plan.slots.get(slot.slot))
            if why:
                plan.slots[slot.slot] = None
                return self._ask(plan, [slot.slot], why)
        searching = [slot for slot in self.engine.missing(self.flow, plan.slots) if self.flow.slot(slot).kind not in WHO]
        if searching:
            return self._ask(plan, searching)
        if plan.slots["date"] < now.date().isoformat():  # "1 January 2020": the day said, and asked again
            passed, plan.slots["date"] = day_words(dt.date.fromisoformat(plan.slots["date"]), self.catalog), None
            return self._ask(plan, ["date"], say(self.catalog, "concierge_date_passed", day=passed))
        if plan.restaurant is None:
            found = self._search(plan, now)
            if "ask_user" in found or "error" in found:
                return found
        who = self.engine.missing(self.flow, plan.slots)
        if who:  # asked once a table is found
            return self._ask(plan, who)
        guest = known is None and plan.confirmed != plan.slots["phone"]
        if plan.reservation is None:
            failed = self._reserve(plan, now, now + CODE_TTL if guest else None)
            if failed:
                return failed
        elif plan.reserved and plan.reserved != plan.table():
            failed = self._move(plan, now)
            if failed:
                return failed
            if guest and plan.code_to == plan.slots["phone"]:  # the table now held, and the code still to type
                return self._ask_code(plan, self._holding(plan))
        if guest:
            asked = self._confirm_number(plan, key, instruction, now)
            if asked:
                return asked
            if not self.tables.keep(plan.booked()[1], now):  # held past its time: reserved again
                plan.reservation = None
                failed = self._reserve(plan, now)
                if failed:
                    return failed
        if plan.notification is None:
            failed = self._notify(plan)
            if failed:
                return failed
        if plan.slots.get("remind") and plan.reminder is None:
            asked = self._remind(plan, key, now)
            if asked:
                return asked
        plan.done, plan.asking = True, None
        return self._result(plan)

    def read(self, instruction: str, now: dt.datetime, plan: Plan) -> dict[str, Any]:
        """The details an instruction gives; the reminder's clause ("... and remind me at 7") and
        how long ahead it asks ("an hour before", "ek ghanta pehle") are read apart from the booking's."""
        text = self.languages.digits(instruction)
        lead = self.languages.reminder_lead(text)
        cut = self.languages.reminder_start(text)
        booking, reminder = (text[:cut], text[cut:]) if cut is not None else (text, "")
        booking = blank(booking, lead)
        clean = normalise(booking)
        found = self.reader.read(booking, now.date())
        if plan.asking == "guests" and "guests" not in found and re.fullmatch(r"\d{1,2}", clean):
            found["guests"] = int(clean)
        channel = next((name for name, said in self._channels.items() if said.search(instruction)), None)
        if channel:
            found["channel"] = channel
        phones = [(m, e164(m[0], self.catalog.business)) for m in PHONE_LIKE.finditer(instruction)]
        phone = next(((m, number) for m, number in phones if number), None)
        if phone:  # the first run of digits that is a phone number in the business's country
            found["phone"] = phone[1]
        name = self.languages.person(
            instruction, self.catalog.vocabulary.words.__contains__, ending_at=phone[0].start() if phone else None
        )
        if name:
            found["name"] = name
        if reminder or plan.asking == "reminder":
            found.update(
                {"remind": True, "remind_before_min": int(lead.value), "remind_time": None}
                if lead
                else self._read_reminder(reminder or instruction, now)
            )
        return found

    def _read_reminder(self, text: str, now: dt.datetime) -> dict[str, Any]:
        """A reminder at a time ("at 7 pm"), on the reservation's day unless another is named."""
        when = self.languages.parse_when(text, now)
        if when.time:
            return {
                "remind": True,
                "remind_time": f"{when.time:%H:%M}",
                "remind_before_min": None,
                "remind_date": when.date.isoformat() if when.date else None,
            }
        return {"remind": True}

    def _ask(self, plan: Plan, missing: list[str], why: str = "") -> dict[str, Any]:
        """The flow engine's next question for what is missing, after why it is asked."""
        asked = self.engine.asked(self.flow, missing)
        plan.asking = asked[0]
        question, _ = self.engine.question(self.flow, asked, Said(text=""))
        city = self.catalog.pack.attributes["city"].words(plan.slots.get("city") or "")
        return {"ask_user": f"{why} {(question or '').format(city=city)}".strip()}

    def _ask_reminder(self, plan: Plan, why: str) -> dict[str, Any]:
        plan.asking = "reminder"
        return {"ask_user": f"{why} {say(self.catalog, 'concierge_reminder')}"}

    def _search(self, plan: Plan, now: dt.datetime) -> dict[str, Any]:
        slots = plan.slots
        found = self.services.call(
            "search",
            lambda: self.services.search_restaurant(
                slots["city"], slots["locality"], slots["cuisine"], slots["date"], slots["time"], now.date()
            ),
        )
        if isinstance(found, Unreachable):  # the plan is kept: the next message tries again
            return {"error": f"search_{found.why}", "details": self.tables.unreachable(found, now)}
        if "error" in found:  # the service's words are for the log; the customer's are the pack's
            log.warning("search failed: %s", found["details"])
            return {"error": "search_failed", "details": say(self.catalog, "concierge_not_booked")}
        choices = found["restaurants"]
        if slots.get("restaurant_id"):  # the one the customer named, booked out or not
            choices = [r for r in choices if r["id"] == slots["restaurant_id"]] or choices
        else:  # the best rated that is free at that time, before one that would need another time
            choices = sorted(choices, key=lambda r: "available_slots" in r)
        if not choices:  # nothing matched: suggest another area, else another cuisine, else another time
            return self._suggest(plan)
        plan.restaurant = {key: choices[0][key] for key in ("id", "name", "address", "rating")}
        return {}

    def _confirm_number(self, plan: Plan, key: str, instruction: str, now: dt.datetime) -> dict[str, Any] | None:
        """A guest's number confirmed by the code sent to it (None once it is); until then, the
        code sent (again when asked, or to a number given anew) and asked for."""
        phone, goal = plan.slots["phone"], f"concierge:{key}:{plan.id}"
        typed = CODE_LIKE.search(instruction)
        if plan.code_to == phone and typed:
            checked = self.codes.check_code(goal, typed.group(1), now)
            if checked == "ok":
                plan.confirmed, plan.code_to = phone, None
                return None
            again = "code_again" if checked == "wrong" else "code_resend"  # expired, locked or gone: only a new code helps
            return self._ask_code(plan, f"{say(self.catalog, f'code_{checked}')} {say(self.catalog, again)}")
        if plan.code_to == phone and not self.languages.asks_again(instruction):
            return self._ask_code(plan, say(self.catalog, "code_type_it"))
        if not plan.code_paid:  # a code for anything but a table just held: counted now (OverAllowance: none sent)
            self.allowances.spend(CODES)
        if plan.code_to and plan.code_to != phone:  # the old number's code stops working, and it is told
            self.codes.withdraw_code(goal)
            notice = say(self.catalog, "code_number_changed", subject=self.flow.subject, phone=masked(phone))
            self.services.call("gateway", lambda: self.services.send_message(plan.code_to or "", notice, "notice"))
        plan.code_to, plan.code_paid = None, False
        code = self.codes.issue_code(goal, now)
        if code is None:
            plan.done = True
            return {"error": "verification_failed", "details": say(self.catalog, "code_too_many")}
        sent = self.services.call(
            "gateway", lambda: self.services.send_message(phone, say(self.catalog, "code_message", code=code), "otp")
        )
        if isinstance(sent, Unreachable) or sent.get("status") != "sent":
            self.codes.withdraw_code(goal)  # never sent: it must not work
            capped = not isinstance(sent, Unreachable) and sent.get("error") == TOO_MANY
            why = "code_capped" if capped else "concierge_code_not_sent"
            return {"error": "code_not_sent", "details": say(self.catalog, why, phone=masked(phone))}
        plan.code_to = phone
        return self._ask_code(plan, self._holding(plan))

    def _holding(self, plan: Plan) -> str:
        """The table held for a guest, and the code sent to confirm it."""
        table, reservation = plan.booked()
        held = say(
            self.catalog,
            "concierge_code_sent",
            guests=table.guests,
            place=self._place(plan),
            day=day_of(reservation.date, self.catalog),
            time=reservation.time,
            minutes=int(CODE_TTL.total_seconds() // 60),
            phone=masked(table.phone),
        )
        return " ".join([*plan.notes, held])

    def _ask_code(self, plan: Plan, text: str) -> dict[str, Any]:
        plan.asking = "code"
        return {"ask_user": text}

    def _place(self, plan: Plan) -> str:
        assert plan.restaurant is not None, "a table is held at the restaurant the search chose"
        return str(plan.restaurant["name"])

    def _reserve(self, plan: Plan, now: dt.datetime, until: dt.datetime | None = None) -> dict[str, Any] | None:
        """The table reserved; held `until` a code confirms it, which counts a hold and its code
        against the asker's allowances first (OverAllowance: nothing held)."""
        if until is not None:
            self.allowances.spend(HOLDS, CODES)
            plan.code_paid = True
        held = self.tables.hold(plan.table(), now, until=until)
        if isinstance(held, Refused):
            plan.done = not held.kept  # a service down or busy: the plan is kept to try again
            return {"error": "reservation_failed", "details": held.why}
        plan.notes += held.notes
        plan.slots["time"] = held.reservation.time
        plan.reservation, plan.reserved, plan.made = held.reservation, plan.table(), None
        return None

    def _move(self, plan: Plan, now: dt.datetime) -> dict[str, Any] | None:
        """The reservation moved to the day, time or party size now asked for (a booked one's
        message and reminder then go out anew). Where no table is free then, it stays as it was
        and the customer hears why and is asked again; a guest's hold that lapsed meanwhile is
        reserved anew."""
        table, reservation = plan.booked()
        held = self.tables.hold(table, now, moving=reservation.reservation_id)
        if isinstance(held, Refused) and not plan.committed() and held.again is None:
            plan.reservation = plan.reserved = None
            return self._reserve(plan, now, now + CODE_TTL)
        if isinstance(held, Refused):
            again = next((slot.slot for slot in self.flow.slots() if slot.kind == held.again), None)
            if again is None:
                plan.slots, plan.done = _settled(plan).slots, True
                return {"error": "reservation_failed", "details": held.why}
            plan.slots[again] = None
            return self._ask(plan, [again], held.why)
        plan.notes = held.notes
        plan.slots["time"] = held.reservation.time
        if plan.committed():
            plan.changing, plan.notification, plan.reminder = True, None, None
            plan.slots["remind_date"] = None  # a reminder at a time is on the table's new day
        plan.reservation, plan.reserved = held.reservation, plan.table()
        return None

    def _notify(self, plan: Plan) -> dict[str, Any] | None:
        sent = self.tables.confirm(*plan.booked(), plan.slots.get("channel") or self.setup.default_channel, moved=plan.changing)
        if isinstance(sent, NotSent):
            plan.done = True
            return {"error": "notification_failed", "details": sent.why}
        plan.notification = sent
        return None

    def _remind(self, plan: Plan, user_id: str, now: dt.datetime) -> dict[str, Any] | None:
        slots, (table, reservation) = plan.slots, plan.booked()
        if slots.get("remind_time"):
            day = dt.date.fromisoformat(slots.get("remind_date") or table.date)
            at = dt.datetime.combine(day, dt.time.fromisoformat(slots["remind_time"]), tzinfo=self.zone)
        else:
            at = reservation.starts(self.zone) - dt.timedelta(minutes=slots.get("remind_before_min") or 60)
        plan.reminder = self.tables.remind(user_id, table, reservation, at, now)
        if plan.reminder is None:  # its time has passed
            slots["remind_time"] = slots["remind_date"] = slots["remind_before_min"] = None
            return self._ask_reminder(
                plan,
                say(self.catalog, "concierge_reminder_past", time=f"{at:%H:%M}", day=day_of(at.date().isoformat(), self.catalog)),
            )
        return None

    def _result(self, plan: Plan) -> dict[str, Any]:
        """The final answer: exactly the restaurant, the reservation, the notification sent and the
        reminder if asked for. No words ride beside them (a strict client refuses other keys): a
        slot taken instead of the one asked shows in the reservation's time, as in the confirmation sent."""
        assert plan.restaurant is not None and plan.reservation is not None and plan.notification is not None, "booked and sent"
        result: dict[str, Any] = {
            "restaurant": plan.restaurant,
            "reservation": plan.reservation.model_dump(),
            "notification": plan.notification.model_dump(),
        }
        if plan.reminder:
            result["reminder"] = plan.reminder.model_dump()
        return result

    def _suggest(self, plan: Plan) -> dict[str, Any]:
        """Nothing matched: what would, from the catalog, and the one question that gets there."""
        slots = plan.slots
        locality, cuisine, time = slots["locality"], self._cuisine_words(slots["cuisine"]), slots["time"]
        open_then = [r for r in self.catalog.products if r.value("city") == slots["city"] and is_open(r, time)]
        why = say(self.catalog, "concierge_none_there", cuisine=cuisine, locality=locality, time=time)
        elsewhere = sorted(
            {r.value("locality") for r in open_then if serves(r, slots["cuisine"]) and not in_locality(r, locality)}
        )[:3]
        if elsewhere:
            slots["locality"] = None
            return self._ask(plan, ["locality"], say(self.catalog, "concierge_elsewhere", why=why, places=", ".join(elsewhere)))
        words = self.catalog.pack.attributes["cuisines"].words
        served = sorted({words(c) for r in open_then if in_locality(r, locality) for c in r.value("cuisines")})[:5]
        if served:
            slots["cuisine"] = None
            return self._ask(plan, ["cuisine"], say(self.catalog, "concierge_served_there", why=why, served=", ".join(served)))
        slots["time"] = None
        city = self.catalog.pack.attributes["city"].words(slots["city"])
        return self._ask(plan, ["time"], say(self.catalog, "concierge_none_in_city", cuisine=cuisine, time=time, city=city))

    def _fit(self, slots: dict[str, Any], said: dict[str, Any]) -> None:
        """Whatever was asked, what the customer now says is taken, and the details held that it
        rules out are asked again: an area of another city ("Hyderabad" after "Bandra"), a
        restaurant named before that is not where, or does not serve what, they now say."""
        locality = slots.get("locality")
        if said.get("city") and "locality" not in said and locality and not self._in_city(locality, said["city"]):
            slots["locality"] = None
        chosen = self.catalog.product(slots["restaurant_id"]) if slots.get("restaurant_id") else None
        if chosen and "restaurant_id" not in said and not _there(chosen, said):
            slots["restaurant_id"] = None

    def _in_city(self, locality: str, city: str) -> bool:
        return any(r.value("city") == city and in_locality(r, locality) for r in self.catalog.products)

    def _new_request(self, instruction: str, said: dict[str, Any]) -> bool:
        """ "Book ... in Bandra on Saturday" starts over; "Colaba" or "at 9 pm" answers the question
        asked. A request to book is said in the pack's words for one (its `booking` cues)."""
        return bool(self._booking.search(instruction)) and len([k for k in SEARCH if said.get(k)]) >= 2

    def _cuisine_words(self, cuisine: str) -> str:
        return "Indian" if cuisine == INDIAN else self.catalog.pack.attributes["cuisines"].words(cuisine)


def _there(restaurant: Product, said: dict[str, Any]) -> bool:
    """Whether a restaurant is in the city and area, and serves the cuisine, that were said."""
    city, locality, cuisine = (said.get(key) for key in ("city", "locality", "cuisine"))
    return (
        city in (None, restaurant.value("city"))
        and (not locality or in_locality(restaurant, locality))
        and (not cuisine or serves(restaurant, cuisine))
    )


def _settled(plan: Plan) -> Plan:
    """A plan with a table booked as its reservation stands, whatever a change left half asked."""
    assert plan.reserved is not None, "a table booked is reserved"
    slots = plan.slots | {key: getattr(plan.reserved, key) for key in MOVES}
    return plan.model_copy(update={"slots": slots, "done": True, "asking": None, "made": None})


def _retried(instruction: str, said: dict[str, Any]) -> str:
    """What makes an instruction the same one again: its words (any code in it masked, so none
    is kept) and what they meant when said, so "tomorrow" said another day is another request."""
    words = " ".join(redact_codes(instruction).casefold().split())
    return hashlib.sha256(json.dumps([words, said], sort_keys=True, default=str).encode()).hexdigest()


def _locality_names(place: str) -> list[str]:
    """A locality and the name people use for its whole area ("Bandra" for Bandra West)."""
    names = [place]
    words = place.split()
    if len(words) == 2 and words[1].lower() in ("west", "east", "north", "south") and len(words[0]) >= 4:
        names.append(words[0])
    return names


def _said_as(section: dict[str, list[str]]) -> dict[str, str]:
    """A vocabulary section turned around: each way of saying a value -> the value."""
    return {phrase: value for value, phrases in section.items() for phrase in phrases}


class ServiceReader:
    """The pack's one reader of what a customer wants booked or found: its service schema
    (assistant/nlu) over the catalog's values, for the concierge's instructions and the chat alike."""

    def __init__(self, catalog: Catalog, schema: Mapping[str, Any]):
        self.catalog = catalog
        vocabulary = catalog.vocabulary.filters
        localities = {name: place for place in {r.value("locality") for r in catalog.products} for name in _locality_names(place)}
        strange = sorted(set(catalog.vocabulary.places) - set(localities))
        if strange:
            raise DataError(f"vocabulary places names no locality of the catalog: {strange}")
        # another spelling of a place ("बांद्रा") -> the place as the catalog names it ("Bandra")
        self._spelt = _said_as(catalog.vocabulary.places)
        # what each known value said means: a city or cuisine key, a locality, a restaurant
        self.known: dict[str, dict[str, Any]] = {
            "city": _said_as(vocabulary.get("city", {})),
            "cuisine": _said_as({**vocabulary.get("cuisine", {}), INDIAN: ["indian", "desi", "bharatiya"]}),
            "locality": {**localities, **{said: localities[name] for said, name in self._spelt.items()}},
            "restaurant_name": {name: r for r in catalog.products for name in {r.name, r.name.rstrip(".")}},
        }
        languages = catalog.languages
        try:
            self.schema = SchemaUnderstanding.from_schema(
                schema, {slot: list(said) for slot, said in self.known.items()}, languages
            )
        except (KeyError, TypeError) as exc:
            raise DataError(f"the concierge's service schema is malformed: {exc!r}") from exc
        lacking = sorted(set(FROM_SCHEMA) - set(self.schema.slots)) + ([BOOK] if BOOK not in self.schema.intents else [])
        if lacking:
            raise DataError(f"the concierge's service schema lacks {lacking}")

    def read(self, text: str, today: dt.date) -> dict[str, Any]:
        """The details as the schema reads them (read as a booking, the fullest reading), in the
        plan's terms: a city or cuisine by its key, a restaurant by its id. A locality said as its
        whole area ("Bandra") stays so, and names its city; a restaurant by name settles where,
        and what it serves."""
        reading = self.schema.slots_for(BOOK, self.schema.scan(text, today), {})
        found: dict[str, Any] = {
            FROM_SCHEMA[slot]: self.known[slot][value] if slot in self.known else value
            for slot, value in reading.items()
            if slot in FROM_SCHEMA and value != DONTCARE
        }
        if "locality" in found:
            found.setdefault("city", self._city_of(found["locality"]))
            found["locality"] = self._spelt.get(reading["locality"], reading["locality"])
        chosen = found.pop("restaurant_id", None)
        if chosen:
            found.update(
                restaurant_id=chosen.id,
                city=chosen.value("city"),
                locality=chosen.value("locality"),
                cuisine=chosen.value("cuisines")[0],
            )
        if "guests" in found:
            found["guests"] = int(found["guests"])
        return found

    def _city_of(self, locality: str) -> str | None:
        return next((r.value("city") for r in self.catalog.products if r.value("locality") == locality), None)


def load_members(path: Path) -> dict[str, dict[str, str]]:
    """Registered users' names and phones, so a known user's instruction needs neither."""
    return {m["user_id"]: m for m in json.loads(path.read_text(encoding="utf-8"))}
