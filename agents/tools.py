"""The deterministic tools, wrapped for CrewAI agents: each agent gets only what its pack allows,
and every call still goes through the tool gateway, which checks again."""

from __future__ import annotations

import json

from crewai.tools import BaseTool, tool

import assistant.infra.config  # noqa: F401  (sets the crewai telemetry switches before the import)
from agents.work import TurnWork
from assistant.pack.model import Product
from assistant.tools.calculator import CalculationError
from assistant.tools.comparison import Comparison


def make_tools(work: TurnWork, agent: str) -> dict[str, BaseTool]:
    """The tools `agent` may use, bound to this turn's catalog, filters and customer profile."""
    catalog, gateway = work.services.catalog, work.services.tools

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

    every = (search_products, search_faq, compare_products, check_eligibility, calculate)
    return {t.name: t for t in every if gateway.allowed(agent, t.name)}
