"""The CrewAI tasks of LLM mode, declared in tasks.yaml; imported only when an LLM is used."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from crewai import Agent, Task
from pydantic import BaseModel

import assistant.infra.config  # noqa: F401  (sets the crewai telemetry switches before the import)

HERE = Path(__file__).parent


@lru_cache(maxsize=1)
def definitions() -> dict[str, dict[str, str]]:
    """Each task by the name of the agent that does it: its description and expected output."""
    specs: dict[str, dict[str, str]] = yaml.safe_load((HERE / "tasks.yaml").read_text(encoding="utf-8"))
    return specs


def build_task(name: str, agent: Agent, adds: tuple[str, ...] = (), output: type[BaseModel] | None = None) -> Task:
    """The task of `name`; `adds`: input placeholders appended to its description, each filled at kickoff
    (as data: what the inputs hold is never read for placeholders); `output`: its structured answer."""
    spec = definitions()[name]
    description = "\n\n".join([spec["description"].rstrip(), *(f"{{{key}}}" for key in adds)])
    return Task(
        name=name,
        description=description if adds else spec["description"],
        expected_output=spec["expected_output"],
        agent=agent,
        output_pydantic=output,
    )
