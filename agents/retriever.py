"""The Retriever: products for the filters in effect, or the help centre's answer."""

from __future__ import annotations

from agents.help import calculate, look_up
from agents.work import HELP_INTENTS, TurnWork


def retriever(work: TurnWork) -> None:
    """Products for the filters in effect, or the FAQ answer for a support question.

    A message the rules could not place is tried against the FAQ too: a relevant answer
    makes it a faq turn.
    """
    tools = work.tools
    if work.intent.type == "calculate":
        calculate(work, "retriever")
        return
    if work.intent.type in HELP_INTENTS:
        look_up(work, "retriever")
        return
    named = [p for p in work.catalog.products_by_id(work.intent.named) if work.index.rules.matches(p, work.state.filters)]
    if named:  # "show me the Legion 5", "is the G502 wireless?": the items named, if they match
        work.selection = named[:work.max_products]
    elif work.intent.cheapest_first:
        work.selection = tools.call("retriever", "cheapest_products", work.state.filters, work.max_products)
    else:
        query = " ".join([work.query, *map(str, work.state.filters.values())])
        work.selection = tools.call("retriever", "search_products", query, work.state.filters, work.max_products)
    work.retrieved = True
