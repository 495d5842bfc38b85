"""What the engine asks of a pack extension while a conversation runs.

An extension (extensions/base.py) is a business's own machinery: a quotation, a case for an
office. The engine calls it through these shapes only, so understanding, the dialogue policy,
the agents and the pipeline never import a business: whether a message is for it (`Reader`),
what its agent produced this turn (`Part`), and the flow actions it adds to the pack's flows
(`FlowAction`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from assistant.dialogue.flows import FlowStep
from assistant.dialogue.said import Said
from assistant.dialogue.state import Kept, SessionState
from assistant.pack.examples import Example
from assistant.pack.flows import Flow

ToolCall = Callable[..., Any]  # a tool by name, through the gateway, as the agent running it


class Reader(Protocol):
    """How understanding asks an extension about a message."""

    @property
    def name(self) -> str: ...

    @property
    def intent(self) -> str | None:
        """The act its agent performs, as clients see it; None: it takes no message."""
        ...

    def takes(self, text: str, kept: Kept | None) -> bool:
        """Whether the message is for the extension's agent (`kept`: what it keeps in the session)."""
        ...

    def waits(self, kept: Kept | None) -> bool:
        """Whether a question of the extension's waits for its answer."""
        ...


@dataclass
class Part:
    """What an extension's agent produced this turn, for the Formatter, the policy's question,
    the response and the pipeline's commit (an agent returns it; only the pipeline changes state)."""

    extension: str
    intent: str  # the act as clients see it
    sections: list[str | None]  # the reply, in order
    kept: Kept | None  # what the extension keeps in the session after this turn
    question: str | None = None
    choices: list[str] = field(default_factory=list)
    images: list[Example] = field(default_factory=list)
    facts: str = ""  # what its tools returned, as data a model's framing may restate (the grounding guard's)
    stage: str | None = None  # the conversation's phase, for LLM mode's prompt module


class FlowAction(Protocol):
    """A flow action an extension adds (a case handed to an office): the flow as it stands for
    one conversation, how an answer to it reads, and its next step."""

    def flow(self, name: str, slots: dict[str, Any]) -> Flow: ...

    def asks_progress(self, name: str, text: str) -> bool:
        """Whether a message asks where the flow stands (an answer of its own, not a value)."""
        ...

    def answers(self, name: str, slots: dict[str, Any], text: str) -> bool:
        """Whether a message that reads as a help question answers the flow's question instead."""
        ...

    def chooses(self, name: str, slots: dict[str, Any], text: str) -> bool:
        """Whether a message picks an option of the choice the flow asked ("no")."""
        ...

    def step(self, name: str, slots: dict[str, Any], said: Said, state: SessionState, call: ToolCall) -> FlowStep:
        """The flow's next step after this message; `call` runs a tool through the gateway."""
        ...
