"""The Formatter's templates: markdown replies built only from tool results and pack data.

Every sentence comes from the texts (the pack's own words over the engine's defaults in
texts.yaml, one key per sentence) and the display templates; this module only decides which
ones a turn needs and fills them in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.pack.display import money, price, render
from assistant.pack.model import Catalog, FactValue, FaqEntry, FilterValue, Product
from assistant.tools.comparison import Comparison
from assistant.tools.filters import Filters

if TYPE_CHECKING:  # the eligibility tool words its reasons with say(); goals live in dialogue
    from assistant.dialogue.goals import Goal
    from assistant.tools.eligibility import Verdict


def say(catalog: Catalog, key: str, **values: object) -> str:
    """The text `key` with the business, support contact and item words filled in, and `values`
    (which may name a particular item as `item`)."""
    text = catalog.text
    common = {"business": catalog.name, "support": catalog.business.support_contact, "item": text["item"], "items": text["items"]}
    return text[key].format(**{**common, **values})


def filter_words(catalog: Catalog, name: str, value: FilterValue, many: bool = True) -> str:
    """How a filter's value reads: "Gold", "credit cards", "SUVs", a budget in the pack's currency."""
    attribute_name, attribute = catalog.pack.filter_attributes()[name]
    values = value if isinstance(value, list) else [value]
    either = f" {say(catalog, 'or')} "
    if attribute.type == "number":
        return either.join(price(float(v), attribute, catalog) if attribute.unit == "currency" else f"{float(v):g}" for v in values)
    return either.join(attribute.words(str(v), many) for v in values)


def fact_words(catalog: Catalog, name: str, value: FactValue) -> str:
    """How a customer fact's value reads: a category's words ("salaried employees"), an amount of money, a number."""
    fact = catalog.pack.profile[name]
    if fact.kind == "category":
        return fact.values.get(str(value), str(value).replace("_", " "))
    return money(int(value), catalog.business.currency_symbol) if fact.kind == "amount" else str(value)


def describe_filters(filters: Filters, catalog: Catalog, count: int = 2) -> str:
    """'Gold credit cards for travel' (or '... card ...' for one) from the filters in effect."""
    before, noun, after = [], None, []
    for name, (_, attribute) in catalog.pack.filter_attributes().items():
        if name not in filters:
            continue
        spec, value = attribute.as_filter, filters[name]
        if spec.place == "noun":
            noun = filter_words(catalog, name, value, many=count != 1)
        elif spec.place == "before":
            before.append(filter_words(catalog, name, value))
        elif value == 0 and spec.says_zero:
            after.append(spec.says_zero)
        else:
            after.append((spec.says or "{value}").format(value=filter_words(catalog, name, value)))
    noun = noun or catalog.text["item" if count == 1 else "items"]
    return " ".join([*before, noun, *after])


def product_line(p: Product, catalog: Catalog) -> str:
    shown = catalog.pack.display
    facts = ", ".join(t for t in (render(f, p, catalog) for f in shown.facts) if t)
    tail = render(shown.tail, p, catalog)
    line = (render(shown.head, p, catalog) or p.name) + (f": {facts}." if facts else ".")
    return f"{line} {tail}" if tail else line


def product_list(products: list[Product], filters: Filters, from_cache: bool, catalog: Catalog, cheapest: bool = False) -> str:
    one = len(products) == 1
    what = describe_filters(filters, catalog, len(products))
    kind = "cheapest" if cheapest else "list_cached" if from_cache else "list"
    intro = say(catalog, f"{kind}_{'one' if one else 'many'}", count=len(products), what=what, order=catalog.pack.search.cheapest)
    lines = [intro, ""] + [f"{i}. {product_line(p, catalog)}" for i, p in enumerate(products, 1)]
    lines += ["", say(catalog, "list_hint_one" if one else "list_hint_many")]
    return "\n".join(lines)


def no_match(filters: Filters, relax: str | None, catalog: Catalog) -> str:
    text = say(catalog, "no_match", what=describe_filters(filters, catalog))
    if relax:
        text += " " + say(catalog, "relax", filter=relax.replace("_", " "))
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


def features_report(products: list[Product], topics: list[str], named: list[str], catalog: Catalog) -> str:
    """The topics' lines for each product; of a topic with lines the customer named, only those
    (unless the product has none of them: an electric car's "mileage" is its range). A question
    on no topic we know ("is it waterproof?") gets every line we have: the answer may be in one."""
    known = catalog.pack.display.topics
    topics = [t for t in topics if t in known] or list(known)
    blocks = []
    for p in products:
        lines = [f"**{p.name}**"]
        for topic in topics:
            values = [(line.label, render(line.show, p, catalog)) for line in known[topic]]
            values = [(label, value) for label, value in values if value]
            shown = [f"- {label}: {value}" for label, value in [v for v in values if v[0] in named] or values]
            lines += [line for line in shown if line not in lines]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def faq_answer(entry: FaqEntry) -> str:
    steps = "".join(f"\n{i}. {step}" for i, step in enumerate(entry.steps, 1))
    return f"**{entry.question}**\n\n{entry.answer}" + (f"\n{steps}" if steps else "")


def suggestions(entries: list[FaqEntry], catalog: Catalog) -> str:
    return say(catalog, "suggestions") + "".join(f"\n- {entry.question}" for entry in entries)


def cancelled(goal: Goal | None, catalog: Catalog) -> str:
    if goal is None:
        return say(catalog, "nothing_to_cancel")
    return say(catalog, "cancelled_booking" if goal.type == "booking" else "cancelled")


def resumed(goal: Goal, catalog: Catalog) -> str:
    kind = catalog.pack.goal_kinds.get(goal.type)
    back = kind.resumed if kind else say(catalog, "resumed")
    return f"{back} {goal.next_question}" if goal.next_question else back
