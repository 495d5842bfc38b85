"""The one flow engine: collects a flow's slots step by step, for any pack's flows.

Each turn it reads every slot the message fills (one answer may fill several, and a later one
may correct any), infers what a conditional slot implies (a branch named means a branch
visit), checks the schedule, and decides what to ask next by how many slots a step has:
a step of 3 or more simple slots is asked all at once (batch); 1-2 slots, or slots depending
on a conditional one, one at a time (sequential); base slots first, then the conditional ones
as a group (hybrid). It never changes the session: it returns the slots as they now stand,
and the pipeline stores them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal
from zoneinfo import ZoneInfo

from assistant.dialogue.forms import FormReader
from assistant.dialogue.said import Said
from assistant.language import phrases
from assistant.language.lexicon import WEEKDAYS
from assistant.language.phones import PHONE_LIKE, e164
from assistant.pack.examples import Example
from assistant.pack.flows import BATCH_FROM, Flow, Option, Slot, Step
from assistant.pack.model import Catalog, FaqEntry, Product
from assistant.pack.texts import day_words, say, weekday_words
from assistant.tools.filters import FilterRules

Mode = Literal["sequential", "batch", "hybrid"]
_CLAUSE = re.compile(r"\s*(?:[,;.!?]|\band\b|\bbut\b)\s*")
_NUMBER = re.compile(r"(?<!\d)(\d{1,3})(?!\d)")
CHOICES_SHOWN = 5


@dataclass
class Collected:
    """The slots after a message, what is still missing, and the next question."""

    slots: dict[str, Any]
    missing: list[str]
    problems: list[str] = field(default_factory=list)
    question: str | None = None
    choices: list[str] = field(default_factory=list)

    def asking(self, text: str = "") -> FlowStep:
        """An agent's step that asks the next question, after `text`."""
        return FlowStep(slots=self.slots, missing=self.missing, text=text, question=self.question, choices=self.choices)


@dataclass
class FlowStep:
    """What an agent running a flow did this turn: the slots as they now stand (the pipeline
    stores them), what is missing, and what to say and ask."""

    slots: dict[str, Any]
    missing: list[str] = field(default_factory=list)
    text: str = ""
    question: str | None = None
    choices: list[str] = field(default_factory=list)
    booking: dict[str, Any] | None = None
    article: FaqEntry | None = None
    done: bool = False
    submitted: str | None = None  # the id of the record a `submit` flow handed in
    images: list[Example] = field(default_factory=list)  # example drawings sent with the reply (a case's, asked for again)
    unplaced: bool = False  # the booking can't be placed at or near the time asked


def collection_mode(step: Step) -> Mode:
    """1-2 slots or nested conditions -> sequential; 3+ simple -> batch; 3+ with
    simple (one level) conditions -> hybrid."""
    if step.mode:
        return step.mode
    names = {s.slot for s in step.collect}
    conditional = {s.slot for s in step.collect if s.if_}
    nested = any(set(s.if_) & conditional for s in step.collect)
    if len(step.collect) < BATCH_FROM or nested:
        return "sequential"
    return "hybrid" if conditional & names else "batch"


class FlowEngine:
    """Reads and asks for the slots of one pack's flows."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.languages = catalog.languages
        self.zone = ZoneInfo(catalog.business.timezone)
        self.rules = FilterRules(catalog)
        self.forms = FormReader(catalog)

    def flow(self, name: str | Flow) -> Flow:
        """The pack's flow of that name; a flow built for one conversation (a case) is itself."""
        return name if isinstance(name, Flow) else self.catalog.pack.flows[name]

    def collect(self, name: str | Flow, slots: dict[str, Any], said: Said, now: dt.datetime) -> Collected:
        """Take in what the message says (a bare answer goes to the slots the last question asked for)."""
        flow = self.flow(name)
        now = now.astimezone(self.zone)
        patch, problems = self.read(name, said, said.asked, slots, now)
        slots = {**slots, **patch}
        self._settle_single_options(flow, slots)
        late = self.check_schedule(flow, slots, now)  # clears a day or time it can't have
        return self.ask(flow, slots, said, [*problems.values(), *late])

    def ask(self, flow: Flow, slots: dict[str, Any], said: Said | None = None, problems: Sequence[str] = ()) -> Collected:
        """What is still missing, and the question for it (with quick replies from what was said)."""
        missing = self.missing(flow, slots)
        question, choices = self.question(flow, self.asked(flow, missing), said or Said(text=""))
        return Collected(slots=slots, missing=missing, problems=list(problems), question=question, choices=choices)

    def read(
        self, name: str | Flow, said: Said, asked: Sequence[str], slots: dict[str, Any], now: dt.datetime
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The slots this message fills or corrects, and what it got wrong about which slot."""
        flow = self.flow(name)
        if flow.reads == "asked":
            return self.forms.read(flow, said, asked, slots)
        patch: dict[str, Any] = {}
        problems: dict[str, str] = {}
        dated = any(s.kind in ("date", "time") for s in flow.slots())  # a fault's words are never read as a date
        held = next((slots[s.slot] for s in flow.slots() if s.kind == "time" and slots.get(s.slot)), None)
        earlier = dt.time.fromisoformat(held) if held else None  # "tomorrow evening", then "half past eight": 20:30
        readings: dict[str, tuple[dict[str, str], re.Match[str] | None]] = {}

        def reading(text: str) -> tuple[dict[str, str], re.Match[str] | None]:
            """The day, time and phone number a text says, read once per text."""
            if text not in readings:
                when = self.languages.parse_when(text, now, earlier).slots() if dated else {}
                readings[text] = when, PHONE_LIKE.search(text)
            return readings[text]

        parties = self.forms.parties(flow, said.text, asked)  # a value said of someone else is never the customer's own
        named = self.forms.named(flow, parties, asked, slots)  # "name: Anil", "the time is 6pm": that slot's
        for slot in flow.slots():
            value, problem = None, None
            told = named.get(slot.slot)
            if told:  # what follows a slot's name is read as the answer to its own question
                value, problem = self._read_slot(slot, replace(said, text=told), [slot.slot], *reading(told))
            if value is None and problem is None:
                seen = parties.view(slot)
                value, problem = self._read_slot(slot, replace(said, text=seen), asked, *reading(seen))
            if problem:  # said, but not a value it can take: asked for again
                problems[slot.slot], patch[slot.slot] = problem, None
            elif value is not None:
                patch[slot.slot] = [*slots.get(slot.slot, []), value] if slot.kind == "notes" else value
        people = [s for s in flow.slots() if s.kind == "person"]
        if people:  # a bare name is a name only when it was asked for and nothing else was said
            first, known = people[0], self.catalog.vocabulary.words.__contains__
            seen = parties.view(first)
            phone = reading(seen)[1]
            bare = phone.start() if phone else len(seen) if list(asked) == [first.slot] and not patch else None
            told = named.get(first.slot)
            person = self.languages.person(seen, known, ending_at=bare)
            person = person or (self.languages.person(told, known, ending_at=len(told)) if told else None)
            if person:
                patch[first.slot] = person
        for slot in flow.slots():  # a conditional slot filled says what its condition is: a branch, a visit
            for other, values in slot.if_.items():
                if slot.slot in patch and patch.get(other) not in values:
                    patch[other] = values[0]
        return patch, problems

    def filled(self, name: str | Flow, slots: dict[str, Any], text: str, now: dt.datetime) -> set[str]:
        """The slots a message gives a detail of in a form nothing else has (a date, a phone, an
        option), wrong or right: any words could be a name, and any answer a text, so those do not count."""
        patch, problems = self.read(name, Said(text=text), (), slots, now.astimezone(self.zone))
        kinds = {s.slot: s.kind for s in self.flow(name).slots()}
        return set(problems) | {slot for slot in patch if kinds[slot] not in ("person", "text", "notes")}

    def refused(self, slot: Slot, value: Any) -> str | None:
        """Why a number outside the slot's range is refused, in the pack's words (a table for 25)."""
        if slot.range is None or value is None or slot.range[0] <= value <= slot.range[1]:
            return None
        return say(self.catalog, "flow_range", said=value, low=slot.range[0], high=slot.range[1])

    def missing(self, flow: Flow, slots: dict[str, Any]) -> list[str]:
        return [s.slot for s in flow.slots() if s.required and self.applies(s, slots) and not filled(s, slots)]

    def asked(self, flow: Flow, missing: list[str]) -> list[str]:
        """The slots the next question asks for: the first step with a missing slot, in its collection mode."""
        step = next((step for step in flow.steps if any(s.slot in missing for s in step.collect)), None)
        if step is None:
            return []
        pending = [s for s in step.collect if s.slot in missing]
        mode = collection_mode(step)
        if mode == "sequential":
            return [pending[0].slot]
        if mode == "hybrid":
            return [s.slot for s in pending if not s.if_] or [s.slot for s in pending]
        return [s.slot for s in pending]

    def question(self, flow: Flow, asking: list[str], said: Said) -> tuple[str | None, list[str]]:
        """The question for those slots, with quick replies when it asks for one."""
        if not asking:
            return None, []
        if len(asking) == 1:
            slot = flow.slot(asking[0])
            return slot.ask, self._choices(slot, said)
        step = next(step for step in flow.steps if asking[0] in {s.slot for s in step.collect})
        return step.ask or " ".join(flow.slot(name).ask for name in asking), []

    def summary(self, name: str | Flow, slots: dict[str, Any]) -> str:
        """What is known so far, so the customer sees every detail we understood."""
        flow = self.flow(name)
        parts = [part for slot in flow.slots() if self.applies(slot, slots) and (part := self.says(slot, slots, flow))]
        if not parts:
            return flow.start
        return say(self.catalog, "flow_so_far", subject=flow.subject.capitalize(), details=", ".join(parts))

    def starts_at(self, flow: Flow, slots: dict[str, Any]) -> dt.datetime:
        assert flow.schedule is not None, "only a scheduled flow has a start"
        day = dt.date.fromisoformat(slots[flow.schedule.date])
        return dt.datetime.combine(day, dt.time.fromisoformat(slots[flow.schedule.time]), tzinfo=self.zone)

    def option(self, flow: Flow, slots: dict[str, Any], slot: str | None) -> Option | None:
        """The option chosen for a choice slot, if any."""
        return flow.slot(slot).options.get(slots.get(slot) or "") if slot else None

    def _read_slot(
        self, slot: Slot, said: Said, asked: Sequence[str], when: dict[str, str], phone: re.Match[str] | None
    ) -> tuple[Any, str | None]:
        asked_alone = list(asked) == [slot.slot]
        if slot.kind == "item":
            return self._read_item(slot, said, asked_alone), None
        if slot.kind == "choice":
            lowered = said.text.lower()
            return next(
                (
                    key
                    for key, option in slot.options.items()
                    if option.words
                    and phrases(option.words).search(said.text)
                    or not option.words
                    and option.choice.split()[0].lower() in lowered
                ),
                None,
            ), None
        if slot.kind in ("date", "time"):
            return when.get(slot.kind), None
        if slot.kind == "phone" and phone:
            number = e164(phone.group(0), self.catalog.business)
            return (number, None) if number else (None, say(self.catalog, "flow_bad_phone", said=phone.group(0).strip()))
        if slot.kind == "number":  # a head count said as one ("for 4", "4 log"), or a bare number when asked
            count = self.languages.find_count(said.text)
            bare = _NUMBER.fullmatch(self.languages.digits(said.text).strip()) if slot.slot in asked else None
            told = int(count.value) if count else int(bare.group(1)) if bare else None
            refused = self.refused(slot, told)
            return (None, refused) if refused else (told, None)
        if slot.kind == "text" and asked_alone and said.text.strip():
            return _CLAUSE.split(said.text.strip(), maxsplit=1)[0][:80] or said.text.strip()[:80], None
        if slot.kind == "notes" and (said.opens or asked_alone) and said.text.strip():
            return said.text.strip()[:300], None
        if slot.kind == "filter" and slot.filter:
            return self._read_filter(slot.filter, said), None
        return None, None

    def _read_item(self, slot: Slot, said: Said, asked: bool) -> str | None:
        if said.named:
            return said.named[0].id
        lowered = said.text.lower()
        named = [p for p in self.catalog.products if p.name.lower() in lowered]
        if named:
            return max(named, key=lambda p: len(p.name)).id
        if slot.narrowed_by_filters and (said.filters or asked):
            candidates = self._candidates(said)
            if len(candidates) == 1:
                return candidates[0].id
        if slot.free_text and asked and said.text.strip():
            return _CLAUSE.split(said.text.strip(), maxsplit=1)[0][:80] or said.text.strip()[:80]
        return None

    def _read_filter(self, name: str, said: Said) -> str | None:
        value = said.filters.get(name)
        if value is None and said.named:
            attribute, _ = self.catalog.pack.filter_attributes()[name]
            value = said.named[0].value(attribute)
        return (value[0] if value else None) if isinstance(value, list) else value

    def _candidates(self, said: Said) -> list[Product]:
        """Items the filters point at: among those already discussed first, else the catalog."""
        if not said.filters:
            return []
        among_cached = [p for p in said.cached if self.rules.matches(p, said.filters)]
        return among_cached or [p for p in self.catalog.products if self.rules.matches(p, said.filters)]

    def _choices(self, slot: Slot, said: Said) -> list[str]:
        if slot.kind == "choice":
            return [option.choice for option in slot.options.values()]
        if slot.kind == "item" and not slot.free_text:  # any answer will do: no list to choose from
            return [p.name for p in (self._candidates(said) or list(said.cached))[:CHOICES_SHOWN]]
        return []

    def applies(self, slot: Slot, slots: dict[str, Any]) -> bool:
        return all(slots.get(other) in values for other, values in slot.if_.items())

    def _settle_single_options(self, flow: Flow, slots: dict[str, Any]) -> None:
        """A choice with one option (one way to meet) needs no question."""
        for slot in flow.slots():
            if slot.kind == "choice" and len(slot.options) == 1 and not slots.get(slot.slot):
                slots[slot.slot] = next(iter(slot.options))

    def check_schedule(self, flow: Flow, slots: dict[str, Any], now: dt.datetime) -> list[str]:
        """A date and time must be in the future and inside the chosen option's hours; a bad one is cleared."""
        plan = flow.schedule
        if plan is None or not (slots.get(plan.date) and slots.get(plan.time)):
            return []
        starts = self.starts_at(flow, slots)
        if starts.date() < now.date():  # a day gone by (a year said: "1 January 2020"): the day is asked again
            slots[plan.date] = None
            return [say(self.catalog, "flow_day_passed", day=day_words(starts.date(), self.catalog))]
        if starts <= now:
            slots[plan.time] = None
            return [say(self.catalog, "flow_passed", day=day_words(starts.date(), self.catalog), time=f"{starts:%H:%M}")]
        option = self.option(flow, slots, plan.hours_of)
        if option is None or not option.hours:
            return []
        hours = option.hours.get(WEEKDAYS[starts.weekday()])
        if hours is None:
            slots[plan.date] = None
            return [say(self.catalog, "flow_closed_day", what=option.choice, weekday=weekday_words(starts.date(), self.catalog))]
        opens, closes = hours
        if not opens <= starts.time() < closes:
            slots[plan.time] = None
            return [
                say(
                    self.catalog,
                    "flow_hours",
                    what=option.choice,
                    weekday=weekday_words(starts.date(), self.catalog),
                    opens=f"{opens:%H:%M}",
                    closes=f"{closes:%H:%M}",
                )
            ]
        return []

    def says(self, slot: Slot, slots: dict[str, Any], flow: Flow) -> str | None:
        value = slots.get(slot.slot)
        if slot.kind == "choice":
            option = slot.options.get(value or "")
            if option is None or option.says is None:
                return None
            try:
                return option.says.format(**shown_values(flow, slots))
            except KeyError:
                return option.says_unplaced or option.choice
        if not value:
            return None
        if slot.says:
            return slot.says.format(value=value)
        if slot.kind == "item":
            product = self.catalog.product(value)
            return f"**{product.name if product else value}**"
        if slot.kind == "date":
            return day_words(dt.date.fromisoformat(value), self.catalog)
        if slot.kind == "time":
            return say(self.catalog, "flow_at", time=value)
        if slot.kind == "person":
            return say(self.catalog, "flow_for", name=value)
        return None


def shown_values(flow: Flow, slots: dict[str, Any]) -> dict[str, Any]:
    """The slots' values as a sentence shows them: a choice as its option says it in the reply's
    language ("গুলশান"), not the value it is kept as ("Gulshan")."""
    shown = {}
    for name, value in slots.items():
        if value:
            options = next((s.options for s in flow.slots() if s.slot == name), {})
            shown[name] = options[value].choice if isinstance(value, str) and value in options else value
    return shown


def filled(slot: Slot, slots: dict[str, Any]) -> bool:
    """Whether a slot has its value: an attachment slot, a file for each thing it needs."""
    value = slots.get(slot.slot)
    return len(value or []) >= len(slot.needs) if slot.kind == "attachment" else bool(value)
