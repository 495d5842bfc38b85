"""The troubleshoot action: once its flow knows the item and what goes wrong, the fix from the knowledge base.

The device the customer names ("my laptop") narrows the articles to the ones for that device.
The fix is only ever an article found by the knowledge-base tool, never made up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant.dialogue.flows import FlowStep
from assistant.pack.model import Catalog, FaqEntry
from assistant.pack.texts import say

Search = Callable[[str, str | None], list[tuple[FaqEntry, float]]]
Relevant = Callable[[str, FaqEntry, float], bool]


def find_fix(flow_name: str, slots: dict[str, Any], catalog: Catalog, search: Search, relevant: Relevant) -> FlowStep:
    """The article for everything said about the fault, if one is relevant to what was said;
    otherwise the service desk takes it."""
    flow = catalog.pack.flows[flow_name]
    notes = [said for s in flow.slots() if s.kind == "notes" for said in slots.get(s.slot, [])]
    items = [slots[s.slot] for s in flow.slots() if s.kind == "item" and slots.get(s.slot)]
    device = next((slots[s.slot] for s in flow.slots() if s.kind == "filter" and slots.get(s.slot)), None)
    names = [product.name if (product := catalog.product(item)) else item for item in items]
    hits = search(" ".join([*notes, *names, device or ""]).strip(), device)
    said = [" ".join(notes), *notes]  # all told, or one message alone, may name the fault
    if hits and any(relevant(text, hits[0][0], hits[0][1]) for text in said):
        return FlowStep(slots={**slots, "article": hits[0][0].id}, article=hits[0][0], done=True)
    return FlowStep(slots=slots, text=say(catalog, "faq_not_found"), done=True)
