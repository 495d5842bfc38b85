"""The Comparator: a side-by-side table of the products at hand, or their ranking by what was asked."""

from __future__ import annotations

from agents.work import TurnWork


def comparator(work: TurnWork) -> None:
    """ "Which is cheaper?" names the winner on that attribute, not the item winning most rows."""
    intent, selection = work.request.intent, work.out.selection
    if intent.rank and selection:
        work.out.ranking = work.tools.rank_products("comparator", selection, intent.rank)
    if intent.wants_comparison and len(selection) > 1:
        work.out.comparison = work.tools.compare_products("comparator", selection)
