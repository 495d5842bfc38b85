"""The CrewAI tasks of LLM mode, declared in tasks.yaml: one per agent."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from crewai import Agent, Task

import assistant.config  # noqa: F401  (sets the crewai telemetry switches before the import)


@lru_cache(maxsize=1)
def definitions() -> dict[str, dict]:
    return yaml.safe_load((Path(__file__).parent / "tasks.yaml").read_text(encoding="utf-8"))


def build_task(name: str, agent: Agent, context: list[Task]) -> Task:
    spec = definitions()[name]
    return Task(
        name=name,
        description=spec["description"],
        expected_output=spec["expected_output"],
        agent=agent,
        context=context,
    )
