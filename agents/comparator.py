"""The Comparator: a side-by-side table of the products at hand."""

from __future__ import annotations

from agents.work import TurnWork


def comparator(work: TurnWork) -> None:
    if len(work.out.selection) > 1:
        work.out.comparison = work.services.tools.call("comparator", "compare_products", work.out.selection)
