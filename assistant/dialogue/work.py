"""One turn's shared context, the way CrewAI tasks hand context forward, and what each step of
the turn returns to it. Every agent reads the context and returns what it produced (a `Found`,
a `Compared`, ... the Formatter's `Formatted`); the pipeline alone applies that to the turn's
TurnOutput (`TurnOutput.take`), where later agents read it, and turns it into the session's new
state. The one thing written along the way is the audit trail: the gateway notes each tool an
agent calls in `tools_run`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, assert_never

from assistant.attachments.store import Attachment
from assistant.booking.desk import BookingDesk
from assistant.dialogue.commands import Command
from assistant.dialogue.extension import FlowAction, Part
from assistant.dialogue.flows import FlowStep
from assistant.dialogue.goals import Goal
from assistant.dialogue.said import Said
from assistant.dialogue.state import SessionState
from assistant.pack.model import Catalog, FaqEntry, Product
from assistant.tools.comparison import Comparison
from assistant.tools.eligibility import Verdict
from assistant.tools.gateway import ToolGateway, Tools
from assistant.tools.retrieval import CatalogIndex
from assistant.understanding.reader import Intent, Pending


@dataclass(frozen=True)
class Services:
    """What every turn's agents work with: the pack, its index and tools, the booking desk."""

    catalog: Catalog
    index: CatalogIndex
    tools: ToolGateway
    max_products: int
    faq_min_similarity: float
    desk: BookingDesk | None = None
    actions: Mapping[str, FlowAction] = field(default_factory=dict)  # the flow actions the pack's extensions add


@dataclass(frozen=True)
class TurnRequest:
    """What this turn is about: the message as understood (the act the dialogue policy decided,
    and the commands it came from), the session as it stood, the goal it serves, and the files
    the message brought."""

    query: str
    intent: Intent
    state: SessionState
    goal: Goal | None = None
    attachments: list[Attachment] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)


@dataclass(frozen=True)
class Found:
    """The Retriever's search: the items the turn is about, found now."""

    selection: list[Product]


@dataclass(frozen=True)
class Looked:
    """The help centre read: the article that answers, or else the nearest few to offer."""

    faq: FaqEntry | None = None
    suggestions: list[FaqEntry] = field(default_factory=list)


@dataclass(frozen=True)
class Calculated:
    """A sum worked out, as the reply says it (or why it could not be)."""

    calculation: str


@dataclass(frozen=True)
class Compared:
    """The Comparator's: the table of the items at hand, their ranking by what was asked (None: not asked)."""

    comparison: Comparison | None = None
    ranking: list[Product] | None = None


@dataclass(frozen=True)
class Checked:
    """The Eligibility agent's: each item's verdict, and what the customer does qualify for."""

    verdicts: list[Verdict]
    qualifying: list[Product] = field(default_factory=list)


@dataclass(frozen=True)
class Stepped:
    """A flow taken a step: the step; the article its fix is from (troubleshooting); the verdicts
    on the items it newly books, where it checked them (None: not checked, [] none new)."""

    step: FlowStep
    faq: FaqEntry | None = None
    verdicts: list[Verdict] | None = None


@dataclass(frozen=True)
class Formatted:
    """The Formatter's, last: the reply, the items it shows, the comparison as shown (of the lines
    asked), its quick replies, and whether it sends the customer to people."""

    reply: str
    products: list[Product] = field(default_factory=list)
    comparison: Comparison | None = None
    choices: list[str] = field(default_factory=list)
    handover: bool = False


@dataclass(frozen=True)
class Question:
    """The turn's one question, as the dialogue policy decides it from the agents' work: its text,
    quick replies, and what the session then waits for (None: nothing in particular)."""

    text: str | None
    choices: list[str] = field(default_factory=list)
    pending: Pending | None = None


@dataclass(frozen=True)
class Resumed:
    """A goal taken up again once the turn's is done, as the dialogue policy settles it: the words
    the reply ends with, and its question, which is then the turn's."""

    said: str
    question: str | None
    choices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Own:
    """A result of a kind only its agent shows: its `show` reads it back by the agent's name
    (`TurnOutput.own`), so a new agent needs no new field here."""

    agent: str
    value: object


Produced = Found | Looked | Calculated | Compared | Checked | Stepped | Formatted | Own  # what a registry agent's `run` returns
Result = Produced | Part | Question | Resumed  # what the pipeline applies: an agent's, an extension agent's, the policy's


@dataclass
class TurnOutput:
    """What the agents produced, for the Formatter, the response and the pipeline's commit; only
    the pipeline writes it, applying what each step returned (`take`)."""

    selection: list[Product] = field(default_factory=list)  # the items the turn is about
    products: list[Product] = field(default_factory=list)  # the items shown
    retrieved: bool = False
    comparison: Comparison | None = None
    ranking: list[Product] | None = None  # the items at hand, best first by what the customer ranks by
    verdicts: list[Verdict] | None = None
    across_catalog: bool = False  # the selection is the whole catalog under the filters: "which cards can I get?"
    qualifying: list[Product] = field(default_factory=list)  # what the customer does qualify for, best first
    faq: FaqEntry | None = None
    suggestions: list[FaqEntry] = field(default_factory=list)  # nearest articles, offered when none answers
    handover: bool = False  # the reply sends the customer to people
    reply: str = ""
    ask_user: str | None = None
    choices: list[str] = field(default_factory=list)
    pending: Pending | None = None
    flow_step: FlowStep | None = None  # what a booking or troubleshooting flow did
    calculation: str | None = None
    part: Part | None = None  # what an extension's agent did
    own: dict[str, object] = field(default_factory=dict)  # by agent: results of a kind only that agent shows
    tools_run: set[str] = field(default_factory=set)  # what the pack's constraints check a reply against

    def take(self, result: Result) -> None:
        """What one step of the turn returned, applied (by the pipeline alone): later agents, the
        Formatter, the response and the commit read it here."""
        match result:
            case Found(selection):
                self.selection, self.retrieved = selection, True
            case Looked(faq, suggestions):
                self.faq, self.suggestions = faq, suggestions
            case Calculated(calculation):
                self.calculation = calculation
            case Compared(comparison, ranking):
                self.comparison, self.ranking = comparison, ranking
            case Checked(verdicts, qualifying):
                self.verdicts, self.qualifying = verdicts, qualifying
            case Stepped(step, faq, verdicts):
                self.flow_step = step
                if faq is not None:
                    self.faq = faq
                if verdicts is not None:
                    self.verdicts = verdicts or None
            case Formatted(reply, products, comparison, choices, handover):
                self.reply, self.products, self.comparison = reply, products, comparison
                self.choices, self.handover = choices, handover
            case Own(agent, value):
                self.own[agent] = value
            case Part():
                self.part = result
            case Question(text, choices, pending):
                self.ask_user, self.choices, self.pending = text, choices, pending
            case Resumed(said, question, choices):
                self.reply = f"{self.reply}\n\n{said}"
                self.ask_user, self.choices = question, choices
            case _:
                assert_never(result)


@dataclass
class TurnWork:
    """One turn's shared context, in three parts: the request, the services, and the outputs."""

    request: TurnRequest
    services: Services
    out: TurnOutput = field(default_factory=TurnOutput)

    @property
    def tools(self) -> Tools:
        """The tools, typed, through the gateway: `work.tools.search_faq("support", question)`;
        the turn notes each that ran, which the pack's constraints check a reply against."""
        return Tools(self.services.tools, self.out.tools_run)

    def call(self, agent: str, tool: str, *args: Any, **kwargs: Any) -> Any:
        """`agent` calls `tool` by name (an extension's tool), noted as `tools` notes it."""
        return self.tools.call(agent, tool, *args, **kwargs)


def goal_of(work: TurnWork) -> Goal:
    assert work.request.goal is not None, "a booking or troubleshooting turn always has its goal"
    return work.request.goal


def said(work: TurnWork) -> Said:
    """The message as a flow reads it: its words, filters and named items, the items at hand,
    and the slots the last question asked for."""
    request, catalog, desk, goal = work.request, work.services.catalog, work.services.desk, goal_of(work)
    flow = catalog.pack.flows[goal.type]
    return Said(
        text=request.query,
        filters=request.intent.filters,
        named=catalog.products_by_id(request.intent.named),
        cached=catalog.products_by_id(request.state.product_ids),
        opens=request.intent.type == flow.intent,
        asked=desk.engine.asked(flow, goal.missing) if desk else (),
    )
