"""The Comparator: a side-by-side table of the products at hand, or their ranking by what was asked."""

from __future__ import annotations

from agents.retriever import product_line
from agents.spec import Agent, Answer, Asked, Draft, Step
from assistant.dialogue.work import Compared, TurnWork
from assistant.pack.display import fields, render, show_value
from assistant.pack.model import Catalog, Product, TopicLine
from assistant.pack.texts import in_sentence, one_of, say
from assistant.tools.comparison import Comparison, ComparisonRow, Rank


def comparator(work: TurnWork) -> Compared:
    """ "Which is cheaper?" names the winner on that attribute, not the item winning most rows."""
    intent, selection = work.request.intent, work.out.selection
    ranking = work.tools.rank_products("comparator", selection, intent.rank) if intent.rank and selection else None
    wanted = intent.wants_comparison and len(selection) > 1
    return Compared(work.tools.compare_products("comparator", selection) if wanted else None, ranking)


def needed(asked: Asked) -> Step | None:
    """A table asked for, or the items at hand ranked."""
    return Step.COMPARE if asked.intent.wants_comparison or asked.at_hand else None


def show(answer: Answer, work: TurnWork, draft: Draft) -> None:
    """ "Which is the safest?": the winner on that, no list or table of everything; otherwise the
    table, of the lines asked if any ("compare their fees"), or a note that one item is no comparison."""
    out, intent, catalog = work.out, work.request.intent, work.services.catalog
    if answer is not Answer.PRODUCTS or out.across_catalog:  # across the catalog the verdicts say what is open to them
        return
    if out.ranking and intent.rank:
        draft.products, draft.comparison = out.ranking, None
        draft.sections.append(ranking(out.ranking, intent.rank, catalog))
    elif draft.comparison:  # of the lines asked, if any, on the page too
        asked = asked_lines(intent.feature_topics, intent.feature_lines, catalog)  # "the late fee": that line
        draft.comparison = on_lines(draft.comparison, out.selection, asked, catalog)
        draft.sections.append(comparison_table(draft.comparison, out.selection, catalog))
    elif intent.wants_comparison:
        draft.sections.append(single_product_note(out.selection[0], catalog))


AGENT = Agent("comparator", ("compare_products",), needed, comparator, show)


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
