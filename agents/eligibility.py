"""The Eligibility agent: each product's verdict against what the customer told us, and what
they do qualify for when they asked about the whole catalog or qualify for nothing at hand."""

from __future__ import annotations

from agents.retriever import describe_filters, product_line
from agents.spec import Agent, Answer, Asked, Draft, Step
from assistant.dialogue.work import Checked, TurnWork
from assistant.pack.model import Catalog, Product
from assistant.pack.texts import say
from assistant.tools.comparison import rank_key
from assistant.tools.eligibility import Verdict
from assistant.tools.filters import Filters

REASONS_SHOWN = 2  # of the reasons a customer is refused every item asked for, the first few


def eligibility(work: TurnWork) -> Checked:
    services, out, profile = work.services, work.out, work.request.state.profile
    catalog = services.catalog

    def open_to_them(products: list[Product]) -> list[Product]:
        verdicts = [work.tools.check_eligibility("eligibility", p, profile) for p in products]
        return sorted((p for p, v in zip(products, verdicts, strict=True) if v.eligible), key=lambda p: rank_key(p, catalog))

    verdicts = [work.tools.check_eligibility("eligibility", p, profile) for p in out.selection]
    qualifying: list[Product] = []
    if out.across_catalog:  # "which cards can I get?"
        qualifying = open_to_them(out.selection)[: services.max_products]
    if profile and verdicts and all(v.eligible is False for v in verdicts):  # a student asking for credit cards
        rules, always = services.index.rules, catalog.pack.search.always
        others = [p for p in catalog.products if p not in out.selection and rules.matches(p, always)]
        qualifying = open_to_them(others)[: services.max_products]
    return Checked(verdicts, qualifying)


def needed(asked: Asked) -> Step | None:
    """An eligibility question, where the pack has rules."""
    return Step.CHECK if asked.intent.wants_eligibility and asked.catalog.pack.eligibility else None


def show(answer: Answer, work: TurnWork, draft: Draft) -> None:
    """Across the catalog, what they can get (or, ruled out of all, why not and what instead), in
    place of any list; otherwise each item's verdict, and what is open to them if none is."""
    out, catalog, filters, sections = work.out, work.services.catalog, work.request.state.filters, draft.sections
    if answer is not Answer.PRODUCTS or out.verdicts is None:
        return
    refused = bool(out.verdicts) and all(v.eligible is False for v in out.verdicts)
    if out.across_catalog and refused:  # "a credit card" for a student: why not, what is
        draft.products = out.qualifying
        sections[:] = [ruled_out(out.verdicts, out.selection, filters, catalog)]
        sections += [qualifying(out.qualifying, catalog, "qualifying_instead") if out.qualifying else None]
        sections += [out.ask_user or (None if out.qualifying else say(catalog, "qualifying_none"))]
    elif out.across_catalog:  # what they can get, not a verdict on every item
        draft.products = out.qualifying
        sections[:] = [qualifying(out.qualifying, catalog, "qualifying")] if out.qualifying else []
        sections += [out.ask_user or (None if out.qualifying else say(catalog, "qualifying_none"))]
    else:
        sections.append(eligibility_report(out.verdicts, catalog))
        if out.qualifying:  # nothing at hand is open to them: what is
            draft.products = [*out.selection, *out.qualifying]
            sections.append(qualifying(out.qualifying, catalog, "qualifying_instead"))
        sections += [out.ask_user] if out.ask_user else []


AGENT = Agent("eligibility", ("check_eligibility",), needed, eligibility, show)


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


def eligibility_report(verdicts: list[Verdict], catalog: Catalog) -> str:
    lines = []
    for v in verdicts:
        head = say(catalog, {True: "eligible", False: "not_eligible", None: "need_more"}[v.eligible])
        lines.append(f"**{v.product_name}**: {head}")
        lines += [f"- {reason}" for reason in v.reasons]
        lines.append("")
    return "\n".join(lines).strip()
