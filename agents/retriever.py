"""The Retriever: products for the filters in effect, or the help centre's answer; and how a
list of them, or finding none, is shown."""

from __future__ import annotations

from agents.help import calculate, look_up, show_help
from agents.spec import Agent, Answer, Asked, Draft, Step
from assistant.dialogue.commands import ShowMore, first
from assistant.dialogue.work import Calculated, Found, Looked, TurnWork
from assistant.pack.display import render, show_value
from assistant.pack.model import BOUNDS, HELP_INTENTS, NEEDS_PRODUCTS, Catalog, Product
from assistant.pack.texts import filter_words, in_sentence, one_of, say
from assistant.tools.comparison import Rank
from assistant.tools.filters import Filters


def retriever(work: TurnWork) -> Found | Looked | Calculated:
    """Products for the filters in effect, or the FAQ answer for a support question.

    A message the rules could not place is tried against the FAQ too: a relevant answer
    makes it a faq turn.
    """
    request, services = work.request, work.services

    if request.intent.type == "calculate":
        return calculate(work, "retriever")
    if request.intent.type in HELP_INTENTS:
        return look_up(work, "retriever")
    filters = request.state.filters
    always = services.catalog.pack.search.always  # never shown: an item out of stock
    named = [p for p in services.catalog.products_by_id(request.intent.named) if services.index.rules.matches(p, always)]
    if first(request.commands, ShowMore):  # the next ones: every match in rank order, less those shown
        every = work.tools.search_products("retriever", request.query, filters, services.index.count_products(filters))
        return Found([p for p in every if p.id not in request.state.seen][: services.max_products])
    if named:  # "show me the Legion 5", "is the G502 wireless?": the items named, whatever was searched before
        return Found(named[: services.max_products])
    if request.intent.rank:
        return Found(work.tools.ranked_products("retriever", filters, request.intent.rank, services.max_products))
    query = " ".join([request.query, *map(str, filters.values())])
    return Found(work.tools.search_products("retriever", query, filters, services.max_products))


def needed(asked: Asked) -> Step | None:
    """A help question the pack lets it read; a search for items not at hand ("show more" is
    always one); a sum the pack lets it work out."""
    intent, state, selection = asked.intent, asked.state, asked.selection
    fresh = not state.has_products() or (intent.rank is not None and not asked.at_hand) or (bool(intent.named) and not selection)
    searching = intent.type in NEEDS_PRODUCTS and (fresh or first(asked.commands, ShowMore) is not None)
    searching &= not (intent.type in ("feature_query", "comparison", "eligibility_check") and selection)  # at hand
    if asked.helped:
        if asked.help_reader() == "retriever":
            return Step.READ
    elif searching:
        return Step.READ
    return Step.CALCULATE if asked.calculator() == "retriever" else None


def show(answer: Answer, work: TurnWork, draft: Draft) -> None:
    """The items found (or the closest, with what isn't there said back), none found and which
    filter to relax, no more to show; the help centre's answer and sums are help.py's."""
    request, out, catalog, sections = work.request, work.out, work.services.catalog, draft.sections
    intent, filters = request.intent, request.state.filters
    more = first(request.commands, ShowMore) is not None
    if answer in (Answer.CALCULATION, Answer.HELP):
        show_help(answer, work, draft)
    elif answer is Answer.NOTHING_MORE:
        sections.append(say(catalog, "no_more", what=describe_filters(filters, catalog)))
    elif answer is Answer.NO_MATCH:
        said_back = [unapplied(intent.unapplied, catalog)] if intent.unapplied else []
        sections += [*said_back, no_match(filters, _relaxable(work), catalog)]
    elif answer is Answer.PRODUCTS and not out.across_catalog and not (out.ranking and intent.rank):
        # across the catalog the verdicts say what is open to them; a ranking names its winner alone
        if intent.absent:  # "a Corolla": named back, and what we have is the closest, not a match
            sections.append(say(catalog, "absent", names=one_of(intent.absent, catalog)))
        if intent.unavailable:
            sections.append(say(catalog, "unavailable", names=one_of(intent.unavailable, catalog)))
        if intent.unapplied:  # "battery above 5000 mAh": no filter narrows it, so no list matches it
            sections.append(unapplied(intent.unapplied, catalog))
        if intent.type == "product_info":  # found now: list them
            closest = bool(intent.absent or intent.unavailable or intent.unapplied)
            sections.append(product_list(out.selection, filters, not out.retrieved, catalog, intent.rank, closest, more))
        elif intent.type == "feature_query" and out.retrieved:  # found now to answer a fact: what they are, then only that
            sections.append(list_intro(out.selection, filters, False, catalog, intent.rank))


AGENT = Agent("retriever", ("search_products", "search_faq"), needed, retriever, show)


def _relaxable(work: TurnWork) -> str | None:
    """The filter whose removal would bring back the most products, to suggest relaxing it."""
    filters = work.request.state.filters
    counts = {name: work.services.index.count_products({k: v for k, v in filters.items() if k != name}) for name in filters}
    best = max(counts, key=counts.__getitem__, default=None)
    return best if best and counts[best] else None


def describe_filters(filters: Filters, catalog: Catalog, count: int = 2) -> str:
    """'Gold credit cards for travel' (or '... card ...' for one) from the filters in effect;
    both bounds of one number as one range ("with price from ₹10 lakh to ₹15 lakh")."""
    before, noun, after = [], None, []
    pack = catalog.pack
    for name, filtering in pack.filters.items():
        if name not in filters:
            continue
        spec, value, attribute = filtering.filter, filters[name], filtering.of
        bounds = {direction: filters.get(pack.bound(filtering.attribute, direction) or "") for direction in BOUNDS}
        if spec.place == "noun":
            noun = filter_words(catalog, name, value, many=count != 1)
        elif spec.place == "before":
            before.append(filter_words(catalog, name, value))
        elif value == 0 and spec.says_zero:
            after.append(spec.says_zero)
        elif spec.match in BOUNDS and bounds["min"] is not None and bounds["max"] is not None:
            if spec.match == "min":  # said once, at the floor
                low, high = (show_value(bounds[d], attribute, catalog) for d in BOUNDS)
                after.append(say(catalog, "filter_between", label=in_sentence(attribute.label), low=low, high=high))
        elif spec.says is None and spec.match in BOUNDS:  # the other bound of a filter the pack declares one way
            shown = show_value(value, attribute, catalog)
            after.append(say(catalog, f"filter_{spec.match}", label=in_sentence(attribute.label), value=shown))
        else:
            after.append((spec.says or "{value}").format(value=filter_words(catalog, name, value)))
    noun = noun or catalog.text["item" if count == 1 else "items"]
    return " ".join([*before, noun, *after])


def unapplied(said: list[str], catalog: Catalog) -> str:
    """ "I can't search by “battery above 5000 mAh”": a bound the customer said that no filter of
    the pack narrows, said back so that no list is taken to match it."""
    return say(catalog, "unapplied", what=one_of([f"“{words}”" for words in said], catalog, "and"))


def product_line(p: Product, catalog: Catalog) -> str:
    shown = catalog.pack.display
    facts = ", ".join(t for t in (render(f, p, catalog) for f in shown.facts) if t)
    tail = render(shown.tail, p, catalog)
    line = (render(shown.head, p, catalog) or p.name) + (f": {facts}." if facts else ".")
    return f"{line} {tail}" if tail else line


def product_list(
    products: list[Product],
    filters: Filters,
    from_cache: bool,
    catalog: Catalog,
    rank: Rank | None = None,
    closest: bool = False,
    more: bool = False,
) -> str:
    """The items as a numbered list under its intro; `more`: the next page of a list shown."""
    count, what = len(products), describe_filters(filters, catalog, len(products))
    intro = say(catalog, f"more_{'one' if count == 1 else 'many'}", count=count, what=what) if more else None
    lines = [intro or list_intro(products, filters, from_cache, catalog, rank, closest), ""]
    lines += [f"{i}. {product_line(p, catalog)}" for i, p in enumerate(products, 1)]
    lines += ["", say(catalog, "list_hint_one" if len(products) == 1 else "list_hint_many")]
    return "\n".join(lines)


def list_intro(
    products: list[Product], filters: Filters, from_cache: bool, catalog: Catalog, rank: Rank | None = None, closest: bool = False
) -> str:
    """ "Here are 5 platinum credit cards that match:", before the list, or before the one fact
    asked of them all; `closest` when what was asked for isn't in the catalog: no "match" then."""
    one = len(products) == 1
    what = describe_filters(filters, catalog, len(products))
    cheapest = rank is not None and rank.attribute == catalog.pack.search.rank_by and rank.best == "low"
    kind = "closest" if closest else "cheapest" if cheapest else "ranked" if rank else "list_cached" if from_cache else "list"
    order = catalog.pack.search.cheapest if cheapest or rank is None else _order(rank, catalog)
    return say(catalog, f"{kind}_{'one' if one else 'many'}", count=len(products), what=what, order=order)


def _order(rank: Rank, catalog: Catalog) -> str:
    """ "highest power first": how a ranking is ordered, in the attribute's own label."""
    return say(catalog, f"order_{rank.best}", label=in_sentence(catalog.pack.attributes[rank.attribute].label))


def no_match(filters: Filters, relax: str | None, catalog: Catalog) -> str:
    """Nothing matches; and the filter whose removal would bring some back, by what it is of
    ("the RAM preference"), never by its name in state ("max_ram_gb")."""
    text = say(catalog, "no_match", what=describe_filters(filters, catalog))
    if relax:
        text += " " + say(catalog, "relax", filter=in_sentence(catalog.pack.filters[relax].of.label))
    return text
