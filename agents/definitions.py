"""The CrewAI agents of LLM mode, declared in agents.yaml; imported only when an LLM is used. Their
tasks are in tasks/ (build_task is named here too, for the callers that import it from here)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from crewai import Agent
from crewai.llms.base_llm import BaseLLM

import assistant.infra.config  # noqa: F401  (sets the crewai telemetry switches before the import)
from tasks.definitions import build_task as build_task  # the tasks' own package since they moved to tasks/

MODEL_AGENTS = ("comparator", "formatter")  # the agents a model works for; the others are deterministic only
HERE = Path(__file__).parent


@lru_cache(maxsize=1)
def definitions() -> dict[str, dict[str, str]]:
    """Each model agent by name: its role, goal and backstory (agents.yaml, beside this file)."""
    specs: dict[str, dict[str, str]] = yaml.safe_load((HERE / "agents.yaml").read_text(encoding="utf-8"))
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
