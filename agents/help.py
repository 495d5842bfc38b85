"""What the Retriever and Support agents share: the help centre's answer and exact arithmetic,
and how they are shown."""

from __future__ import annotations

from agents.spec import Answer, Draft
from assistant.dialogue.commands import Calculate, first
from assistant.dialogue.work import Calculated, Looked, TurnWork
from assistant.pack.display import show_value
from assistant.pack.model import Catalog, FaqEntry, Product
from assistant.pack.texts import say
from assistant.tools.calculator import CalculationError

SUGGESTIONS = 3  # articles offered beside a hand-over
SUGGESTION_FLOOR = 0.3  # below this similarity an article is too far off even to suggest


def look_up(work: TurnWork, agent: str) -> Looked:
    """The help article that answers the question, if the help centre is sure of one; otherwise
    the nearest few, to offer beside the hand-over. A message not understood, or taken for out
    of scope, that an article answers becomes a faq turn (the pipeline says so)."""
    request, services = work.request, work.services
    question = request.intent.read_as or request.query
    hits = work.tools.search_faq(agent, question, limit=SUGGESTIONS)
    if hits and services.index.help.answers(question, hits[0][0]):
        return Looked(faq=hits[0][0])
    return Looked(suggestions=[entry for entry, score in hits if score >= SUGGESTION_FLOOR])


def calculate(work: TurnWork, agent: str) -> Calculated:
    """Exact arithmetic: the expression said, or the items' prices from the catalog added up."""
    request, catalog = work.request, work.services.catalog
    asked: Calculate | None = first(request.commands, Calculate)
    items = catalog.products_by_id(asked.items) if asked else []
    priced = catalog.pack.search.rank_by  # what an item costs
    expression = " + ".join(str(p.value(priced)) for p in items) if items else request.intent.expression or ""
    try:
        result = work.tools.calculate(agent, expression)
    except CalculationError as error:
        return Calculated(say(catalog, "calculation_failed", error=error))
    if items:
        return Calculated(basket(items, result, catalog))
    shown = f"{result:,}" if isinstance(result, int) else f"{result:,.2f}".rstrip("0").rstrip(".")
    return Calculated(f"{request.intent.expression} = **{shown}**")


def show_help(answer: Answer, work: TurnWork, draft: Draft) -> None:
    """A sum's answer; the help centre's article, or a hand-over to people with the nearest
    articles as quick replies."""
    out, catalog, kind = work.out, work.services.catalog, work.request.intent.type
    draft.products = []
    if answer is Answer.CALCULATION:
        draft.sections.append(out.calculation or say(catalog, "unknown"))
    elif out.faq:
        draft.sections.append(faq_answer(out.faq, catalog))
    else:
        draft.handover = True
        draft.sections.append(say(catalog, "faq_not_found" if kind == "faq" else kind))
        if out.suggestions:
            draft.sections.append(suggestions(out.suggestions, catalog))
            draft.choices = [catalog.article(entry).question for entry in out.suggestions]


def basket(items: list[Product], total: float, catalog: Catalog) -> str:
    """Each item's price from the catalog, then what they come to together."""
    priced = catalog.pack.search.rank_by
    attribute = catalog.pack.attributes[priced]
    lines = [f"- **{p.name}**: {show_value(p.value(priced), attribute, catalog)}" for p in items]
    return "\n".join([*lines, say(catalog, "basket_total", total=show_value(total, attribute, catalog))])


def faq_answer(found: FaqEntry, catalog: Catalog) -> str:
    """The article the help centre found, in the reply's language."""
    entry = catalog.article(found)
    steps = "".join(f"\n{i}. {step}" for i, step in enumerate(entry.steps, 1))
    return f"**{entry.question}**\n\n{entry.answer}" + (f"\n{steps}" if steps else "")


def suggestions(entries: list[FaqEntry], catalog: Catalog) -> str:
    return say(catalog, "suggestions") + "".join(f"\n- {catalog.article(entry).question}" for entry in entries)
