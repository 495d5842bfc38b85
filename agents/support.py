"""The Support agent: a troubleshooting goal's next step, or a help question on the way."""

from __future__ import annotations

from agents.help import calculate, look_up
from agents.spec import Agent, Answer, Asked, Draft, Step
from assistant.dialogue.troubleshooting import find_fix
from assistant.dialogue.work import Calculated, Looked, Stepped, TurnWork, goal_of, said
from assistant.pack.model import HELP_INTENTS


def support(work: TurnWork) -> Stepped | Looked | Calculated:
    """A troubleshooting flow: its details first (the model, the symptom), then the fix from the knowledge base."""
    request, services = work.request, work.services
    if request.intent.type == "calculate":
        return calculate(work, "support")
    if request.intent.type in HELP_INTENTS:  # a question for the help centre, not a fault to fix
        return look_up(work, "support")
    search = lambda query, device: work.tools.search_faq("support", query, limit=1, device=device)  # noqa: E731
    relevant = lambda query, entry, score: services.index.relevant(query, entry, score, services.faq_min_similarity)  # noqa: E731
    assert services.desk is not None, "a flow runs on the desk's flow engine"
    goal = goal_of(work)
    collected = services.desk.engine.collect(goal.type, goal.slots, said(work), services.desk.clock())
    step = collected.asking() if collected.missing else find_fix(goal.type, collected.slots, services.catalog, search, relevant)
    return Stepped(step, faq=step.article)


def needed(asked: Asked) -> Step | None:
    """A help question the pack gives it; a flow it takes (troubleshooting); a sum while its goal
    collects details, if the pack lets it calculate."""
    if asked.help_reader() == "support":
        return Step.READ
    if asked.flow_agent() == "support":
        return Step.FLOW
    return Step.CALCULATE if asked.calculator() == "support" else None


def show(answer: Answer, work: TurnWork, draft: Draft) -> None:
    """A troubleshooting flow done with no fix known hands the customer to people (the step
    itself is shown as any flow's: booking.py)."""
    if answer is Answer.FLOW:
        assert work.out.flow_step is not None, "a flow's answer has its step"
        flow = work.services.catalog.pack.flows[goal_of(work).type]
        draft.handover = work.out.flow_step.done and flow.action == "troubleshoot" and not work.out.faq


AGENT = Agent("support", ("search_faq",), needed, support, show)
