"""What the Retriever and Support agents share: the help centre's answer and exact arithmetic."""

from __future__ import annotations

from agents.work import TurnWork
from assistant.dialogue.commands import Calculate, first
from assistant.pack.texts import basket, say
from assistant.tools.calculator import CalculationError

SUGGESTIONS = 3  # articles offered beside a hand-over
SUGGESTION_FLOOR = 0.3  # below this similarity an article is too far off even to suggest


def look_up(work: TurnWork, agent: str) -> None:
    """The help article that answers the question, if the help centre is sure of one; otherwise
    the nearest few, to offer beside the hand-over. A message not understood, or taken for out
    of scope, that an article answers becomes a faq turn (the pipeline says so)."""
    request, services, out = work.request, work.services, work.out
    question = request.intent.read_as or request.query
    hits = work.tools.search_faq(agent, question, limit=SUGGESTIONS)
    if hits and services.index.help.answers(question, hits[0][0]):
        out.faq = hits[0][0]
    else:
        out.suggestions = [entry for entry, score in hits if score >= SUGGESTION_FLOOR]


def calculate(work: TurnWork, agent: str) -> None:
    """Exact arithmetic: the expression said, or the items' prices from the catalog added up."""
    request, out, catalog = work.request, work.out, work.services.catalog
    asked: Calculate | None = first(request.commands, Calculate)
    items = catalog.products_by_id(asked.items) if asked else []
    priced = catalog.pack.search.rank_by  # what an item costs
    expression = " + ".join(str(p.value(priced)) for p in items) if items else request.intent.expression or ""
    try:
        result = work.tools.calculate(agent, expression)
    except CalculationError as error:
        out.calculation = say(catalog, "calculation_failed", error=error)
        return
    if items:
        out.calculation = basket(items, result, catalog)
        return
    shown = f"{result:,}" if isinstance(result, int) else f"{result:,.2f}".rstrip("0").rstrip(".")
    out.calculation = f"{request.intent.expression} = **{shown}**"
