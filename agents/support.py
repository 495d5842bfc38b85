"""The Support agent: a troubleshooting goal's next step, or a help question on the way."""

from __future__ import annotations

from agents.help import calculate, look_up
from agents.work import TurnWork, goal_of, said
from assistant.dialogue.troubleshooting import find_fix
from assistant.pack.model import HELP_INTENTS


def support(work: TurnWork) -> None:
    """A troubleshooting flow: its details first (the model, the symptom), then the fix from the knowledge base."""
    request, services = work.request, work.services
    if request.intent.type == "calculate":
        calculate(work, "support")
        return
    if request.intent.type in HELP_INTENTS:  # a question for the help centre, not a fault to fix
        look_up(work, "support")
        return
    search = lambda query, device: work.tools.search_faq("support", query, limit=1, device=device)  # noqa: E731
    relevant = lambda query, entry, score: services.index.relevant(query, entry, score, services.faq_min_similarity)  # noqa: E731
    assert services.desk is not None, "a flow runs on the desk's flow engine"
    goal = goal_of(work)
    collected = services.desk.engine.collect(goal.type, goal.slots, said(work), services.desk.clock())
    if collected.missing:
        work.out.flow_step = collected.asking()
    else:
        work.out.flow_step = find_fix(goal.type, collected.slots, services.catalog, search, relevant)
    work.out.faq = work.out.flow_step.article
