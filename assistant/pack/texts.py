"""The Formatter's templates: markdown replies built only from tool results and pack data.

Every sentence comes from the texts (the pack's own words over the engine's defaults in
texts.yaml, one key per sentence) and the display templates; this module only decides which
ones a turn needs and fills them in.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from assistant.language.lexicon import WEEKDAYS
from assistant.pack.display import fields, money, price, render, show_value
from assistant.pack.model import BOUNDS, Catalog, FactValue, FaqEntry, FilterValue, Product, TopicLine
from assistant.pack.translations import speaking
from assistant.tools.comparison import Comparison, ComparisonRow, Rank
from assistant.tools.filters import Filters

REASONS_SHOWN = 2  # of the reasons a customer is refused every item asked for, the first few

if TYPE_CHECKING:  # the eligibility tool words its reasons with say(); goals live in dialogue
    from assistant.dialogue.goals import Goal
    from assistant.tools.eligibility import Verdict


def say(catalog: Catalog, key: str, **values: object) -> str:
    """The text `key` with the business, support contact and item words filled in, and `values`
    (which may name a particular item as `item`)."""
    text = catalog.text
    common = {"business": catalog.name, "support": catalog.business.support_contact, "item": text["item"], "items": text["items"]}
    return text[key].format(**{**common, **values})


def every_way(catalog: Catalog, key: str) -> list[str]:
    """Text `key` as each language the pack replies in says it: the words a customer may answer
    a question with, whichever language they answer in ("sí", "yes")."""
    said = []
    for code in (None, *catalog.versions):
        with speaking(code):
            said.append(say(catalog, key))
    return list(dict.fromkeys(said))


def weekday_words(day: dt.date, catalog: Catalog) -> str:
    """A day's name in the reply's language ("Monday", "সোমবার")."""
    return say(catalog, f"weekday_{WEEKDAYS[day.weekday()]}")


def day_words(day: dt.date, catalog: Catalog, year: bool = True) -> str:
    """A day as replies name it, in the reply's language: "Monday 23 November 2026"."""
    parts = {"weekday": weekday_words(day, catalog), "day": day.day, "month": say(catalog, f"month_{day.month}"), "year": day.year}
    return say(catalog, "day_words" if year else "day_words_short", **parts)


def filter_words(catalog: Catalog, name: str, value: FilterValue, many: bool = True) -> str:
    """How a filter's value reads: "Gold", "credit cards", "SUVs", a budget in the pack's currency."""
    attribute = catalog.pack.filters[name].of
    values = value if isinstance(value, list) else [value]
    either = f" {say(catalog, 'or')} "
    if attribute.type == "number":
        return either.join(price(float(v), attribute, catalog) if attribute.unit == "currency" else f"{float(v):g}" for v in values)
    return either.join(attribute.words(str(v), many) for v in values)


def in_sentence(label: str) -> str:
    """A label inside a sentence: "Annual fee" is "annual fee", "RAM" and "(NCAP)" stay as they are."""
    return " ".join(word if sum(c.isupper() for c in word) > 1 else word.lower() for word in label.split())


def one_of(words: list[str], catalog: Catalog, joiner: str = "or") -> str:
    """ "A, B or C": the candidates a question asks the customer to choose among (or, with
    "and", the items that share a place)."""
    return f"{', '.join(words[:-1])} {say(catalog, joiner)} {words[-1]}" if len(words) > 1 else "".join(words)


def fact_words(catalog: Catalog, name: str, value: FactValue) -> str:
    """How a customer fact's value reads: a category's words ("salaried employees"), an amount of money, a number."""
    fact = catalog.pack.profile[name]
    if fact.kind == "category":
        return fact.values.get(str(value), str(value).replace("_", " "))
    return money(int(value), catalog.business) if fact.kind == "amount" else str(value)


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


def ranking(products: list[Product], rank: Rank, catalog: Catalog) -> str:
    """ "**X** has the lowest annual fee: ৳1,500." with the others' figures after it, so the
    answer is the attribute asked about and shows the numbers behind it."""
    attribute = catalog.pack.attributes[rank.attribute]
    shown = [(p, show_value(p.value(rank.attribute), attribute, catalog)) for p in products]
    label = in_sentence(attribute.label)
    if len(products) == 1:
        return say(catalog, "ranked_only", name=products[0].name, label=label, value=shown[0][1])
    best = [f"**{p.name}**" for p, value in shown if value == shown[0][1]]
    key = f"ranked_{rank.best}" + ("_tie" if len(best) > 1 else "")
    lines = [say(catalog, key, name=one_of(best, catalog, "and"), label=label, value=shown[0][1])]
    lines += [f"- {p.name}: {value}" for p, value in shown[len(best) :]]
    return "\n".join(lines)


def qualifying(products: list[Product], catalog: Catalog, intro: str) -> str:
    """The items the customer qualifies for, as a numbered list under `intro`."""
    lines = [say(catalog, intro, count=len(products), order=catalog.pack.search.cheapest), ""] + [
        f"{i}. {product_line(p, catalog)}" for i, p in enumerate(products, 1)
    ]
    return "\n".join(lines)


def ruled_out(verdicts: list[Verdict], products: list[Product], filters: Filters, catalog: Catalog) -> str:
    """None of the items asked for is open to the customer, and the reasons they share (each once)."""
    failing = list(dict.fromkeys(reason for v in verdicts for reason in v.failed))
    reasons = "".join(f"\n- {reason}" for reason in failing[:REASONS_SHOWN])
    return say(catalog, "ruled_out", count=len(products), what=describe_filters(filters, catalog, len(products))) + reasons


def not_open(verdict: Verdict, catalog: Catalog) -> str:
    """An item the customer asks to book that isn't open to them, and why, before anything else is asked."""
    return say(catalog, "not_open", name=verdict.product_name) + "".join(f"\n- {reason}" for reason in verdict.failed)


def noted(facts: dict[str, FactValue], catalog: Catalog) -> str:
    """ "Noted: monthly income ৳60,000." The facts a message told, said back before they are used."""
    profile = catalog.pack.profile
    said = [f"{profile[name].label or name.replace('_', ' ')} {fact_words(catalog, name, value)}" for name, value in facts.items()]
    return say(catalog, "noted", facts="; ".join(said))


def no_match(filters: Filters, relax: str | None, catalog: Catalog) -> str:
    """Nothing matches; and the filter whose removal would bring some back, by what it is of
    ("the RAM preference"), never by its name in state ("max_ram_gb")."""
    text = say(catalog, "no_match", what=describe_filters(filters, catalog))
    if relax:
        text += " " + say(catalog, "relax", filter=in_sentence(catalog.pack.filters[relax].of.label))
    return text


def comparison_table(comparison: Comparison, products: list[Product], catalog: Catalog) -> str:
    by_id = {p.id: p for p in products}
    header = "| | " + " | ".join(by_id[pid].name for pid in comparison.products) + " |"
    lines = [header, "|---" * (len(comparison.products) + 1) + "|"]
    for row in comparison.rows:
        cells = [f"**{row.values[pid]}** ✓" if pid in row.best else row.values[pid] for pid in comparison.products]
        lines.append(f"| {row.label} | " + " | ".join(cells) + " |")
    summary = [
        "- " + say(catalog, "best_on", name=by_id[pid].name, rows=", ".join(won).lower())
        for pid, won in comparison.wins.items()
        if won
    ]
    text = "\n".join(lines) + "\n\n" + "\n".join(summary)
    if comparison.recommended:
        best = by_id[comparison.recommended]
        most = len(comparison.wins[best.id])
        tied = any(len(won) == most for pid, won in comparison.wins.items() if pid != best.id)
        rank = catalog.pack.attributes[catalog.pack.search.rank_by].label.lower()
        text += "\n\n" + say(catalog, "overall_tie" if tied else "overall_wins", name=best.name, rank=rank)
    return text


def on_lines(comparison: Comparison, products: list[Product], lines: list[TopicLine], catalog: Catalog) -> Comparison:
    """The comparison of the lines a question asked for ("compare their fees"), a row each, best
    where the pack compares the figure the line is about; no overall winner is named from part
    of the table. Asked for no line in particular (or none the items have), the whole table."""
    best = {row.key: row.best for row in comparison.rows}
    rows = []
    for line in lines:
        values = {p.id: render(line.show, p, catalog) for p in products}
        if any(values.values()):  # no row of dashes
            key = fields(line.show)[0]
            shown = {pid: value or "—" for pid, value in values.items()}
            rows.append(ComparisonRow(key=key, label=line.label, values=shown, best=best.get(key, [])))
    if not rows:
        return comparison
    wins = {pid: [row.label for row in rows if pid in row.best] for pid in comparison.products}
    return Comparison(products=comparison.products, rows=rows, wins=wins, recommended=None)


def single_product_note(product: Product, catalog: Catalog) -> str:
    return f"{say(catalog, 'only_one')} {product_line(product, catalog)}"


def eligibility_report(verdicts: list[Verdict], catalog: Catalog) -> str:
    lines = []
    for v in verdicts:
        head = say(catalog, {True: "eligible", False: "not_eligible", None: "need_more"}[v.eligible])
        lines.append(f"**{v.product_name}**: {head}")
        lines += [f"- {reason}" for reason in v.reasons]
        lines.append("")
    return "\n".join(lines).strip()


def asked_lines(topics: list[str], named: list[str], catalog: Catalog) -> list[TopicLine]:
    """The display lines a question asks for: of each topic it is about, the lines it names, or
    all of them if it names none ("late fee" is one line of the fees, "fees" all seven); none
    when it is about no topic we know. A line two topics share is asked once."""
    known = catalog.pack.display.topics
    asked: list[TopicLine] = []
    for topic in (t for t in topics if t in known):
        asked += [line for line in known[topic] if line.label in named] or known[topic]
    return list({line.label: line for line in asked}.values())


def features_report(products: list[Product], lines: list[TopicLine], catalog: Catalog) -> str:
    """Each product's values for the lines asked; a question on no topic we know ("is it
    waterproof?") gets every line we have, as the answer may be in one. One line asked of
    several products is one list under its label. A product with none of the lines is said to
    have none listed, never shown as a bare heading."""
    lines = lines or asked_lines(list(catalog.pack.display.topics), [], catalog)
    found = {p.id: [(line.label, value) for line in lines if (value := render(line.show, p, catalog))] for p in products}
    listed = [p for p in products if found[p.id]]
    labels = {label for values in found.values() for label, _ in values}
    if len(listed) > 1 and len(labels) == 1:
        blocks = [f"**{labels.pop()}**\n" + "\n".join(f"- **{p.name}**: {found[p.id][0][1]}" for p in listed)]
    else:
        blocks = [f"**{p.name}**\n" + "\n".join(f"- {label}: {value}" for label, value in found[p.id]) for p in listed]
    blocks.append(" ".join(say(catalog, "not_listed", name=p.name) for p in products if not found[p.id]))
    return "\n\n".join(block for block in blocks if block)


def basket(items: list[Product], total: float, catalog: Catalog) -> str:
    """Each item's price from the catalog, then what they come to together."""
    priced = catalog.pack.search.rank_by
    attribute = catalog.pack.attributes[priced]
    lines = [f"- **{p.name}**: {show_value(p.value(priced), attribute, catalog)}" for p in items]
    return "\n".join([*lines, say(catalog, "basket_total", total=show_value(total, attribute, catalog))])


def faq_answer(found: FaqEntry, catalog: Catalog) -> str:
    """The article the help centre found, in the reply's language."""
    entry = catalog.article(found)
    steps = "".join(f"\n{i}. {step}" for i, step in enumerate(entry.steps, 1))
    return f"**{entry.question}**\n\n{entry.answer}" + (f"\n{steps}" if steps else "")


def suggestions(entries: list[FaqEntry], catalog: Catalog) -> str:
    return say(catalog, "suggestions") + "".join(f"\n- {catalog.article(entry).question}" for entry in entries)


def cancelled(goal: Goal | None, catalog: Catalog) -> str:
    if goal is None:
        return say(catalog, "nothing_to_cancel")
    return say(catalog, "cancelled_booking" if goal.type == "booking" else "cancelled")


def resumed(goal: Goal, catalog: Catalog) -> str:
    kind = catalog.pack.goal_kinds.get(goal.type)
    back = kind.resumed if kind else say(catalog, "resumed")
    return f"{back} {goal.next_question}" if goal.next_question else back
