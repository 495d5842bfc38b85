"""The comparator's judgement in LLM mode: the one specialist call where a model adds something.

The comparison tool ranks every row and names the item that wins most of them; it cannot weigh
the rows against what the customer said they need ("a card for travel, I earn 1.5 lakh"). The
model does that, as structured output (`Judgement`), never as prose: which compared item suits
them, and the table rows that decide it. The judgement is checked against the table (the item
was compared, each row exists and that item is best on it) and then said by the engine in the
pack's words, so the customer reads no figure or verdict the model wrote.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from assistant.pack.model import Catalog
from assistant.pack.texts import one_of, say
from assistant.tools.comparison import Comparison

DECIDING_ROWS = 2  # rows a judgement may rest on, at most


class Judgement(BaseModel):
    """Which compared item suits what the customer said they need, and on which rows."""

    best: str | None = Field(default=None, description="the id of the compared item that suits them best; null if none stands out")
    on: list[str] = Field(default=[], description="the keys of the one or two table rows that decide it")

    @field_validator("on", mode="before")
    @classmethod
    def _one_row(cls, value: object) -> object:
        """One row's key given alone, as small models do, is a list of one."""
        return [value] if isinstance(value, str) else value


def checked(judgement: Judgement, comparison: Comparison) -> Judgement | None:
    """The judgement if the table bears it out: a compared item, best on every row it names."""
    rows = {row.key: row for row in comparison.rows}
    on = list(dict.fromkeys(judgement.on))[:DECIDING_ROWS]
    if judgement.best not in comparison.products or not on:
        return None
    if any(key not in rows or judgement.best not in rows[key].best for key in on):
        return None
    return Judgement(best=judgement.best, on=on)


def said(judgement: Judgement, comparison: Comparison, catalog: Catalog) -> str:
    """The engine's sentence for a checked judgement: the item's name and the rows' labels."""
    product = catalog.product(judgement.best or "")
    labels = {row.key: row.label.lower() for row in comparison.rows}
    rows = one_of([labels[key] for key in judgement.on], catalog, "and")
    return say(catalog, "suits_you", name=product.name if product else judgement.best, rows=rows)
