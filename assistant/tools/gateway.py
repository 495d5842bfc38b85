"""The one place agents' tool calls go through: each agent may call only the tools its pack allows.

The store's pack, for instance, gives the sales role the inventory and the calculator and the
support role the knowledge base and the calculator; a call outside an agent's list is refused
here, whatever the agent asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assistant.pack.model import Catalog, FactValue, FaqEntry, Product, ToolName
from assistant.tools.calculator import calculate
from assistant.tools.comparison import Comparison, Rank, compare, ranked
from assistant.tools.eligibility import Verdict, check
from assistant.tools.filters import Filters
from assistant.tools.retrieval import CatalogIndex


class ToolNotAllowed(PermissionError):
    """An agent asked for a tool that is not on its allow-list."""


class ToolGateway:
    def __init__(self, catalog: Catalog, index: CatalogIndex, more: Mapping[str, Callable[..., Any]] | None = None):
        """`more`: the tools the pack's extensions add."""
        # keyed by str: callers name agents with plain strings, not the pack's AgentName literals
        self.permissions: dict[str, list[ToolName]] = dict(catalog.pack.tools.items())
        self._tools: dict[str, Callable[..., Any]] = {
            "search_products": lambda *args, **kwargs: index.search_products(*args, **kwargs),
            "ranked_products": lambda *args, **kwargs: index.ranked_products(*args, **kwargs),
            "search_faq": lambda *args, **kwargs: index.search_faq(*args, **kwargs),
            "compare_products": lambda products: compare(products, catalog),
            "rank_products": lambda products, rank: ranked(products, rank, catalog),
            "check_eligibility": lambda product, profile: check(product, profile, catalog),
            "calculate": calculate,
            **(more or {}),
        }

    @property
    def names(self) -> set[str]:
        """The tools a pack's allow-lists may name (a ranking goes by its search's or comparison's name)."""
        return {self.family(tool) for tool in self._tools}

    @staticmethod
    def family(tool: str) -> str:
        """The tool a pack's lists name for this one: a ranking is a search's or a comparison's."""
        return {"ranked_products": "search_products", "rank_products": "compare_products"}.get(tool, tool)

    def allowed(self, agent: str, tool: str) -> bool:
        return self.family(tool) in self.permissions.get(agent, [])

    def call(self, agent: str, tool: str, *args: Any, **kwargs: Any) -> Any:
        """The tool's own result, given its own arguments: what both are depends on the tool named."""
        if not self.allowed(agent, tool):
            raise ToolNotAllowed(f"the {agent} agent may not use {tool}")
        return self._tools[tool](*args, **kwargs)

    def agent_with(self, tool: str, preferred: str | None = None) -> str:
        """The agent that may use a tool: the preferred one if it may, else the first that may.
        Asked only for tools some agent has (the pack is checked for search_faq at start-up, and
        a sum is read as one only where an agent may calculate)."""
        if preferred and self.allowed(preferred, tool):
            return preferred
        return next(agent for agent in self.permissions if self.allowed(agent, tool))


class Tools:
    """One turn's calls of the gateway's tools, typed: each named by the agent calling it, checked
    against that agent's allow-list, and noted in `ran` (the tools the pack's constraints check a
    reply against: "a price requires the tariff tool"), even when refused. The tools an extension
    adds are called by name (`call`)."""

    def __init__(self, gateway: ToolGateway, ran: set[str]) -> None:
        self.gateway = gateway
        self.ran = ran

    def call(self, agent: str, tool: str, *args: Any, **kwargs: Any) -> Any:
        self.ran.add(self.gateway.family(tool))
        return self.gateway.call(agent, tool, *args, **kwargs)

    def search_products(self, agent: str, query: str, filters: Filters, limit: int) -> list[Product]:
        found: list[Product] = self.call(agent, "search_products", query, filters, limit)
        return found

    def ranked_products(self, agent: str, filters: Filters, rank: Rank, limit: int) -> list[Product]:
        found: list[Product] = self.call(agent, "ranked_products", filters, rank, limit)
        return found

    def search_faq(self, agent: str, query: str, limit: int = 3, device: str | None = None) -> list[tuple[FaqEntry, float]]:
        hits: list[tuple[FaqEntry, float]] = self.call(agent, "search_faq", query, limit=limit, device=device)
        return hits

    def compare_products(self, agent: str, products: list[Product]) -> Comparison:
        comparison: Comparison = self.call(agent, "compare_products", products)
        return comparison

    def rank_products(self, agent: str, products: list[Product], rank: Rank) -> list[Product]:
        best_first: list[Product] = self.call(agent, "rank_products", products, rank)
        return best_first

    def check_eligibility(self, agent: str, product: Product, profile: dict[str, FactValue]) -> Verdict:
        verdict: Verdict = self.call(agent, "check_eligibility", product, profile)
        return verdict

    def calculate(self, agent: str, expression: str) -> float | int:
        result: float | int = self.call(agent, "calculate", expression)
        return result
