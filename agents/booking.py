"""The Booking agent: a booking flow's next step, through the booking desk, or through the flow
action a pack's extension adds (a case for an office)."""

from __future__ import annotations

from typing import Any

from agents.work import TurnWork, goal_of, said
from assistant.dialogue.commands import ConfirmChange, first
from assistant.dialogue.flows import Said, Sent
from assistant.pack.model import Product


def booking(work: TurnWork) -> None:
    assert work.services.desk is not None, "the booking agent runs only where the pack books"
    goal, request = goal_of(work), work.request
    action = work.services.actions.get(work.services.catalog.pack.flows[goal.type].action)
    if action:
        files = [Sent(id=f.id, kind=f.kind) for f in request.attachments]
        step = Said(text=request.query, attachments=files)
        work.out.flow_step = action.step(goal.type, goal.slots, step, request.state, lambda *args: _call(work, *args))
        return
    confirm: ConfirmChange | None = first(request.commands, ConfirmChange)  # the answer to a change shown old -> new
    work.out.flow_step = work.services.desk.step(
        goal.type, goal.id, goal.slots, said(work), request.state.session_id, confirm.accept if confirm else None
    )
    profile = request.state.profile
    if profile and work.services.tools.allowed("booking", "check_eligibility"):  # an item they can't have is said first
        work.out.verdicts = [work.tools.check_eligibility("booking", p, profile) for p in _newly_booked(work)] or None


def _newly_booked(work: TurnWork) -> list[Product]:
    """The items a booking flow's step holds that its goal did not hold before this message."""
    assert work.out.flow_step is not None, "the booking's step, just taken"
    catalog, before, after = work.services.catalog, goal_of(work).slots, work.out.flow_step.slots
    slots = [s.slot for s in catalog.pack.flows[goal_of(work).type].slots() if s.kind == "item"]
    return catalog.products_by_id([after[s] for s in slots if after.get(s) and after.get(s) != before.get(s)])


def _call(work: TurnWork, tool: str, *args: Any) -> Any:
    """A tool an extension's flow runs in this turn, as the booking agent (the pack's allow-list
    and its constraints hold: a price only from the tool that gives it)."""
    return work.call("booking", tool, *args)
