"""What each agent does when no LLM is configured: the deterministic tools, in crew order.

Every agent reads and writes one `TurnWork`, the way CrewAI tasks hand context forward.
The LLM mode runs the same tools and gives their results to the CrewAI agents as context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from assistant import formatting
from assistant.booking import BookingDesk, BookingStep
from assistant.calculator import CalculationError
from assistant.comparison import Comparison
from assistant.domain import Catalog, FaqEntry, Product
from assistant.eligibility import Verdict
from assistant.goals import Goal
from assistant.retrieval import CatalogIndex
from assistant.state import Pending, SessionState
from assistant.support import SupportStep, troubleshoot
from assistant.tool_gateway import ToolGateway
from assistant.understanding import Intent

HELP_INTENTS = ("faq", "out_of_scope", "unknown")  # answered by the help centre or handed to people
SUGGESTIONS = 3  # articles offered beside a hand-over
SUGGESTION_FLOOR = 0.3  # below this similarity an article is too far off even to suggest


@dataclass
class TurnWork:
    """One turn's shared context: the request, the session, and what each agent produced."""

    query: str
    intent: Intent
    state: SessionState
    selection: list[Product]
    catalog: Catalog
    index: CatalogIndex
    tools: ToolGateway
    max_products: int
    faq_min_similarity: float
    goal: Goal | None = None
    desk: BookingDesk | None = None
    products: list[Product] = field(default_factory=list)
    retrieved: bool = False
    comparison: Comparison | None = None
    verdicts: list[Verdict] | None = None
    faq: FaqEntry | None = None
    suggestions: list[FaqEntry] = field(default_factory=list)  # nearest articles, offered when none answers
    handover: bool = False  # the reply sends the customer to people
    reply: str = ""
    ask_user: str | None = None
    choices: list[str] = field(default_factory=list)
    pending: Pending | None = None
    booking_step: BookingStep | None = None
    support_step: SupportStep | None = None
    calculation: str | None = None


def retriever(work: TurnWork) -> None:
    """Products for the filters in effect, or the FAQ answer for a support question.

    A message the rules could not place is tried against the FAQ too: a relevant answer
    makes it a faq turn.
    """
    tools = work.tools
    if work.intent.type == "calculate":
        _calculate(work, "retriever")
        return
    if work.intent.type in HELP_INTENTS:
        _look_up(work, "retriever")
        return
    named = [p for p in work.catalog.products_by_id(work.intent.named) if work.index.rules.matches(p, work.state.filters)]
    if named:  # "show me the Legion 5", "is the G502 wireless?": the items named, if they match
        work.selection = named[:work.max_products]
    elif work.intent.cheapest_first:
        work.selection = tools.call("retriever", "cheapest_products", work.state.filters, work.max_products)
    else:
        query = " ".join([work.query, *map(str, work.state.filters.values())])
        work.selection = tools.call("retriever", "search_products", query, work.state.filters, work.max_products)
    work.retrieved = True


def comparator(work: TurnWork) -> None:
    if len(work.selection) > 1:
        work.comparison = work.tools.call("comparator", "compare_products", work.selection)


def eligibility(work: TurnWork) -> None:
    work.verdicts = [work.tools.call("eligibility", "check_eligibility", p, work.state.profile)
                     for p in work.selection]


def support(work: TurnWork) -> None:
    """A troubleshooting goal: the model and the symptom first, then the fix from the knowledge base."""
    if work.intent.type == "calculate":
        _calculate(work, "support")
        return
    if work.intent.type in HELP_INTENTS:  # a question for the help centre, not a fault to fix
        _look_up(work, "support")
        return
    search = lambda query, device: work.tools.call("support", "search_faq", query, limit=1, device=device)  # noqa: E731
    relevant = lambda query, entry, score: work.index.relevant(query, entry, score, work.faq_min_similarity)  # noqa: E731
    work.support_step = troubleshoot(_goal(work), work.query, work.intent, work.catalog, search, relevant)
    work.faq = work.support_step.article


def _look_up(work: TurnWork, agent: str) -> None:
    """The help article that answers the question, if the help centre is sure of one; otherwise
    the nearest few, to offer beside the hand-over. A message not understood, or taken for out
    of scope, that an article answers becomes a faq turn."""
    question = work.intent.read_as or work.query
    hits = work.tools.call(agent, "search_faq", question, limit=SUGGESTIONS)
    if hits and work.index.help.answers(question, hits[0][0]):
        work.faq = hits[0][0]
        work.intent.type = "faq"
    else:
        work.suggestions = [entry for entry, score in hits if score >= SUGGESTION_FLOOR]


def _calculate(work: TurnWork, agent: str) -> None:
    try:
        result = work.tools.call(agent, "calculate", work.intent.expression or "")
    except CalculationError as error:
        work.calculation = f"I can't work that out: {error}."
        return
    shown = f"{result:,}" if isinstance(result, int) else f"{result:,.2f}".rstrip("0").rstrip(".")
    work.calculation = f"{work.intent.expression} = **{shown}**"


def booking(work: TurnWork) -> None:
    cached = work.catalog.products_by_id(work.state.product_ids)
    assert work.desk is not None, "the booking agent runs only where the pack books"
    work.booking_step = work.desk.step(_goal(work), work.query, work.intent.filters, cached, work.state.session_id,
                                       named=work.catalog.products_by_id(work.intent.named))


def _goal(work: TurnWork) -> Goal:
    assert work.goal is not None, "a booking or troubleshooting turn always has its goal"
    return work.goal


def formatter(work: TurnWork) -> None:
    """Always last: turns whatever the other agents produced into the reply."""
    kind, catalog = work.intent.type, work.catalog
    sections: list[str | None] = []
    work.products = list(work.selection)
    if work.pending == "clarify_product":
        work.products, sections = [], [work.ask_user]
    elif work.booking_step:
        booked = work.booking_step
        work.products = [p for p in [work.catalog.product(_goal(work).slots.get("product") or "")] if p]
        sections = [booked.text, booked.question]
        work.ask_user, work.choices = booked.question, booked.choices
    elif work.support_step:
        fixing = work.support_step
        work.products = []
        sections = [formatting.faq_answer(work.faq) if work.faq else fixing.text, fixing.question]
        work.ask_user = fixing.question
        work.handover = fixing.done and not work.faq  # no fix known: the service desk takes it
    elif kind == "cancel":
        work.products, sections = [], [formatting.cancelled(work.goal, catalog)]
    elif kind == "calculate":
        work.products, sections = [], [work.calculation or formatting.say(catalog, "unknown")]
    elif kind == "greeting":
        work.products, sections = [], [formatting.say(catalog, "thanks" if work.intent.thanks else "greeting")]
    elif kind in HELP_INTENTS:
        work.products = []
        if work.faq:
            sections.append(formatting.faq_answer(work.faq))
        else:  # a hand-over to people, with the nearest articles as quick replies
            work.handover = True
            sections.append(formatting.say(catalog, "faq_not_found" if kind == "faq" else kind))
            if work.suggestions:
                sections.append(formatting.suggestions(work.suggestions, catalog))
                work.choices = [entry.question for entry in work.suggestions]
    elif not work.selection:
        sections.append(formatting.no_match(work.state.filters, _relaxable(work), catalog))
    else:
        if kind == "product_info" or (kind == "feature_query" and work.retrieved):  # found now: list them
            sections.append(formatting.product_list(
                work.selection, work.state.filters, not work.retrieved, catalog, work.intent.cheapest_first
            ))
        if work.comparison:
            sections.append(formatting.comparison_table(work.comparison, work.selection, catalog))
        elif work.intent.wants_comparison:
            sections.append(formatting.single_product_note(work.selection[0], catalog))
        if work.verdicts is not None:
            sections.append(formatting.eligibility_report(work.verdicts, catalog))
            _ask_for_missing_profile(work)
            sections += [work.ask_user] if work.ask_user else []
        if kind == "feature_query":
            sections.append(formatting.features_report(work.selection, work.intent.feature_topics,
                                                            work.intent.feature_lines, catalog))
    work.reply = "\n\n".join(section for section in sections if section)


def _ask_for_missing_profile(work: TurnWork) -> None:
    """If a verdict waits on a fact, ask for the first one missing (employment before income)."""
    waiting = [v for v in work.verdicts or [] if v.eligible is None]
    for fact, question in work.catalog.pack.profile.items():
        if any(fact in v.missing for v in waiting):
            work.ask_user, work.choices = question.question, list(question.choices)
            work.pending = fact
            return


def _relaxable(work: TurnWork) -> str | None:
    """The filter whose removal would bring back the most products, to suggest relaxing it."""
    filters = work.state.filters
    counts = {
        name: work.index.count_products({k: v for k, v in filters.items() if k != name}) for name in filters
    }
    best = max(counts, key=counts.__getitem__, default=None)
    return best if best and counts[best] else None


AGENTS: dict[str, Callable[[TurnWork], None]] = {
    "retriever": retriever,
    "comparator": comparator,
    "eligibility": eligibility,
    "booking": booking,
    "support": support,
    "formatter": formatter,
}
