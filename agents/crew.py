"""The crew, assembled in one place: the offline agents by name, and the same agents as a
sequential CrewAI crew for LLM mode (crewai is imported only when that crew is built)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agents import booking, comparator, eligibility, formatter, quote, retriever, support
from agents.work import TurnWork

if TYPE_CHECKING:
    from crewai import Crew
    from crewai.llms.base_llm import BaseLLM

OFFLINE: dict[str, Callable[[TurnWork], None]] = {
    "retriever": retriever.retriever,
    "comparator": comparator.comparator,
    "eligibility": eligibility.eligibility,
    "booking": booking.booking,
    "support": support.support,
    "quote": quote.quote,
    "formatter": formatter.formatter,
}


def build_crew(
    agent_names: list[str],
    llm: BaseLLM,
    work: TurnWork,
    inputs: dict[str, str],
    offer: Callable[[str], set[str]] | None = None,
    phased: tuple[str, ...] = (),
) -> Crew:
    """A sequential crew of exactly `agent_names`; each task sees the previous tasks' output.
    `offer(agent)`: the tools its model is shown (default: all it may use); `phased`: the input
    placeholders (the phase's prompt module, the state summary) added to the first task, the
    one that does the phase's work (assistant/llm/phases.py)."""
    from crewai import Agent, Crew, Process, Task

    from agents.definitions import build_agent, build_task
    from agents.tools import make_tools

    if not agent_names or agent_names[-1] != "formatter":
        raise ValueError("the formatter must run last")
    agents: list[Agent] = []
    tasks: list[Task] = []
    for name in agent_names:
        shown = offer(name) if offer else None
        agent = build_agent(name, llm, make_tools(work, name, shown.__contains__ if shown is not None else None), inputs)
        tasks.append(build_task(name, agent, context=list(tasks), adds=phased if not tasks else ()))
        agents.append(agent)
    return Crew(agents=agents, tasks=tasks, process=Process.sequential, memory=False, planning=False, verbose=False)
