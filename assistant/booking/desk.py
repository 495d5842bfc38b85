"""The Booking agent: an appointment (a card specialist, a test drive...), slot by slot, confirmed by a code.

Slots are asked one at a time, most important first (which product, which channel and branch,
when, who, which phone); one message may fill several and a later one may correct any. What
can be booked, the channels, branches, hours and questions all come from the pack's booking. Once all
are valid, a 6-digit code goes to the phone through the notifier; the right code confirms
the booking, sends a confirmation and schedules a reminder. The code itself never passes
through here after it is sent: not into replies, state, logs or prompts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from assistant.booking.codes import CODE_LIKE, Booking, BookingStore, new_booking_id
from assistant.booking.notifications import PHONE_LIKE, Notifier, e164, mask_phone
from assistant.booking.reminders import ReminderStore
from assistant.dialogue.goals import Goal
from assistant.language import load_languages, phrases
from assistant.pack.model import WEEKDAYS, BookingSlot, Catalog, Product
from assistant.pack.model import Booking as BookingSetup
from assistant.tools.filters import FilterRules

SLOT_ORDER: tuple[BookingSlot, ...] = ("product", "channel", "branch", "date", "time", "name", "phone")


@dataclass
class BookingStep:
    """What the Booking agent did this turn, for the Formatter and the response."""

    text: str
    question: str | None = None
    choices: list[str] = field(default_factory=list)
    booking: dict | None = None
    done: bool = False


class BookingDesk:
    """The Booking agent's tools: slot reading and validation, codes, bookings, notices, reminders."""

    def __init__(self, catalog: Catalog, bookings: BookingStore, reminders: ReminderStore, notifier: Notifier,
                 clock: Callable[[], dt.datetime] | None = None):
        self.catalog = catalog
        self._setup = catalog.pack.booking  # None: this business books nothing, the desk is never asked
        self.rules = FilterRules(catalog)
        self.languages = load_languages(catalog.pack.languages)
        self.channels = {name: phrases(channel.words) for name, channel in (self._setup.channels.items() if self._setup else ())}
        self.bookings = bookings
        self.reminders = reminders
        self.notifier = notifier
        self.zone = ZoneInfo(catalog.business.timezone)
        self.clock = clock or (lambda: dt.datetime.now(self.zone))

    @property
    def setup(self) -> BookingSetup:
        assert self._setup is not None, "only a pack with booking starts a booking goal"
        return self._setup

    def step(self, goal: Goal, text: str, filters: dict, cached: list[Product], session_id: str,
             named: Sequence[Product] = ()) -> BookingStep:
        """`named`: the items the message names ("a test drive of the Thar")."""
        now = self.clock().astimezone(self.zone)
        slots = goal.slots
        code = CODE_LIKE.search(text)
        if slots.get("code_sent") and code:
            return self._confirm(goal, code.group(1), now, session_id)
        patch, problems = self.read(text, filters, cached, slots, now, named)
        if patch:
            slots.update(patch)
            slots["code_sent"] = False  # a changed detail needs a fresh code
        problems += self._check_when(slots, now)
        missing = self.missing(slots)
        if missing:
            goal.missing = list(missing)
            question, choices = self.question(missing[0], filters, cached)
            return BookingStep(text=" ".join([*problems, self.summary(slots)]).strip(), question=question,
                               choices=choices)
        goal.missing = []
        if slots.get("code_sent") and not self.languages.asks_again(text):
            return BookingStep(text=" ".join(problems), question="Please type the 6-digit code we sent you.")
        return self._send_code(goal, now)

    def answers(self, goal: Goal, text: str) -> bool:
        """Whether the message gives a detail a booking takes in a form nothing else has (a date,
        a phone, a branch, the code just sent); any words at all could be a name, so a bare name
        does not count."""
        if goal.slots.get("code_sent") and CODE_LIKE.search(text):
            return True
        slots = {**goal.slots, "name": goal.slots.get("name") or "?"}
        patch, problems = self.read(text, {}, [], slots, self.clock().astimezone(self.zone))
        return bool(patch or problems)

    def read(self, text: str, filters: dict, cached: list[Product], slots: dict, now: dt.datetime,
             named: Sequence[Product] = ()) -> tuple[dict, list[str]]:
        """The slots this message fills (or corrects), and what it got wrong."""
        patch: dict = {}
        problems: list[str] = []
        waiting_for = self.missing(slots)[:1]
        product = named[0] if named else self._product(text, filters, cached, asked=waiting_for == ["product"])
        if product:
            patch["product"] = product.id
        lowered = text.lower()
        channel = next((c for c, pattern in self.channels.items() if pattern.search(text)), None)
        branch = next((b for b in self.setup.branches if b.split()[0].lower() in lowered), None)
        at_branch = [c for c, spec in self.setup.channels.items() if spec.at_branch]
        if branch and at_branch:
            patch.update(channel=channel if channel in at_branch else at_branch[0], branch=branch)
        elif channel:
            patch["channel"] = channel
        patch.update(self.languages.parse_when(text, now).slots())
        phone_text = PHONE_LIKE.search(text)
        if phone_text:
            phone = e164(phone_text.group(0), self.catalog.business)
            if phone:
                patch["phone"] = phone
            else:
                problems.append(f"{phone_text.group(0).strip()} doesn't look like a mobile number.")
        bare = phone_text.start() if phone_text else len(text) if waiting_for == ["name"] and not patch else None
        name = self.languages.person(text, self.catalog.vocabulary.words.__contains__, ending_at=bare)
        if name:
            patch["name"] = name
        return patch, problems

    def missing(self, slots: dict) -> list[BookingSlot]:
        channel = self.setup.channels.get(slots.get("channel") or "")
        if not slots.get("channel") and len(self.setup.channels) == 1:  # one way to meet: nothing to ask
            slots["channel"] = next(iter(self.setup.channels))
            channel = self.setup.channels[slots["channel"]]
        needed = [s for s in SLOT_ORDER if s != "branch" or (channel and channel.at_branch)]
        return [s for s in needed if not slots.get(s)]

    def question(self, slot: BookingSlot, filters: dict, cached: list[Product]) -> tuple[str, list[str]]:
        question = self.setup.questions[slot]
        if slot == "product":
            options = self._candidates(filters, cached) or cached
            return question, [p.name for p in options[:5]]
        if slot == "channel":
            return question, [c.choice for c in self.setup.channels.values()]
        if slot == "branch":
            return question, list(self.setup.branches)
        return question, []

    def summary(self, slots: dict) -> str:
        """The appointment so far, so the customer sees every detail we understood."""
        parts = []
        if slots.get("product"):
            parts.append(f"**{self._chosen(slots).name}**")
        channel = self.setup.channels.get(slots.get("channel") or "")
        if channel:
            unplaced = channel.at_branch and not slots.get("branch")
            parts.append((channel.says_unplaced or channel.choice) if unplaced
                         else channel.says.format(branch=slots.get("branch")))
        if slots.get("date"):
            parts.append(_day(dt.date.fromisoformat(slots["date"])))
        if slots.get("time"):
            parts.append(f"at {slots['time']}")
        if slots.get("name"):
            parts.append(f"for {slots['name']}")
        return f"{self.setup.subject.capitalize()} so far: {', '.join(parts)}." if parts else self.setup.start

    def _product(self, text: str, filters: dict, cached: list[Product], asked: bool) -> Product | None:
        lowered = text.lower()
        named = [p for p in self.catalog.products if p.name.lower() in lowered]
        if named:
            return max(named, key=lambda p: len(p.name))
        if not filters and not asked:
            return None
        candidates = self._candidates(filters, cached)
        return candidates[0] if len(candidates) == 1 else None

    def _chosen(self, slots: dict) -> Product:
        product = self.catalog.product(slots["product"])
        assert product is not None, "the product slot only ever holds a catalog item's id"
        return product

    def _candidates(self, filters: dict, cached: list[Product]) -> list[Product]:
        """Products the filters point at: among those already discussed first, else the catalog."""
        if not filters:
            return []
        among_cached = [p for p in cached if self.rules.matches(p, filters)]
        return among_cached or [p for p in self.catalog.products if self.rules.matches(p, filters)]

    def _check_when(self, slots: dict, now: dt.datetime) -> list[str]:
        """A date and time must be in the future and inside the channel's hours; a bad one is cleared."""
        if not (slots.get("date") and slots.get("time")):
            return []
        starts = self._starts_at(slots)
        if starts <= now:
            slots["time"] = None
            return [f"{_day(starts.date())} at {starts:%H:%M} has already passed."]
        channel = self.setup.channels.get(slots.get("channel") or "")
        if not channel:
            return []
        hours = channel.hours.get(WEEKDAYS[starts.weekday()])
        what = f"{channel.choice}s"
        if hours is None:
            slots["date"] = None
            return [f"{what} aren't available on {starts.strftime('%A')}s."]
        opens, closes = hours
        if not opens <= starts.time() < closes:
            slots["time"] = None
            return [f"{what} on {starts.strftime('%A')}s are between {opens:%H:%M} and {closes:%H:%M}."]
        return []

    def _starts_at(self, slots: dict) -> dt.datetime:
        day = dt.date.fromisoformat(slots["date"])
        return dt.datetime.combine(day, dt.time.fromisoformat(slots["time"]), tzinfo=self.zone)

    def _send_code(self, goal: Goal, now: dt.datetime) -> BookingStep:
        code = self.bookings.issue_code(goal.id, now)
        if code is None:
            return BookingStep(text="We've sent as many codes as we can for this booking. Please call "
                                    f"{self.catalog.business.support_contact} to finish it.", done=True)
        self.notifier.send(goal.slots["phone"], f"{self.catalog.name}: your confirmation code is {code}. "
                                                "It expires in 10 minutes. Never share it with anyone.", "otp")
        goal.slots["code_sent"] = True
        return BookingStep(
            text=f"{self.summary(goal.slots)} We've sent a 6-digit code to {mask_phone(goal.slots['phone'])}.",
            question="Please type the code to confirm (it expires in 10 minutes).",
        )

    def _confirm(self, goal: Goal, code: str, now: dt.datetime, session_id: str) -> BookingStep:
        result = self.bookings.check_code(goal.id, code, now)
        if result == "wrong":
            return BookingStep(text="That code isn't right.", question="Please check the SMS and type the code again.")
        if result != "ok":  # expired, locked (third wrong try) or gone: only a new code helps
            why = {"expired": "That code has expired.", "locked": "That was the third wrong code, so it no longer works.",
                   "none": "That code no longer works."}[result]
            return BookingStep(text=why, question="Say **send a new code** and I'll send another one.")
        return self._book(goal, now, session_id)

    def _book(self, goal: Goal, now: dt.datetime, session_id: str) -> BookingStep:
        slots = goal.slots
        product = self._chosen(slots)
        channel = self.setup.channels[slots["channel"]]
        booking = Booking(
            id=new_booking_id(), session_id=session_id, product_id=product.id, product_name=product.name,
            name=slots["name"], phone=slots["phone"], channel=slots["channel"],
            branch=slots.get("branch") if channel.at_branch else None, starts_at=self._starts_at(slots),
        )
        self.bookings.save(booking)
        where = channel.confirm.format(branch=booking.branch)
        when = f"{_day(booking.starts_at.date())} at {booking.starts_at:%H:%M}"
        subject = self.setup.subject
        self.notifier.send(booking.phone, f"{self.catalog.name}: {subject} {booking.id} confirmed for {when} "
                                          f"about the {product.name}. {where}.", "confirmation")
        before = dt.timedelta(minutes=self.setup.reminder_minutes_before)
        self.reminders.schedule(booking.id, booking.phone, f"{self.catalog.name} reminder: your {subject} "
                                f"{booking.id} about the {product.name} is at {booking.starts_at:%H:%M} today. "
                                f"{where}.", booking.starts_at - before)
        slots["booking_id"] = booking.id
        return BookingStep(
            text=f"✅ Booked! Your {subject} **{booking.id}** about the **{product.name}** is on {when}. "
                 f"{where}. We've sent a confirmation to {mask_phone(booking.phone)} and will remind you {_ahead(before)} before.",
            booking=public_booking(booking), done=True,
        )


def public_booking(booking: Booking) -> dict:
    return {**booking.model_dump(mode="json", exclude={"session_id", "phone"}), "phone": mask_phone(booking.phone)}


def _ahead(before: dt.timedelta) -> str:
    minutes = int(before.total_seconds() // 60)
    return "an hour" if minutes == 60 else f"{minutes // 60} hours" if minutes % 60 == 0 else f"{minutes} minutes"


def _day(day: dt.date) -> str:
    return f"{day:%A} {day.day} {day:%B %Y}"
