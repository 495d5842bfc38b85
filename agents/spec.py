"""What an agent declares (agents/registry.py lists them): its name, its default tools, when a
turn needs it, what it does (returning what it produced, assistant/dialogue/work.py's results: it changes no
shared state), and how the Formatter shows its part (on the Formatter's own `Draft`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, IntEnum

from assistant.dialogue.commands import Command
from assistant.dialogue.state import SessionState
from assistant.dialogue.work import Produced, TurnWork
from assistant.pack.model import HELP_INTENTS, Catalog, Product, ToolName
from assistant.tools.comparison import Comparison
from assistant.tools.gateway import ToolGateway
from assistant.understanding.reader import Intent


class Step(IntEnum):
    """When in a turn an agent runs: the agents a turn needs run in this order (then the Formatter)."""

    READ = 1  # products found, or the help centre read
    COMPARE = 2  # the items at hand compared or ranked
    CHECK = 3  # the items checked against what the customer told
    FLOW = 4  # a goal's flow taken a step
    CALCULATE = 5  # a sum worked out


class Answer(Enum):
    """What kind of reply a turn's is; the Formatter decides it, and each agent shows its part of it."""

    FLOW = "flow"  # a flow's step
    CANCEL = "cancel"
    CALCULATION = "calculation"
    GREETING = "greeting"
    HELP = "help"  # the help centre's answer, or a hand-over
    NOTHING_MORE = "nothing_more"  # "show more" with nothing left
    NO_MATCH = "no_match"
    PRODUCTS = "products"  # the items at hand: a list, a table, a ranking, verdicts, facts


@dataclass(frozen=True)
class Asked:
    """What `needed` decides on: the message as the policy planned it, before any agent ran."""

    intent: Intent
    state: SessionState
    selection: list[Product]
    commands: list[Command]
    catalog: Catalog
    tools: ToolGateway
    at_hand: bool  # a ranking of the items on screen ("which is cheaper?")
    collecting: str | None  # the agent of the flow whose details the active goal collects, if any

    @property
    def helped(self) -> bool:
        return self.intent.type in HELP_INTENTS

    def help_reader(self) -> str | None:
        """Whichever agent the pack lets read the help centre, on a help question."""
        return self.tools.agent_with("search_faq", "retriever") if self.helped else None

    def calculator(self) -> str | None:
        """On a sum, the agent of the goal at hand if its pack lets it calculate, else the first that may."""
        if self.intent.type != "calculate":
            return None
        return self.tools.agent_with("calculate", "support" if self.collecting == "support" else "retriever")

    def flow_agent(self) -> str | None:
        """The agent of the flow the message starts, if the pack has one."""
        flow = self.catalog.pack.flow_for(self.intent.type)
        return self.catalog.pack.flows[flow].agent if flow else None


Sections = list[str | None]  # the reply so far, in order; None: nothing to say there


@dataclass
class Draft:
    """The reply as the Formatter builds it, its own and this turn's alone (no shared state): the
    sections so far, and what the reply shows besides (the items, the comparison as shown, quick
    replies, a hand-over). The Formatter returns it as a `Formatted`, which the pipeline applies."""

    products: list[Product]
    comparison: Comparison | None
    choices: list[str]
    handover: bool = False
    sections: Sections = field(default_factory=list)


@dataclass(frozen=True)
class Agent:
    """One agent: `tools`, what it may call unless the pack's `tools:` says otherwise; `needed`,
    the step of a turn it runs at (None: not this turn); `run`, its work, which returns what it
    produced (the pipeline applies it to the turn's TurnOutput; `run` writes no shared state);
    `show`, its part of the reply (the Formatter asks every agent, in the registry's order, for
    the kind of answer the turn's is; an agent adds to the Formatter's draft, or says nothing)."""

    name: str
    tools: tuple[ToolName, ...]
    needed: Callable[[Asked], Step | None]
    run: Callable[[TurnWork], Produced]
    show: Callable[[Answer, TurnWork, Draft], None] | None = None
