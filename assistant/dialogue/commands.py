"""Commands: the contract between understanding and the dialogue policy (Rasa CALM's commands).

Understanding reads a message, in the context of what the conversation holds, into a list of
commands; it never hands on a reading that later code rewrites. The dialogue policy
(assistant/dialogue/policy.py) alone applies them to the goals and decides the one next
question. A message may carry several: "hi, I want a gaming laptop" is a greeting and a search,
"compare them and check if I'm eligible" a comparison and an eligibility check.

Each command names the act it asks of the agents (`act`): the agents work on the first command
that asks for one, and the others shape that work (a greeting said first, facts told noted).
In LLM mode the model proposes commands from the same list (assistant/llm/crew_mode.py), and
pydantic checks them before anything applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.pack.model import FactValue, IntentType

SlotSource = Literal["asked", "named", "inferred"]  # the flow asked for it, the message named it, or it follows from another


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def act(self) -> IntentType | None:
        """The act this command asks of the agents; None: it only shapes another's."""
        return None


class Greet(_Command):
    """Hello, thanks or an introduction: said first, before whatever else the message asks."""

    kind: Literal["greet"] = "greet"
    thanks: bool = False
    name: str | None = None


class Search(_Command):
    """Items for the filters in effect, this message's merged in. The rules' reading holds the
    filters it read; a model's proposal (LLM mode) carries its own, allow-listed before use."""

    kind: Literal["search"] = "search"
    filters: dict[str, str | list[str]] = {}

    def act(self) -> IntentType:
        return "product_info"


class ShowMore(_Command):
    """The next page of the same search: "more", "next", "others"."""

    kind: Literal["show_more"] = "show_more"

    def act(self) -> IntentType:
        return "product_info"


class Refer(_Command):
    """The items the message names or points at on screen ("the second one", "it")."""

    kind: Literal["refer"] = "refer"
    items: list[str]


class Clarify(_Command):
    """The message points at items on screen but can't say which: ask among these."""

    kind: Literal["clarify"] = "clarify"
    candidates: list[str]


class Compare(_Command):
    kind: Literal["compare"] = "compare"

    def act(self) -> IntentType:
        return "comparison"


class CheckEligibility(_Command):
    kind: Literal["check_eligibility"] = "check_eligibility"

    def act(self) -> IntentType:
        return "eligibility_check"


class TellFacts(_Command):
    """Facts about the customer ("I'm a student", "I earn 80k"): noted, and used at once."""

    kind: Literal["tell_facts"] = "tell_facts"
    facts: dict[str, FactValue]


class AskAttribute(_Command):
    """A fact the items at hand hold ("the fees?", "which has the most RAM?")."""

    kind: Literal["ask_attribute"] = "ask_attribute"
    topics: list[str] = []

    def act(self) -> IntentType:
        return "feature_query"


class Calculate(_Command):
    """Arithmetic said ("1299 x 2"), or the total price of items (`items`: "both together")."""

    kind: Literal["calculate"] = "calculate"
    expression: str
    items: list[str] = []

    def act(self) -> IntentType:
        return "calculate"


class AnswerFromHelp(_Command):
    """A question the help centre answers, or tries to."""

    kind: Literal["answer_from_help"] = "answer_from_help"

    def act(self) -> IntentType:
        return "faq"


class StartFlow(_Command):
    """A flow of the pack starts: a booking, a troubleshooting, a case."""

    kind: Literal["start_flow"] = "start_flow"
    flow: str
    intent: IntentType  # the intent the pack's flow starts on

    def act(self) -> IntentType:
        return self.intent


class SetSlot(_Command):
    """A value for a slot of the flow under way, and where it came from (a correction is one that replaces a value)."""

    kind: Literal["set_slot"] = "set_slot"
    slot: str
    value: Any
    source: SlotSource = "asked"
    correction: bool = False


class ContinueFlow(_Command):
    """The message is for the flow waiting on the customer: its slots (SetSlot), a file, a code, a choice."""

    kind: Literal["continue_flow"] = "continue_flow"
    goal: str
    intent: IntentType

    def act(self) -> IntentType:
        return self.intent


class Cancel(_Command):
    """ "Never mind": the goal under way stops (a commitment made stays as it is)."""

    kind: Literal["cancel"] = "cancel"

    def act(self) -> IntentType:
        return "cancel"


class ChangeCommitted(_Command):
    """The customer asks to change something they committed to ("move my appointment to
    Monday"); nothing changes until they confirm the change, shown old -> new."""

    kind: Literal["change_committed"] = "change_committed"
    goal: str
    intent: IntentType

    def act(self) -> IntentType:
        return self.intent


class ConfirmChange(_Command):
    """The answer to a change shown old -> new: yes applies it, no keeps what was committed."""

    kind: Literal["confirm_change"] = "confirm_change"
    goal: str
    intent: IntentType
    accept: bool

    def act(self) -> IntentType:
        return self.intent


class Extended(_Command):
    """A message for one of the pack's extensions (a quotation): its agent takes it."""

    kind: Literal["extended"] = "extended"
    extension: str
    intent: str  # the act its agent performs, as clients see it (the extension's own name for it)

    def act(self) -> IntentType:
        return "extension"


class OutOfScope(_Command):
    kind: Literal["out_of_scope"] = "out_of_scope"

    def act(self) -> IntentType:
        return "out_of_scope"


class NotUnderstood(_Command):
    kind: Literal["not_understood"] = "not_understood"

    def act(self) -> IntentType:
        return "unknown"


Command = Annotated[
    Greet
    | Search
    | ShowMore
    | Refer
    | Clarify
    | Compare
    | CheckEligibility
    | TellFacts
    | AskAttribute
    | Calculate
    | AnswerFromHelp
    | StartFlow
    | SetSlot
    | ContinueFlow
    | Cancel
    | ChangeCommitted
    | ConfirmChange
    | Extended
    | OutOfScope
    | NotUnderstood,
    Field(discriminator="kind"),
]


def act_of(commands: Sequence[Command]) -> IntentType:
    """The act the agents perform: the first command asking for one; a message that only
    greets is a greeting."""
    act = next((act for command in commands if (act := command.act()) is not None), None)
    return act or ("greeting" if first(commands, Greet) else "unknown")


def first(commands: Sequence[Command], kind: type[_Command]) -> Any:
    """The first command of that kind, or None."""
    return next((command for command in commands if isinstance(command, kind)), None)
