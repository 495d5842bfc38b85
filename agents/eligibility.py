"""The Eligibility agent: each product's verdict against what the customer told us, and what
they do qualify for when they asked about the whole catalog or qualify for nothing at hand."""

from __future__ import annotations

from agents.work import TurnWork
from assistant.pack.model import Product
from assistant.tools.comparison import rank_key


def eligibility(work: TurnWork) -> None:
    services, out, profile = work.services, work.out, work.request.state.profile
    catalog = services.catalog

    def open_to_them(products: list[Product]) -> list[Product]:
        verdicts = [work.tools.check_eligibility("eligibility", p, profile) for p in products]
        return sorted((p for p, v in zip(products, verdicts, strict=True) if v.eligible), key=lambda p: rank_key(p, catalog))

    out.verdicts = [work.tools.check_eligibility("eligibility", p, profile) for p in out.selection]
    if out.across_catalog:  # "which cards can I get?"
        out.qualifying = open_to_them(out.selection)[: services.max_products]
    if profile and out.verdicts and all(v.eligible is False for v in out.verdicts):  # a student asking for credit cards
        rules, always = services.index.rules, catalog.pack.search.always
        others = [p for p in catalog.products if p not in out.selection and rules.matches(p, always)]
        out.qualifying = open_to_them(others)[: services.max_products]
