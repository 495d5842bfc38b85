"""The Comparator's tool: a side-by-side table of products with the best value in each row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel

from assistant.domain import Product


def taka(amount: int | None, symbol: str = "৳") -> str:
    return "—" if amount is None else f"{symbol}{amount:,}"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:g}%"


@dataclass(frozen=True)
class Attribute:
    """One comparable fact: how to read it, show it, and which direction is better."""

    key: str
    label: str
    read: Callable[[Product], float | int | None]
    show: Callable[[Product], str]
    better: str | None  # "low", "high" or None (not ranked)


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute("annual_fee", "Annual fee", lambda p: p.fees.annual_fee, lambda p: taka(p.fees.annual_fee), "low"),
    Attribute("rate", "Interest / profit rate (yearly)", lambda p: p.rate and p.rate.annual_pct,
              lambda p: percent(p.rate and p.rate.annual_pct), "low"),
    Attribute("credit_limit", "Credit limit up to", lambda p: p.credit_limit and p.credit_limit.max,
              lambda p: taka(p.credit_limit and p.credit_limit.max), "high"),
    Attribute("interest_free_days", "Interest-free days", lambda p: p.interest_free_days,
              lambda p: "—" if p.interest_free_days is None else f"up to {p.interest_free_days}", "high"),
    Attribute("lounge", "Airport lounge visits a year", lambda p: p.lounge_visits_per_year,
              lambda p: str(p.lounge_visits_per_year), "high"),
    Attribute("foreign_fee", "Foreign transaction fee", lambda p: p.fees.foreign_transaction_fee_pct,
              lambda p: percent(p.fees.foreign_transaction_fee_pct), "low"),
    Attribute("min_income", "Minimum monthly income", lambda p: p.eligibility.min_monthly_income,
              lambda p: taka(p.eligibility.min_monthly_income), "low"),
    Attribute("rewards", "Rewards", lambda p: None, lambda p: p.rewards, None),
)


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


def _best(products: list[Product], attribute: Attribute) -> list[str]:
    values = {p.id: attribute.read(p) for p in products}
    known = {pid: v for pid, v in values.items() if v is not None}
    if attribute.better is None or len(known) < 2 or len(set(known.values())) == 1:
        return []
    target = (min if attribute.better == "low" else max)(known.values())
    return [pid for pid, v in known.items() if v == target]


def compare(products: list[Product]) -> Comparison:
    """Rank each attribute; recommend the product that wins most rows (lower fee breaks ties)."""
    rows = [
        ComparisonRow(
            key=a.key, label=a.label, values={p.id: a.show(p) for p in products}, best=_best(products, a)
        )
        for a in ATTRIBUTES
    ]
    wins = {p.id: [r.label for r in rows if p.id in r.best] for p in products}
    ranked = sorted(products, key=lambda p: (-len(wins[p.id]), p.fees.annual_fee))
    recommended = ranked[0].id if len(products) > 1 and wins[ranked[0].id] else None
    return Comparison(products=[p.id for p in products], rows=rows, wins=wins, recommended=recommended)
