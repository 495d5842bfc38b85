"""Assembles the CrewAI crew for LLM mode: the selected agents in order, Formatter last."""

from __future__ import annotations

from crewai import Agent, Crew, Process, Task
from crewai.llms.base_llm import BaseLLM

from agents import build_agent
from agents.tools import make_tools
from assistant.offline_crew import TurnWork
from tasks import build_task


def build_crew(agent_names: list[str], llm: BaseLLM, work: TurnWork, inputs: dict[str, str]) -> Crew:
    """A sequential crew of exactly `agent_names`; each task sees the previous tasks' output."""
    if not agent_names or agent_names[-1] != "formatter":
        raise ValueError("the formatter must run last")
    agents: list[Agent] = []
    tasks: list[Task] = []
    for name in agent_names:
        agent = build_agent(name, llm, make_tools(work, name), inputs)
        tasks.append(build_task(name, agent, context=list(tasks)))
        agents.append(agent)
    return Crew(agents=agents, tasks=tasks, process=Process.sequential, memory=False, planning=False, verbose=False)
