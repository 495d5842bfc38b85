"""One turn's shared context, the way CrewAI tasks hand context forward: every agent reads it
and adds what it produced; the pipeline alone turns it into the session's new state."""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.booking.desk import BookingDesk
from assistant.dialogue.flows import FlowStep, Said
from assistant.dialogue.goals import Goal
from assistant.dialogue.state import Pending, SessionState
from assistant.pack.model import Catalog, FaqEntry, Product
from assistant.tools.comparison import Comparison
from assistant.tools.eligibility import Verdict
from assistant.tools.gateway import ToolGateway
from assistant.tools.retrieval import CatalogIndex
from assistant.understanding.reader import Intent

HELP_INTENTS = ("faq", "out_of_scope", "unknown")  # answered by the help centre or handed to people


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
    flow_step: FlowStep | None = None  # what a booking or troubleshooting flow did
    calculation: str | None = None


def goal_of(work: TurnWork) -> Goal:
    assert work.goal is not None, "a booking or troubleshooting turn always has its goal"
    return work.goal


def said(work: TurnWork) -> Said:
    """The message as a flow reads it: its words, filters and named items, and the items at hand."""
    catalog, goal = work.catalog, goal_of(work)
    flow = catalog.pack.flows[goal.type]
    return Said(text=work.query, filters=work.intent.filters, named=catalog.products_by_id(work.intent.named),
                cached=catalog.products_by_id(work.state.product_ids), opens=work.intent.type == flow.intent,
                asked=work.desk.engine.asked(flow, goal.missing) if work.desk else ())
