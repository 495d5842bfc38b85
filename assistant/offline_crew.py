"""What each agent does when no LLM is configured: the deterministic tools, in crew order.

Every agent reads and writes one `TurnWork`, the way CrewAI tasks hand context forward.
The LLM mode runs the same tools and gives their results to the CrewAI agents as context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from assistant import formatting
from assistant.booking import BookingDesk, BookingStep
from assistant.comparison import Comparison, compare
from assistant.domain import Catalog, FaqEntry, Product
from assistant.goals import Goal
from assistant.eligibility import Verdict, check
from assistant.retrieval import CatalogIndex
from assistant.state import Pending, SessionState
from assistant.understanding import Intent


@dataclass
class TurnWork:
    """One turn's shared context: the request, the session, and what each agent produced."""

    query: str
    intent: Intent
    state: SessionState
    selection: list[Product]
    catalog: Catalog
    index: CatalogIndex
    max_products: int
    faq_min_similarity: float
    goal: Goal | None = None
    desk: BookingDesk | None = None
    products: list[Product] = field(default_factory=list)
    retrieved: bool = False
    comparison: Comparison | None = None
    verdicts: list[Verdict] | None = None
    faq: FaqEntry | None = None
    reply: str = ""
    ask_user: str | None = None
    choices: list[str] = field(default_factory=list)
    pending: Pending | None = None
    booking_step: BookingStep | None = None


def retriever(work: TurnWork) -> None:
    """Products for the filters in effect, or the FAQ answer for a support question.

    A message the rules could not place is tried against the FAQ too: a relevant answer
    makes it a faq turn.
    """
    if work.intent.type in ("faq", "unknown"):
        hits = work.index.search_faq(work.query, limit=1)
        if hits and hits[0][1] >= work.faq_min_similarity:
            work.faq = hits[0][0]
            work.intent.type = "faq"
        return
    if work.intent.cheapest_first:
        work.selection = work.index.cheapest_products(work.state.filters, work.max_products)
    else:
        query = " ".join([work.query, *map(str, work.state.filters.values())])
        work.selection = work.index.search_products(query, work.state.filters, work.max_products)
    work.retrieved = True


def comparator(work: TurnWork) -> None:
    if len(work.selection) > 1:
        work.comparison = compare(work.selection)


def eligibility(work: TurnWork) -> None:
    work.verdicts = [check(p, work.state.profile) for p in work.selection]


def booking(work: TurnWork) -> None:
    cached = work.catalog.products_by_id(work.state.product_ids)
    work.booking_step = work.desk.step(work.goal, work.query, work.intent.filters, cached, work.state.session_id)


def formatter(work: TurnWork) -> None:
    """Always last: turns whatever the other agents produced into the reply."""
    kind, sections = work.intent.type, []
    work.products = list(work.selection)
    if work.pending == "clarify_product":
        work.products, sections = [], [work.ask_user]
    elif work.booking_step:
        step = work.booking_step
        work.products = [p for p in [work.catalog.product(work.goal.slots.get("product") or "")] if p]
        sections = [text for text in (step.text, step.question) if text]
        work.ask_user, work.choices = step.question, step.choices
    elif kind == "cancel":
        work.products, sections = [], [formatting.cancelled(work.goal)]
    elif kind == "greeting":
        say = formatting.thanks if work.intent.thanks else formatting.greeting
        work.products, sections = [], [say(work.catalog)]
    elif kind in ("faq", "unknown"):
        work.products = []
        if work.faq:
            sections.append(formatting.faq_answer(work.faq))
        elif kind == "faq":
            sections.append(formatting.faq_not_found(work.catalog))
        else:
            sections.append(formatting.unknown(work.catalog))
    elif not work.selection:
        sections.append(formatting.no_match(work.state.filters, _relaxable(work)))
    else:
        if kind == "product_info":
            sections.append(formatting.product_list(
                work.selection, work.state.filters, not work.retrieved, work.intent.cheapest_first
            ))
        if work.comparison:
            sections.append(formatting.comparison_table(work.comparison, work.selection))
        elif work.intent.wants_comparison:
            sections.append(formatting.single_product_note(work.selection[0]))
        if work.verdicts is not None:
            sections.append(formatting.eligibility_report(work.verdicts))
            _ask_for_missing_profile(work)
            sections += [work.ask_user] if work.ask_user else []
        if kind == "feature_query":
            sections.append(formatting.features_report(work.selection, work.intent.feature_topics))
    work.reply = "\n\n".join(sections)


def _ask_for_missing_profile(work: TurnWork) -> None:
    """If a verdict waits on a fact, ask for the first one missing (employment before income)."""
    waiting = [v for v in work.verdicts if v.eligible is None]
    for fact in ("employment", "monthly_income"):
        if any(fact in v.missing for v in waiting):
            work.ask_user, work.choices = formatting.PROFILE_QUESTIONS[fact]
            work.pending = fact
            return


def _relaxable(work: TurnWork) -> str | None:
    """The filter whose removal would bring back the most products, to suggest relaxing it."""
    filters = work.state.filters
    counts = {
        name: work.index.count_products({k: v for k, v in filters.items() if k != name}) for name in filters
    }
    best = max(counts, key=counts.get, default=None)
    return best if best and counts[best] else None


AGENTS: dict[str, Callable[[TurnWork], None]] = {
    "retriever": retriever,
    "comparator": comparator,
    "eligibility": eligibility,
    "booking": booking,
    "formatter": formatter,
}
