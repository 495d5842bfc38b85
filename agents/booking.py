"""The Booking agent: a booking flow's next step, through the booking desk, or through the flow
action a pack's extension adds (a case for an office)."""

from __future__ import annotations

from typing import Any

from agents.help import faq_answer
from agents.spec import Agent, Answer, Asked, Draft, Step
from assistant.dialogue.commands import ConfirmChange, first
from assistant.dialogue.flows import FlowStep
from assistant.dialogue.said import Said, Sent
from assistant.dialogue.work import Stepped, TurnWork, goal_of, said
from assistant.pack.model import Catalog, Product
from assistant.pack.texts import say
from assistant.tools.eligibility import Verdict


def booking(work: TurnWork) -> Stepped:
    assert work.services.desk is not None, "the booking agent runs only where the pack books"
    goal, request = goal_of(work), work.request
    action = work.services.actions.get(work.services.catalog.pack.flows[goal.type].action)
    if action:
        files = [Sent(id=f.id, kind=f.kind) for f in request.attachments]
        message = Said(text=request.query, attachments=files)
        return Stepped(action.step(goal.type, goal.slots, message, request.state, lambda *args: _call(work, *args)))
    confirm: ConfirmChange | None = first(request.commands, ConfirmChange)  # the answer to a change shown old -> new
    step = work.services.desk.step(
        goal.type, goal.id, goal.slots, said(work), request.state.session_id, confirm.accept if confirm else None
    )
    profile = request.state.profile
    if profile and work.services.tools.allowed("booking", "check_eligibility"):  # an item they can't have is said first
        return Stepped(step, verdicts=[work.tools.check_eligibility("booking", p, profile) for p in _newly_booked(work, step)])
    return Stepped(step)


def _newly_booked(work: TurnWork, step: FlowStep) -> list[Product]:
    """The items a booking flow's step holds that its goal did not hold before this message."""
    catalog, before, after = work.services.catalog, goal_of(work).slots, step.slots
    slots = [s.slot for s in catalog.pack.flows[goal_of(work).type].slots() if s.kind == "item"]
    return catalog.products_by_id([after[s] for s in slots if after.get(s) and after.get(s) != before.get(s)])


def _call(work: TurnWork, tool: str, *args: Any) -> Any:
    """A tool an extension's flow runs in this turn, as the booking agent (the pack's allow-list
    and its constraints hold: a price only from the tool that gives it)."""
    return work.call("booking", tool, *args)


def needed(asked: Asked) -> Step | None:
    """A flow it takes: a booking, or a flow an extension's action runs."""
    return Step.FLOW if asked.flow_agent() == "booking" else None


def show(answer: Answer, work: TurnWork, draft: Draft) -> None:
    """A flow's step, whichever agent took it: the items it holds, an item booked that isn't open
    to them said first, then the article that answers or the step's words, then its question."""
    out, catalog = work.out, work.services.catalog
    if answer is not Answer.FLOW:
        return
    step, flow = out.flow_step, catalog.pack.flows[goal_of(work).type]
    assert step is not None, "a flow's answer has its step"
    items = [step.slots.get(s.slot) for s in flow.slots() if s.kind == "item"] if flow.books else []
    draft.products = [p for p in catalog.products_by_id([i for i in items if i])]
    refused = [v for v in out.verdicts or [] if v.eligible is False]
    draft.sections += [*(not_open(v, catalog) for v in refused), faq_answer(out.faq, catalog) if out.faq else step.text]
    draft.sections.append(out.ask_user)


AGENT = Agent("booking", (), needed, booking, show)


def not_open(verdict: Verdict, catalog: Catalog) -> str:
    """An item the customer asks to book that isn't open to them, and why, before anything else is asked."""
    return say(catalog, "not_open", name=verdict.product_name) + "".join(f"\n- {reason}" for reason in verdict.failed)
