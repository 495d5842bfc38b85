"""Every agent, in one list: the registry that drives which agents a turn runs (crew_pipeline's
`_select_agents` asks each `needed`), their default allow-lists (a pack's `tools:` overrides
them; its agent names are checked against these and the loaded extensions' agents), and the
Formatter (which asks each agent, in this order, for its part of the reply).

Adding an agent touches its module and this list only: a result of a kind the others don't
produce goes back as `Own`, which its `show` reads from `work.out.own`. Its module declares one `Agent`
(agents/spec.py): its name, its default tools, `needed` (the step of a turn it runs at, or
None), `run` (its work over the turn's TurnWork, returning what it produced) and `show` (its
part of the reply, on the Formatter's draft):

    # agents/warranty.py
    def warranty(work: TurnWork) -> Own:
        return Own("warranty", covered)  # what it produced: the pipeline applies it, for its show
    def needed(asked: Asked) -> Step | None:
        return Step.CHECK if asked.intent.type == "feature_query" else None
    def show(answer: Answer, work: TurnWork, draft: Draft) -> None:
        if answer is Answer.PRODUCTS and "warranty" in work.out.own:
            draft.sections.append(...)
    AGENT = Agent("warranty", ("search_faq",), needed, warranty, show)

    # here
    AGENTS = (..., warranty.AGENT, formatter.AGENT)

No agent changes shared state, the turn's or the session's: it returns what it produced, the
pipeline applies that to the turn's TurnOutput (where later agents and the Formatter read it),
and commits the session. An extension's agent (extensions/base.py) is not listed here: it
returns a `Part`, which the Formatter shows as it is.
"""

from __future__ import annotations

from agents import booking, comparator, eligibility, formatter, retriever, support
from agents.spec import Agent
from assistant.pack.model import ToolName

AGENTS: tuple[Agent, ...] = (  # the Formatter last: it shows what the others did
    retriever.AGENT,
    comparator.AGENT,
    eligibility.AGENT,
    booking.AGENT,
    support.AGENT,
    formatter.AGENT,
)
BY_NAME: dict[str, Agent] = {agent.name: agent for agent in AGENTS}


def default_tools() -> dict[str, list[ToolName]]:
    """Each agent's tools where the pack's `tools:` names none: whatever its own work needs."""
    return {agent.name: list(agent.tools) for agent in AGENTS}
