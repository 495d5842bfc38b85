"""The CrewAI agents and tasks of LLM mode, declared in agents.yaml and tasks.yaml; imported only when an LLM is used."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from crewai import Agent, Task
from crewai.llms.base_llm import BaseLLM
from pydantic import BaseModel

import assistant.infra.config  # noqa: F401  (sets the crewai telemetry switches before the import)

MODEL_AGENTS = ("comparator", "formatter")  # the agents a model works for; the others are deterministic only
HERE = Path(__file__).parent


@lru_cache(maxsize=2)
def definitions(kind: str = "agents") -> dict[str, dict[str, str]]:
    """`kind`: "agents" or "tasks", the YAML file of that name beside this one."""
    specs: dict[str, dict[str, str]] = yaml.safe_load((HERE / f"{kind}.yaml").read_text(encoding="utf-8"))
    return specs


def build_agent(name: str, llm: BaseLLM, inputs: dict[str, str]) -> Agent:
    """An agent with no tools (its task's context holds the tools' results) and always the
    configured LLM (an Agent without `llm=` silently falls back to a hosted default model)."""
    spec = definitions()[name]
    return Agent(
        role=spec["role"],
        goal=spec["goal"].format(**inputs),
        backstory=spec["backstory"],
        tools=[],
        llm=llm,
        allow_delegation=False,
        max_iter=1,  # one answer: there is no tool to call and nothing to iterate on
        max_retry_limit=0,  # a failed call falls back to the offline reply instead
        memory=False,
        verbose=False,
    )


def build_task(name: str, agent: Agent, adds: tuple[str, ...] = (), output: type[BaseModel] | None = None) -> Task:
    """The task of `name`; `adds`: input placeholders appended to its description, each filled at kickoff
    (as data: what the inputs hold is never read for placeholders); `output`: its structured answer."""
    spec = definitions("tasks")[name]
    description = "\n\n".join([spec["description"].rstrip(), *(f"{{{key}}}" for key in adds)])
    return Task(
        name=name,
        description=description if adds else spec["description"],
        expected_output=spec["expected_output"],
        agent=agent,
        output_pydantic=output,
    )
