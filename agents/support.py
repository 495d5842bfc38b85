"""The Support agent: a troubleshooting goal's next step, or a help question on the way."""

from __future__ import annotations

from agents.help import calculate, look_up
from agents.work import HELP_INTENTS, TurnWork, goal_of
from assistant.dialogue.troubleshooting import troubleshoot


def support(work: TurnWork) -> None:
    """A troubleshooting goal: the model and the symptom first, then the fix from the knowledge base."""
    if work.intent.type == "calculate":
        calculate(work, "support")
        return
    if work.intent.type in HELP_INTENTS:  # a question for the help centre, not a fault to fix
        look_up(work, "support")
        return
    search = lambda query, device: work.tools.call("support", "search_faq", query, limit=1, device=device)  # noqa: E731
    relevant = lambda query, entry, score: work.index.relevant(query, entry, score, work.faq_min_similarity)  # noqa: E731
    work.support_step = troubleshoot(goal_of(work), work.query, work.intent, work.catalog, search, relevant)
    work.faq = work.support_step.article
