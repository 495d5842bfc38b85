"""The CrewAI agents and tasks that LLM mode runs: declared in agents/ (agents.yaml, tasks.yaml), built here
with a real crewai LLM object pointed at a closed local port (nothing is called)."""

from __future__ import annotations

import json

import crewai  # noqa: E402
import pytest

from agents.crew import build_crew  # noqa: E402
from agents.definitions import AGENT_NAMES, build_agent, definitions  # noqa: E402
from agents.tools import make_tools  # noqa: E402
from agents.work import TurnRequest, TurnWork  # noqa: E402
from assistant.dialogue.state import SessionState  # noqa: E402
from assistant.understanding.reader import Intent  # noqa: E402

ALLOWED_TOOLS = {  # the bank pack's allow-lists (data/bank/pack.yaml `tools`)
    "retriever": ["search_products", "search_faq"],
    "comparator": ["compare_products"],
    "eligibility": ["check_eligibility"],
    "booking": [],
    "support": [],
    "quote": [],  # a pack without quote: gives it nothing to call
    "formatter": [],
}
INPUTS = {"business": "Padma", "filters": "{}", "currency": "BDT"}


@pytest.fixture
def llm():
    return crewai.LLM(model="openai/test-model", api_key="unused", base_url="http://127.0.0.1:9/v1")


@pytest.fixture
def work(pipeline):
    state = SessionState(
        session_id="s",
        filters={"tier": "platinum", "product_type": "credit_card"},
        profile={"employment": "salaried", "monthly_income": 90_000},
    )
    return TurnWork(TurnRequest("q", Intent(type="product_info"), state), pipeline.services)


def test_every_agent_has_exactly_its_allowed_tools(llm, work):
    assert set(definitions()) == set(AGENT_NAMES)
    for name in AGENT_NAMES:
        agent = build_agent(name, llm, make_tools(work, name), INPUTS)
        assert [t.name for t in agent.tools] == ALLOWED_TOOLS[name]
        assert agent.llm is llm, "an agent without the configured LLM falls back to a hosted model"
        assert agent.allow_delegation is False


def test_crew_runs_selected_agents_in_order_with_formatter_last(llm, work):
    crew = build_crew(["comparator", "eligibility", "formatter"], llm, work, INPUTS)
    assert [t.agent.role for t in crew.tasks] == ["Product Comparator", "Eligibility Analyzer", "Response Formatter"]
    assert crew.tasks[-1].context == crew.tasks[:-1]
    with pytest.raises(ValueError):
        build_crew(["formatter", "comparator"], llm, work, INPUTS)


def test_tools_return_catalog_facts(work):
    found = json.loads(make_tools(work, "retriever")["search_products"].run(query="travel rewards"))
    assert found and all(p["tier"] == "platinum" and p["product_type"] == "credit_card" for p in found)
    ids = [p["id"] for p in found[:2]]
    comparison = json.loads(make_tools(work, "comparator")["compare_products"].run(product_ids=ids))
    fees = next(r for r in comparison["rows"] if r["key"] == "annual_fee")
    assert set(fees["values"]) == set(ids)
    verdicts = json.loads(make_tools(work, "eligibility")["check_eligibility"].run(product_ids=ids))
    for verdict in verdicts:
        rule = work.services.catalog.product(verdict["product_id"])
        assert verdict["eligible"] == ("salaried" in rule.eligible_employment and 90_000 >= rule.min_monthly_income)
