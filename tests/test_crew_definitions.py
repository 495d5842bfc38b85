"""The CrewAI agents and tasks that LLM mode runs: declared in agents/agents.yaml and tasks/tasks.yaml, built here
with a real crewai LLM object pointed at a closed local port (nothing is called)."""

from __future__ import annotations

import crewai  # noqa: E402
import pytest

from agents.crew import build_crew  # noqa: E402
from agents.definitions import MODEL_AGENTS, build_agent, definitions  # noqa: E402
from agents.registry import BY_NAME  # noqa: E402
from assistant.llm.judgement import Judgement
from tasks import definitions as tasks  # noqa: E402

INPUTS = {"business": "Padma", "filters": "{}"}


@pytest.fixture
def llm():
    return crewai.LLM(model="openai/test-model", api_key="unused", base_url="http://127.0.0.1:9/v1")


def test_only_the_model_agents_are_declared_and_none_has_a_tool(llm):
    assert set(definitions()) == set(tasks.definitions()) == set(MODEL_AGENTS) <= set(BY_NAME)
    for name in MODEL_AGENTS:
        agent = build_agent(name, llm, INPUTS)
        assert agent.tools == [], "every tool has run before the model is asked"
        assert agent.llm is llm, "an agent without the configured LLM falls back to a hosted model"
        assert agent.allow_delegation is False and agent.max_iter == 1


def test_a_crew_is_one_agent_and_its_task_with_its_structured_answer(llm):
    judge = build_crew("comparator", llm, INPUTS, output=Judgement)
    assert [t.agent.role for t in judge.tasks] == ["Product Comparator"] and judge.tasks[0].output_pydantic is Judgement
    writer = build_crew("formatter", llm, INPUTS, phased=("phase_module",))
    assert writer.tasks[0].output_pydantic is None and writer.tasks[0].description.rstrip().endswith("{phase_module}")
