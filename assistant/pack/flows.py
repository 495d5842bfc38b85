"""Flows as pack data: what a goal collects step by step, and what it does at the end.

The model is Rasa CALM's flows with `collect` steps. A flow is started by an intent and lists
its steps; a step collects one slot, or a group of slots asked together. Each slot has a kind
(how the engine reads it from a message), a question, and optionally a condition on another
slot and the options it may take. At the end a flow may confirm with a one-time code sent to
its phone slot, then runs its action. See docs/domain-packs.md, "Flows".
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assistant.language.lexicon import Weekday
from assistant.pack.checks import Check

# How a slot is read: a catalog item, one of its options, a day, a time, a person's name, a
# phone number, a number, the answer as said, everything said about it, a filter's value, the
# files sent with the message (photos, PDFs), or an e-mail address.
SlotKind = Literal["item", "choice", "date", "time", "person", "phone", "number", "text", "notes", "filter", "attachment", "email"]
AttachmentKind = Literal["image", "pdf"]
# The engine's flow actions: book, the desk's own booking; troubleshoot, a fix from the help
# centre; reserve, a booking with the service a pack's extension provides. An extension may add
# its own (a case handed to an office), checked at start-up against those it loaded.
ENGINE_ACTIONS = ("book", "troubleshoot", "reserve")
AgentOfFlow = Literal["booking", "support"]
RESERVES_WITH = ("date", "time", "number", "person", "phone")  # a table: when, for how many, for whom
FORM_KINDS = ("choice", "person", "phone", "number", "text", "attachment", "email")  # what `reads: asked` reads
# The stage LLM mode knows without a flow step naming it (pack.yaml `prompting.phases`): a flow
# done; a pack's extensions add the stages of the steps they build (assistant/pack/extension.py).
DONE_STAGE = "completed"
# What sets a flow aside by default: questions, searches and other requests (a pack's
# troubleshooting, whose answers sound like questions, narrows it).
INTERRUPTED_BY = ("faq", "feature_query", "comparison", "eligibility_check", "calculate", "support", "product_info")
BATCH_FROM = 3  # a group of this many simple slots is asked all at once; fewer, one at a time


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Option(_Strict):
    """One value a choice slot may take, said in the customer's words."""

    shown: ClassVar[tuple[str, ...]] = ("choice", "says", "says_unplaced", "confirm")

    choice: str  # the quick reply ("Branch visit")
    words: list[str] = []  # what customers say for it; a plain option is known by its first word
    says: str | None = None  # how the summary puts it: "a visit to our {branch} branch"
    says_unplaced: str | None = None  # the same before the slots it names are known
    confirm: str | None = None  # the confirmation's line: "See you at our {branch} branch"
    hours: dict[Weekday, tuple[dt.time, dt.time]] = {}  # when it can be booked; none: any time
    # bookings that may start in the same hour (per value of the slots asked only for it: per
    # branch); none: no limit. Only the schedule's `hours_of` options have one.
    capacity: int | None = Field(default=None, ge=1)


class Slot(_Strict):
    """One detail a flow collects."""

    shown: ClassVar[tuple[str, ...]] = ("ask", "says", "label")

    slot: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    kind: SlotKind
    ask: str  # the question
    required: bool = True
    # only asked when another slot has one of these values: {channel: [branch]}
    if_: dict[str, list[str]] = Field(default={}, alias="if")
    options: dict[str, Option] = {}  # a choice's values; a list of names in YAML is read as plain options
    says: str | None = None  # how the summary puts it ("for {value}"); None: the kind's way, or nothing
    filter: str | None = None  # a filter kind's filter ("category"), also read from the item named
    narrowed_by_filters: bool = False  # an item kind: the one item the message's filters leave counts as named
    free_text: bool = False  # an item kind: an answer naming no catalog item is kept as said
    range: tuple[int, int] | None = None  # a number kind: the values it takes (a table seats 1 to 20)
    label: str | None = None  # how a summary and a correction name it ("E-mail"); None: the slot's name
    words: list[str] = []  # other names the customer calls it by ("correo"): "el correo es …" corrects it
    check: Check | None = None  # a text or number kind: what its value must be, else refused with its `ask`
    whole: bool = False  # a text kind: the whole answer (an address), not only its first clause
    private: bool = False  # who the customer is (an id, an address): masked wherever state is shown
    # whose value it is: empty, the customer's (or anyone's); else the words that name the other party
    # it belongs to ("taller", "workshop"), whose values go here and never to the customer's own slots
    of: list[str] = []
    needs: list[str] = []  # an attachment kind: what each file must show, in order (one file each)
    accepts: list[AttachmentKind] = ["image"]  # an attachment kind: the kinds of file it takes

    @model_validator(mode="before")
    @classmethod
    def _plain_options(cls, raw: object) -> object:
        """`options: [Gulshan, Dhanmondi]`: plain options, known by their first word."""
        if isinstance(raw, dict) and isinstance(raw.get("options"), list):
            raw = {**raw, "options": {str(name): {"choice": str(name)} for name in raw["options"]}}
        if isinstance(raw, dict) and isinstance(raw.get("if"), dict):
            raw = {**raw, "if": {k: v if isinstance(v, list) else [v] for k, v in raw["if"].items()}}
        return raw

    @model_validator(mode="after")
    def _kind_needs(self) -> Slot:
        if self.kind == "choice" and not self.options:
            raise ValueError(f"choice slot '{self.slot}' needs options")
        if self.kind == "filter" and not self.filter:
            raise ValueError(f"filter slot '{self.slot}' needs filter")
        if self.range and (self.kind != "number" or self.range[0] > self.range[1]):
            raise ValueError(f"slot '{self.slot}': a range is a number slot's, lowest first")
        if self.check and self.kind not in ("text", "number"):
            raise ValueError(f"slot '{self.slot}': a check is a text or number slot's")
        if self.kind == "attachment" and not self.needs:
            raise ValueError(f"attachment slot '{self.slot}' needs `needs`: what each file shows")
        return self

    @property
    def name(self) -> str:
        """How replies name it."""
        return self.label or self.slot.replace("_", " ")

    @property
    def own(self) -> bool:
        """Whether it holds who the customer is or how to reach them (a phone, an e-mail, a private
        detail), which a value said of someone else ("my friend's number") never fills."""
        return not self.of and (self.kind in ("phone", "email") or self.private)


class Step(_Strict):
    """A group of slots asked about together; a single slot is a step of its own."""

    shown: ClassVar[tuple[str, ...]] = ("ask", "phase")

    collect: list[Slot] = Field(min_length=1)
    ask: str | None = None  # the group's question when asked at once; default: the slots' questions
    mode: Literal["sequential", "batch", "hybrid"] | None = None  # None: chosen by the slots (collection_mode)
    phase: str | None = None  # how progress names the part of the flow it belongs to ("Datos personales")
    stage: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]{0,39}$")  # its key in pack.yaml `prompting.phases`

    @model_validator(mode="before")
    @classmethod
    def _single(cls, raw: object) -> object:
        return {"collect": [raw]} if isinstance(raw, dict) and "slot" in raw else raw


class Schedule(_Strict):
    """Which slots say when, checked to be in the future and inside the chosen option's hours."""

    date: str = "date"
    time: str = "time"
    hours_of: str | None = None  # the choice slot whose option's hours apply ("channel")


class Flow(_Strict):
    shown: ClassVar[tuple[str, ...]] = ("resumed", "subject", "start")

    intent: str  # the intent that starts it ("booking", "support")
    agent: AgentOfFlow = "booking"
    priority: int = 1  # higher interrupts lower; a quick question (2) interrupts a booking (1)
    # While it waits for an answer, what sets it aside (resumed after): a message the reader takes
    # for one of these intents; anything else is read as the answer ("which model?" -> a name).
    interrupted_by: list[str] = list(INTERRUPTED_BY)
    called: list[str] = []  # what customers call what it makes besides its subject: "move my booking" names it
    resumed: str = ""  # "Back to your appointment:"
    subject: str = ""  # "appointment", "test drive": how replies name what is being collected
    start: str = ""  # the summary before any detail is known
    steps: list[Step] = Field(min_length=1)
    schedule: Schedule | None = None
    confirm: Literal["code"] | None = None  # a one-time code to the phone slot before the action
    action: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")]  # one of ENGINE_ACTIONS, or an extension's
    reminder_minutes_before: int = Field(default=60, ge=1)
    # "asked": a slot is read only from an answer to its question, or where the message names it
    # ("the e-mail is …") or it has a form nothing else has (an e-mail): a long form whose values
    # look alike. "anywhere": every slot from every message (a booking's day, time and branch).
    reads: Literal["anywhere", "asked"] = "anywhere"
    start_words: list[str] = []  # what starts it besides its intent ("let's do it" after a quote)
    progress_words: list[str] = []  # "how is my case going?": where the flow stands, then the question again
    value_words: list[str] = []  # words between a slot's name and its value ("the e-mail is …": is)

    @model_validator(mode="after")
    def _consistent(self) -> Flow:
        names = [s.slot for s in self.slots()]
        if len(set(names)) != len(names):
            raise ValueError(f"a slot is collected twice: {names}")
        for slot in self.slots():
            unknown = set(slot.if_) - set(names)
            if unknown:
                raise ValueError(f"slot '{slot.slot}' depends on unknown slots {sorted(unknown)}")
        if self.confirm == "code" and not any(s.kind == "phone" for s in self.slots()):
            raise ValueError("confirm: code needs a phone slot to send the code to")
        if self.schedule and not {self.schedule.date, self.schedule.time} <= set(names):
            raise ValueError("schedule names slots the flow does not collect")
        hours_of = self.schedule.hours_of if self.schedule and self.action == "book" else None
        capped = [s.slot for s in self.slots() if s.slot != hours_of and any(o.capacity for o in s.options.values())]
        if capped:
            raise ValueError(f"slots {capped}: a capacity is for the options of a book flow's schedule.hours_of slot")
        if self.action == "book" and not (self.schedule and self.asks_item):
            raise ValueError("a book action needs an item slot and a schedule")
        lacking = sorted(set(RESERVES_WITH) - {s.kind for s in self.slots()})
        if self.action == "reserve" and lacking:
            raise ValueError(f"a reserve action needs slots of the kinds {lacking}")
        formless = sorted({s.kind for s in self.slots()} - set(FORM_KINDS))
        if self.reads == "asked" and formless:
            raise ValueError(f"a flow that reads only what was asked can't read the kinds {formless}")
        return self

    @property
    def books(self) -> bool:
        """Whether it ends in a booking (shown on the page, changed by a later message)."""
        return self.action in ("book", "reserve")

    def slots(self) -> list[Slot]:
        return [slot for step in self.steps for slot in step.collect]

    @property
    def asks_item(self) -> bool:
        """Whether one of its slots is the item it is about (the card, the car, the restaurant)."""
        return any(s.kind == "item" for s in self.slots())

    def slot(self, name: str) -> Slot:
        return next(s for s in self.slots() if s.slot == name)
