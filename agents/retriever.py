"""The Retriever: products for the filters in effect, or the help centre's answer."""

from __future__ import annotations

from agents.help import calculate, look_up
from agents.work import TurnWork
from assistant.dialogue.commands import ShowMore, first
from assistant.pack.model import HELP_INTENTS


def retriever(work: TurnWork) -> None:
    """Products for the filters in effect, or the FAQ answer for a support question.

    A message the rules could not place is tried against the FAQ too: a relevant answer
    makes it a faq turn.
    """
    request, services, out = work.request, work.services, work.out

    if request.intent.type == "calculate":
        calculate(work, "retriever")
        return
    if request.intent.type in HELP_INTENTS:
        look_up(work, "retriever")
        return
    filters = request.state.filters
    always = services.catalog.pack.search.always  # never shown: an item out of stock
    named = [p for p in services.catalog.products_by_id(request.intent.named) if services.index.rules.matches(p, always)]
    if first(request.commands, ShowMore):  # the next ones: every match in rank order, less those shown
        every = work.tools.search_products("retriever", request.query, filters, services.index.count_products(filters))
        out.selection = [p for p in every if p.id not in request.state.seen][: services.max_products]
    elif named:  # "show me the Legion 5", "is the G502 wireless?": the items named, whatever was searched before
        out.selection = named[: services.max_products]
    elif request.intent.rank:
        out.selection = work.tools.ranked_products("retriever", filters, request.intent.rank, services.max_products)
    else:
        query = " ".join([request.query, *map(str, filters.values())])
        out.selection = work.tools.search_products("retriever", query, filters, services.max_products)
    out.retrieved = True
