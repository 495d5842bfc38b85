"""The deterministic tools, wrapped for CrewAI agents: each agent gets only what its pack allows
(and, in LLM mode, only what the conversation's phase offers), and every call still goes
through the tool gateway, which checks again."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from crewai.tools import BaseTool, tool

import assistant.infra.config  # noqa: F401  (sets the crewai telemetry switches before the import)
from agents.work import TurnWork
from assistant.pack.model import Product
from assistant.tools.calculator import CalculationError
from assistant.tools.comparison import Comparison


def make_tools(work: TurnWork, agent: str, offer: Callable[[str], bool] | None = None) -> dict[str, BaseTool]:
    """The tools `agent` may use, bound to this turn's catalog, filters, customer profile and
    goal; `offer`: which of them the model is shown (default: every one the agent may use)."""
    catalog, gateway = work.services.catalog, work.services.tools
    goal = work.request.goal

    def products(ids: list[str]) -> list[Product]:
        return [p for pid in ids if (p := catalog.product(pid))]

    @tool("search_products")
    def search_products(query: str) -> str:
        """Search the catalog for products matching the query, under the customer's filters."""
        found = gateway.call(agent, "search_products", query, work.request.state.filters, work.services.max_products)
        return json.dumps([p.model_dump() for p in found], ensure_ascii=False)

    @tool("search_faq")
    def search_faq(question: str) -> str:
        """Find the help article that answers a support question, with its similarity score."""
        hits = gateway.call(agent, "search_faq", question, limit=1)
        return json.dumps([{"score": round(s, 3), **e.model_dump()} for e, s in hits], ensure_ascii=False)

    @tool("compare_products")
    def compare_products(product_ids: list[str]) -> str:
        """Compare products by id: a table of their attributes with the best in each row."""
        comparison: Comparison = gateway.call(agent, "compare_products", products(product_ids))
        return comparison.model_dump_json()

    @tool("check_eligibility")
    def check_eligibility(product_ids: list[str]) -> str:
        """Check the customer's eligibility for products by id against the business's rules."""
        verdicts = [
            gateway.call(agent, "check_eligibility", p, work.request.state.profile).model_dump() for p in products(product_ids)
        ]
        return json.dumps(verdicts, ensure_ascii=False)

    @tool("calculate")
    def calculate(expression: str) -> str:
        """Work out arithmetic exactly (numbers, + - * / % ** and parentheses only)."""
        try:
            return str(gateway.call(agent, "calculate", expression))
        except CalculationError as error:
            return f"error: {error}"

    @tool("identify")
    def identify(description: str, category: str | None = None) -> str:
        """Identify the elements a customer wants homologated from their description (and the vehicle category)."""
        return str(gateway.call(agent, "identify", description, category).model_dump_json())

    @tool("select_variant")
    def select_variant(code: str, answer: str) -> str:
        """The variant of an element the customer's answer to its variant question picks (none if unclear)."""
        return json.dumps(gateway.call(agent, "select_variant", code, answer))

    @tool("tariff")
    def tariff(codes: list[str]) -> str:
        """The price of a set of element codes, with its tax note, lines and warnings."""
        return str(gateway.call(agent, "tariff", codes).model_dump_json())

    @tool("case_status")
    def case_status() -> str:
        """How far the customer's case has got: the parts done, the one at hand and what it still needs."""
        if work.services.cases is None or goal is None:
            return "no case is open"
        slots = work.out.flow_step.slots if work.out.flow_step else goal.slots
        return str(gateway.call(agent, "case_status", work.services.cases, goal.type, slots))

    @tool("check_field")
    def check_field(key: str, value: str) -> str:
        """Check a value for one of the case's fields by its key (an id's letter, a plate, a VIN) before saying it is right."""
        if work.services.cases is None or goal is None:
            return "no case is open"
        slots: dict[str, Any] = work.out.flow_step.slots if work.out.flow_step else goal.slots
        found = [s for s in work.services.cases.flow(goal.type, slots).slots() if s.slot == key]
        if not found:
            return f"unknown field: {key}"
        verdict = gateway.call(agent, "check_field", found[0], value)
        return "ok" if verdict.ok else f"refused: {verdict.reason}"

    @tool("handover")
    def handover() -> str:
        """How the customer reaches a person; whatever is under way is kept."""
        return str(gateway.call(agent, "handover"))

    every = (
        search_products,
        search_faq,
        compare_products,
        check_eligibility,
        calculate,
        identify,
        select_variant,
        tariff,
        case_status,
        check_field,
        handover,
    )
    shown = offer or (lambda name: gateway.allowed(agent, name))
    return {t.name: t for t in every if shown(t.name)}
