"""The Support agent's work: a troubleshooting goal, slot by slot, then the fix from the knowledge base.

It needs the model and the symptom (the pack's support.questions, asked one at a time); the
device the customer names ("my laptop") narrows the articles to the ones for that device.
The fix is only ever an article found by the knowledge-base tool, never made up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from assistant.dialogue.goals import Goal
from assistant.pack.model import Catalog, FaqEntry, SupportSlot
from assistant.pack.texts import say
from assistant.understanding.reader import Intent

SLOTS: tuple[SupportSlot, ...] = ("model", "symptom")
_CLAUSE = re.compile(r"\s*(?:[,;.!?]|\band\b|\bbut\b)\s*")
Search = Callable[[str, str | None], list[tuple[FaqEntry, float]]]
Relevant = Callable[[str, FaqEntry, float], bool]


@dataclass
class SupportStep:
    text: str
    question: str | None = None
    article: FaqEntry | None = None
    done: bool = False


def troubleshoot(goal: Goal, text: str, intent: Intent, catalog: Catalog, search: Search,
                 relevant: Relevant) -> SupportStep:
    support = catalog.pack.support
    assert support is not None, "only a pack with support starts a troubleshooting goal"
    slots = goal.slots
    waiting_for = goal.missing[:1]
    _read(slots, text, intent, catalog, support.device_filter, waiting_for)
    missing = [s for s in SLOTS if not slots.get(s)]
    goal.missing = list(missing)
    if missing:
        return SupportStep(text="", question=support.questions[missing[0]])
    device = slots.get("device")
    query = " ".join([*slots["symptom"], slots["model"], device or ""]).strip()
    hits = search(query, device)
    said = [" ".join(slots["symptom"]), *slots["symptom"]]  # all told, or one message alone, may name the fault
    if hits and any(relevant(symptom, hits[0][0], hits[0][1]) for symptom in said):
        slots["article"] = hits[0][0].id
        return SupportStep(text="", article=hits[0][0], done=True)
    return SupportStep(text=say(catalog, "faq_not_found"), done=True)


def _read(slots: dict, text: str, intent: Intent, catalog: Catalog, device_filter: str | None,
          waiting_for: list[str]) -> None:
    """Fill the slots this message answers: a named item or the answer to "which model?",
    the device it is, and what goes wrong."""
    said_device = intent.filters.get(device_filter) if device_filter else None
    named = catalog.products_by_id(intent.named)
    if named:
        slots["model"] = named[0].name
        if device_filter:
            attribute, _ = catalog.pack.filter_attributes()[device_filter]
            said_device = said_device or named[0].value(attribute)
    elif waiting_for == ["model"] and text.strip():
        slots["model"] = _CLAUSE.split(text.strip(), maxsplit=1)[0][:80] or text.strip()[:80]
    if said_device:
        slots["device"] = said_device[0] if isinstance(said_device, list) else said_device
    if intent.type == "support" or waiting_for == ["symptom"]:
        slots["symptom"] = [*slots.get("symptom", []), text.strip()[:300]]
