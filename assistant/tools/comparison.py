"""The Comparator's tool: a side-by-side table of products with the best value in each row.

The rows, their labels and which direction is better come from the pack's display.compare.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from assistant.pack.display import render, show_value
from assistant.pack.model import Catalog, Product, Row


class Rank(BaseModel):
    """What a customer ranks the items by: an attribute, and which end they want ("cheaper" is price, low)."""

    attribute: str
    best: Literal["low", "high"]


class ComparisonRow(BaseModel):
    key: str
    label: str
    values: dict[str, str]
    best: list[str]


class Comparison(BaseModel):
    products: list[str]
    rows: list[ComparisonRow]
    wins: dict[str, list[str]]
    recommended: str | None


def _best(products: list[Product], row: Row) -> list[str]:
    values = {p.id: p.value(row.attribute) for p in products}
    known = {pid: v for pid, v in values.items() if isinstance(v, (int, float))}
    if row.better is None or len(known) < 2 or len(set(known.values())) == 1:
        return []
    target = (min if row.better == "low" else max)(known.values())
    return [pid for pid, v in known.items() if v == target]


def _shown(product: Product, row: Row, catalog: Catalog) -> str:
    if row.show is not None:
        return render(row.show, product, catalog) or "—"
    return show_value(product.value(row.attribute), catalog.pack.attributes[row.attribute], catalog)


def compare(products: list[Product], catalog: Catalog) -> Comparison:
    """Rank each row; recommend the product that wins most rows (the pack's rank_by breaks ties)."""
    attributes = catalog.pack.attributes
    rows = [
        ComparisonRow(
            key=row.attribute,
            label=row.label or attributes[row.attribute].label,
            values={p.id: _shown(p, row, catalog) for p in products},
            best=_best(products, row),
        )
        for row in catalog.pack.display.compare
        if any(p.value(row.attribute) is not None for p in products)  # no row of dashes
    ]
    wins = {p.id: [r.label for r in rows if p.id in r.best] for p in products}
    ranked = sorted(products, key=lambda p: (-len(wins[p.id]), rank_key(p, catalog)))
    recommended = ranked[0].id if len(products) > 1 and wins[ranked[0].id] else None
    return Comparison(products=[p.id for p in products], rows=rows, wins=wins, recommended=recommended)


def rank_key(product: Product, catalog: Catalog) -> tuple[float, str]:
    """Lowest first by the pack's rank_by (annual fee, price); items without it last."""
    value = product.value(catalog.pack.search.rank_by)
    return (value if isinstance(value, (int, float)) else float("inf"), product.name)


def ranked(products: list[Product], rank: Rank, catalog: Catalog) -> list[Product]:
    """Best first by the attribute asked about; items without it last, then by the pack's rank_by."""

    def key(product: Product) -> tuple[float, tuple[float, str]]:
        value = product.value(rank.attribute)
        if not isinstance(value, (int, float)):
            return float("inf"), rank_key(product, catalog)
        return (value if rank.best == "low" else -value), rank_key(product, catalog)

    return sorted(products, key=key)
