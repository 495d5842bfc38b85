"""The crew, assembled in one place: the agents whose work a model does in LLM mode, each as a
CrewAI crew (crewai is imported only when one is built); the offline agents are agents/registry.py's.

Offline, every agent runs its deterministic tools. In LLM mode those tools have already run, so
a model is asked only where judgement adds something (assistant/llm/crew_mode.py): the
comparator weighs a comparison against what the customer said they need, answering in a
structured form, and the formatter frames the verified reply. Neither is offered a tool: their
task's context is the tools' results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crewai import Crew
    from crewai.llms.base_llm import BaseLLM
    from pydantic import BaseModel


def build_crew(
    name: str,
    llm: BaseLLM,
    inputs: dict[str, str],
    phased: tuple[str, ...] = (),
    output: type[BaseModel] | None = None,
) -> Crew:
    """The crew of one model agent (agents.yaml) and its task (tasks.yaml). `phased`: input
    placeholders (the phase's prompt module, the state summary) added to the task
    (assistant/llm/phases.py); `output`: the structured answer the task must give
    (CrewAI's output_pydantic), None where the server takes no JSON schema."""
    from crewai import Crew, Process

    from agents.definitions import build_agent, build_task

    agent = build_agent(name, llm, inputs)
    task = build_task(name, agent, adds=phased, output=output)
    return Crew(agents=[agent], tasks=[task], process=Process.sequential, memory=False, planning=False, verbose=False)
