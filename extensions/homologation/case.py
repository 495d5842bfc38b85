"""A case (a form collected step by step, then submitted) on the flow engine: a `submit` flow of the pack, whose first
steps are built for the elements quoted, then handed to the office.

Per element quoted, in order: its photos (an attachment slot, one file per photo the element
needs), then its data fields as one step, so the engine's smart collection asks them at once,
one by one, or base then conditional. Then the base documents (photos or a PDF), then the
pack's own steps (personal data, vehicle, workshop) and its review, a choice that confirms
the summary. Any message may correct a value by naming it; "how is it going?", "what was the
price?", "send me the example photos again" and a request for a person are answered without
leaving the flow, whose question is then asked again. A confirmed review is submitted to the case
store, and the case id is the reply.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

from assistant.dialogue.extension import ToolCall
from assistant.dialogue.flows import FlowEngine, FlowStep, filled
from assistant.dialogue.said import Said
from assistant.dialogue.state import SessionState
from assistant.language import phrases
from assistant.language.privacy import redact_codes
from assistant.pack.checks import Check
from assistant.pack.display import money
from assistant.pack.flows import Flow, Option, Slot, Step
from assistant.pack.model import Catalog
from assistant.pack.texts import every_way, one_of, say
from extensions.homologation.data import DOCUMENTS_STAGE, ELEMENT_STAGE, NAME, data_of
from extensions.homologation.elements import DataField, Elements
from extensions.homologation.quote import images, kept_quote
from extensions.homologation.tariff import mentions

ELEMENTS = "case_elements"  # the slots that hold the codes quoted when the case opened, and its price
PRICE = "case_price"
CASE_ID = "case_id"
DOCUMENTS = "documents"


Price = Callable[[list[str]], float]  # the tariff tool, run in the turn that says the price
Aside = Literal["progress", "price", "images"]  # what a message asks about the case rather than answering it


class Submitter(Protocol):
    """The office's side (extensions/homologation/case_store.py): keeps a record, returns its id."""

    def submit(self, case: dict[str, Any], reply: Callable[[str], str] | None = None) -> str: ...


class CaseDesk:
    """Runs the pack's `submit` flows."""

    def __init__(self, catalog: Catalog, engine: FlowEngine, store: Submitter, clock: Callable[[], dt.datetime]):
        self.catalog, self.engine, self.store, self.clock = catalog, engine, store, clock

    @property
    def elements(self) -> Elements:
        """The elements in the reply's language (their warnings, photos' labels, the tax note)."""
        return data_of(self.catalog).elements

    def flow(self, name: str, slots: dict[str, Any]) -> Flow:
        """The pack's flow with the steps of the elements quoted first."""
        return build(self.engine.flow(name), list(slots.get(ELEMENTS) or []), self.elements, self.catalog)

    def asks_progress(self, name: str, text: str) -> bool:
        """Whether the message asks about the case rather than answering it: how far it is, what
        its quote came to, or the example photos again, each answered inside the case (a person
        is the people desk's: assistant/handover)."""
        return self._aside(name, text) is not None

    def _aside(self, name: str, text: str) -> Aside | None:
        words, setup = self.engine.flow(name).progress_words, data_of(self.catalog).setup
        if words and phrases(words).search(text):
            return "progress"
        if mentions(text, setup.asks_price):
            return "price"
        if mentions(text, setup.asks_images):
            return "images"
        return None

    def answers(self, name: str, slots: dict[str, Any], text: str) -> bool:
        """Whether a message gives a value the case takes."""
        flow = self.flow(name, slots)
        asked = self.engine.asked(flow, self.engine.missing(flow, slots))
        patch, _ = self.engine.forms.read(flow, Said(text=text), asked, slots)
        return any(value is not None for value in patch.values())

    def chooses(self, name: str, slots: dict[str, Any], text: str) -> bool:
        """Whether a message picks an option of the choice the case asked ("no" is then no cancel)."""
        flow = self.flow(name, slots)
        asked = [flow.slot(s) for s in self.engine.asked(flow, self.engine.missing(flow, slots))]
        return any(s.kind == "choice" and self.engine.forms.choice(s, text) for s in asked)

    def step(self, name: str, slots: dict[str, Any], said: Said, state: SessionState, call: ToolCall) -> FlowStep:
        """The case's next question, an answer about it, or the case submitted; `call` runs the
        tariff of the elements, whose price the review says (a price is said only from the tool)."""
        price: Price = lambda codes: float(call("tariff", codes).price)  # noqa: E731
        if ELEMENTS not in slots:
            return self._open(name, state, price)
        flow = self.flow(name, slots)
        aside = None if said.attachments else self._aside(name, said.text)  # files sent are an answer
        if aside:
            asking = self.engine.ask(flow, slots)
            codes = list(slots.get(ELEMENTS) or [])
            sent = images(codes, self.elements) if aside == "images" else []
            return FlowStep(
                slots=slots,
                missing=asking.missing,
                text=self._answer(aside, flow, slots, asking.missing, price),
                question=self.question(flow, slots, asking.missing, price),
                choices=asking.choices,
                images=sent,
            )
        asked = self.engine.asked(flow, self.engine.missing(flow, slots))
        collected = self.engine.collect(flow, slots, Said(text=said.text, asked=asked, attachments=said.attachments), self.clock())
        review = flow.steps[-1].collect[-1]
        changed = any(collected.slots.get(k) != slots.get(k) for k in {*slots, *collected.slots} - {review.slot})
        if changed and collected.slots.get(review.slot):  # a correction at the review: the summary again
            collected.slots[review.slot] = None
        chosen = review.options.get(collected.slots.get(review.slot) or "")
        if chosen is not None and chosen is not next(iter(review.options.values())):  # "no": what to correct
            collected.slots[review.slot] = None
            return FlowStep(slots=collected.slots, missing=[review.slot], question=say(self.catalog, "case_correct"))
        missing = self.engine.missing(flow, collected.slots)
        if missing:
            notes = [*self._corrected(flow, slots, collected.slots, asked), *self._files_taken(flow, slots, collected.slots)]
            notes += collected.problems
            return FlowStep(
                slots=collected.slots,
                missing=missing,
                text="\n\n".join(notes),
                question=self.question(flow, collected.slots, missing, price),
                choices=collected.choices,
            )
        return self._submit(flow, collected.slots, state, said.text)

    def question(self, flow: Flow, slots: dict[str, Any], missing: list[str], price: Price) -> str | None:
        """The next question: the photos still needed, the fields of the step (a list when
        several), or the review's summary."""
        asked = self.engine.asked(flow, missing)
        if not asked:
            return None
        first = flow.slot(asked[0])
        if first.kind == "attachment":
            have = len(slots.get(first.slot) or [])
            if not have:
                return first.ask
            needs = first.needs[have:]
            return say(self.catalog, "case_files_missing", count=len(needs), what=_phase(flow, first), needs=_bullets(needs))
        if first is flow.steps[-1].collect[-1]:
            return say(self.catalog, "case_review", summary=self.summary(flow, slots, price), question=first.ask)
        if len(asked) == 1:
            return first.ask
        fields = _bullets(f"**{flow.slot(name).name}**: {flow.slot(name).ask}" for name in asked)
        return say(self.catalog, "case_fields", what=_phase(flow, first), fields=fields)

    def _answer(self, aside: Aside, flow: Flow, slots: dict[str, Any], missing: list[str], price: Price) -> str:
        """A question about the case, answered before its own question is asked again."""
        if aside == "progress":
            return self.progress(flow, slots, missing)
        codes = list(slots.get(ELEMENTS) or [])
        if aside == "price":
            names = one_of([self.elements.name_of(code) for code in codes], self.catalog, "and")
            return say(self.catalog, "case_quoted", price=self._price(price(codes)), tax=self.elements.tax_note, elements=names)
        return say(self.catalog, "case_examples") + "".join(f"\n- {image.label}" for image in images(codes, self.elements))

    def at(self, name: str, slots: dict[str, Any], missing: list[str]) -> Step | None:
        """The step the case is at: the one holding the first slot still missing."""
        first = missing[0] if missing else None
        return next((step for step in self.flow(name, slots).steps if any(s.slot == first for s in step.collect)), None)

    def progress(self, flow: Flow, slots: dict[str, Any], missing: list[str]) -> str:
        """Where the case stands: the phases done, the one at hand and what it still needs."""
        phases = list(dict.fromkeys(step.phase or "" for step in flow.steps))
        current = next((step for step in flow.steps if any(s.slot in missing for s in step.collect)), flow.steps[-1])
        pending = [
            ", ".join(s.needs[len(slots.get(s.slot) or []) :]) if s.kind == "attachment" else s.name
            for s in current.collect
            if s.slot in missing
        ]
        done = phases.index(current.phase or "")
        return say(
            self.catalog,
            "case_progress",
            done=done,
            total=len(phases),
            phase=current.phase or "",
            missing=", ".join(pending),
        )

    def summary(self, flow: Flow, slots: dict[str, Any], price: Price) -> str:
        """Every element with its variant, the price, and every value collected, by phase."""
        total = price(list(slots.get(ELEMENTS) or []))
        lines = [say(self.catalog, "case_total", price=self._price(total), tax=self.elements.tax_note)]
        review = flow.steps[-1].collect[-1]
        heading = None
        for step in flow.steps:
            shown = [s for s in step.collect if s is not review and self.engine.applies(s, slots) and filled(s, slots)]
            if shown and step.phase != heading:
                heading = step.phase
                lines.append(f"**{heading}**")
            lines += [f"- {s.name}: {self._shown(s, slots[s.slot])}" for s in shown]
        return "\n".join(lines)

    def _open(self, name: str, state: SessionState, price: Price) -> FlowStep:
        """The case opens on a quote given with no question open; else it says what it needs first."""
        quote = kept_quote(state.extensions.get(NAME))
        if quote is None or quote.pending or not quote.elements or quote.price is None:
            return FlowStep(slots={}, text=say(self.catalog, "case_no_quote"), done=True)
        slots: dict[str, Any] = {ELEMENTS: list(quote.elements), PRICE: quote.price}
        flow = self.flow(name, slots)
        missing = self.engine.missing(flow, slots)
        names = ", ".join(self.elements.name_of(code) for code in quote.elements)
        return FlowStep(
            slots=slots,
            missing=missing,
            text=say(self.catalog, "case_opened", elements=names),
            question=self.question(flow, slots, missing, price),
        )

    def _corrected(self, flow: Flow, before: dict[str, Any], after: dict[str, Any], asked: Sequence[str]) -> list[str]:
        """A value said anew outside its question ("la marca es Yamaha") is said back, so the
        customer sees which one changed."""
        said = [s for s in flow.slots() if s.kind != "attachment" and s.slot not in asked and before.get(s.slot)]
        changed = [s for s in said if after.get(s.slot) not in (None, before[s.slot])]
        told = "; ".join(f"{s.name}: {self._shown(s, after[s.slot])}" for s in changed)
        return [say(self.catalog, "case_corrected", changes=told)] if changed else []

    def _files_taken(self, flow: Flow, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """Files taken now are acknowledged ("done" without them is no answer: the question says what is missing)."""
        holders = [s for s in flow.slots() if s.kind == "attachment"]
        counts = [(s, len(after.get(s.slot) or []) - len(before.get(s.slot) or [])) for s in holders]
        return [say(self.catalog, "case_files_taken", count=n, what=_phase(flow, s)) for s, n in counts if n > 0]

    def _submit(self, flow: Flow, slots: dict[str, Any], state: SessionState, text: str) -> FlowStep:
        """The case handed in, its transcript ending with the message that confirmed it and the reply (with the case id)."""
        record = self.record(flow, slots, state, text)
        case_id = self.store.submit(record, lambda case_id: say(self.catalog, "case_submitted", id=case_id))
        slots = {**slots, CASE_ID: case_id}
        return FlowStep(slots=slots, text=say(self.catalog, "case_submitted", id=case_id), done=True, submitted=case_id)

    def record(self, flow: Flow, slots: dict[str, Any], state: SessionState, text: str = "") -> dict[str, Any]:
        """The case as the office reads it: elements, variants, tariff, fields, documents, the
        customer's data by phase, and the conversation, to `text`, the message of this turn (the
        session remembers the turn only once it is answered)."""
        codes = list(slots.get(ELEMENTS) or [])
        elements = []
        for index, code in enumerate(codes):
            base, variant = self.elements.split(code)
            fields = {
                s.name: self._shown(s, slots[s.slot])
                for s in flow.slots()
                if s.slot.startswith(f"e{index}_") and s.kind != "attachment" and filled(s, slots) and self.engine.applies(s, slots)
            }
            photos = slots.get(f"e{index}_photos") or []
            elements.append(
                {
                    "code": code,
                    "element": base,
                    "variant": variant,
                    "name": self.elements.name_of(code),
                    "fields": fields,
                    "photos": photos,
                }
            )
        generated = {s.slot for step in flow.steps[: _built(flow, codes, self.elements)] for s in step.collect}
        review = flow.steps[-1].collect[-1]
        data: dict[str, dict[str, Any]] = {}
        for step in flow.steps:
            values = {
                s.name: self._shown(s, slots[s.slot])
                for s in step.collect
                if s.slot not in generated and s is not review and filled(s, slots) and self.engine.applies(s, slots)
            }
            if values:
                data[step.phase or ""] = values
        return {
            "session_id": state.session_id,
            "customer_id": state.customer_id,
            "title": say(self.catalog, "case_title"),
            "labels": {key: say(self.catalog, f"case_section_{key}") for key in ("elements", "tariff", "documents", "data")},
            "elements": elements,
            "tariff": {"price": slots.get(PRICE), "tax_note": self.elements.tax_note, "warnings": _warnings(codes, self.elements)},
            "documents": slots.get(DOCUMENTS) or [],
            "data": data,
            "transcript": [
                *({"role": t.role, "text": t.text, "at": t.at} for t in state.history),
                *([{"role": "user", "text": redact_codes(text), "at": self.clock().timestamp()}] if text else []),
            ],
        }

    def _shown(self, slot: Slot, value: Any) -> str:
        if slot.kind == "choice":
            option = slot.options.get(value)
            return option.choice if option else str(value)
        if slot.kind == "attachment":
            return say(self.catalog, "case_files_count", count=len(value))
        return f"{value:g}" if isinstance(value, float) else str(value)

    def _price(self, price: float | None) -> str:
        return money(price, self.catalog.business)


def build(flow: Flow, codes: Sequence[str], elements: Elements, catalog: Catalog) -> Flow:
    """The flow with, before its own steps, each element's photos and fields, then the base documents."""
    steps: list[Step] = []
    for index, code in enumerate(codes):
        name = elements.name_of(code)
        photos = elements.photos_of(code)
        if photos:
            needs = [p.label for p in photos]
            ask = say(catalog, "case_photos", count=len(needs), what=name, needs=_bullets(needs))
            label = say(catalog, "case_photos_label")
            slot = Slot(slot=f"e{index}_photos", kind="attachment", ask=ask, label=label, needs=needs)
            steps.append(Step(collect=[slot], phase=name, stage=ELEMENT_STAGE))
        fields = elements.fields_of(code)
        own = data_of(catalog, own=True).elements.fields_of(code)  # the options' values, untranslated
        if fields:
            slots = [_field_slot(index, f, source, catalog) for f, source in zip(fields, own, strict=True)]
            steps.append(Step(collect=slots, phase=name, stage=ELEMENT_STAGE))
    if elements.documents:
        needs = [d.label for d in elements.documents]
        what = say(catalog, "case_documents")
        ask = say(catalog, "case_documents_ask", count=len(needs), what=what, needs=_bullets(needs))
        slot = Slot(slot=DOCUMENTS, kind="attachment", ask=ask, label=what, needs=needs, accepts=["image", "pdf"])
        steps.append(Step(collect=[slot], phase=what, stage=DOCUMENTS_STAGE))
    return flow.model_copy(update={"steps": [*steps, *flow.steps]})


def _field_slot(index: int, field: DataField, source: DataField, catalog: Catalog) -> Slot:
    """An element's data field as a slot of the case: checked as its validation says. A choice's
    values are the source's (other fields' conditions name them), shown in the reply's language
    and known by their words in every language the pack speaks."""
    raw: dict[str, Any] = {
        "slot": _slot_name(index, field.key),
        "label": field.label,
        "ask": field.instruction,
        "words": [field.key.replace("_", " ")],
        "if": {_slot_name(index, key): values for key, values in field.when.items()},
    }
    rules = field.validation.model_dump(exclude_none=True)
    if field.type == "number":
        raw |= {"kind": "number", "check": Check(**rules)}
    elif field.type == "choice":
        pairs = zip(source.options, field.options, strict=True)
        options = {value: Option(choice=said, words=list(dict.fromkeys([said, value]))) for value, said in pairs}
        raw |= {"kind": "choice", "options": options}
    elif field.type == "bool":
        answers = {v: Option(choice=say(catalog, f"case_{v}"), words=every_way(catalog, f"case_{v}")) for v in ("yes", "no")}
        raw |= {"kind": "choice", "options": answers}
    elif field.type == "date":
        raw |= {"kind": "text", "check": Check(named="date")}
    else:
        raw |= {"kind": "text", "whole": True, "check": Check(**rules) if rules else None}
    return Slot.model_validate(raw)


def _slot_name(index: int, key: str) -> str:
    return f"e{index}_{re.sub(r'[^a-z0-9_]', '_', key.lower())}"[:40]


def _built(flow: Flow, codes: Sequence[str], elements: Elements) -> int:
    """How many of the flow's first steps were built for the elements (and the documents)."""
    per_element = sum(bool(elements.photos_of(c)) + bool(elements.fields_of(c)) for c in codes)
    return per_element + bool(elements.documents)


def _phase(flow: Flow, slot: Slot) -> str:
    return next(step.phase or "" for step in flow.steps if slot in step.collect)


def _warnings(codes: Sequence[str], elements: Elements) -> list[str]:
    return list(dict.fromkeys(w for code in codes for w in elements.warnings_of(code)))


def _bullets(lines: Sequence[str] | Any) -> str:
    return "\n".join(f"- {line}" for line in lines)
