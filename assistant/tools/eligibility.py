"""The Eligibility Analyzer's tool: a product's rules against what the customer told us.

The rules are the pack's (eligibility: a fact `in` a list attribute, `at_least` a number
attribute, `between` two); a rule whose attributes an item does not carry is not checked. A
verdict is True only when every rule we can check passes, False when any rule fails, and None
when nothing fails but a fact the pack asks for is still unknown. Every reason is a pack text.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.pack.model import Catalog, FactValue, Product, Rule
from assistant.pack.texts import fact_words, say


class Verdict(BaseModel):
    product_id: str
    product_name: str
    eligible: bool | None
    reasons: list[str]
    missing: list[str]
    failed: list[str] = []  # the reasons of the rules that fail


def check(product: Product, profile: dict[str, FactValue], catalog: Catalog) -> Verdict:
    reasons: list[str] = []
    failing: list[str] = []
    missing: list[str] = []
    for rule in catalog.pack.eligibility:
        limits = [product.value(a) for a in rule.attributes]
        if any(limit is None or limit == [] for limit in limits):
            continue
        outcome, values = _test(rule, limits, profile.get(rule.fact), catalog)
        if outcome == "unknown" and catalog.pack.profile[rule.fact].question:  # a fact we can ask for
            missing.append(rule.fact)
        reasons.append(say(catalog, f"rule_{rule.test}_{outcome}", **values))
        failing += reasons[-1:] if outcome == "fail" else []
    eligible = False if failing else (None if missing else True)
    return Verdict(
        product_id=product.id, product_name=product.name, eligible=eligible, reasons=reasons, missing=missing, failed=failing
    )


def _test(rule: Rule, limits: list[Any], told: FactValue | None, catalog: Catalog) -> tuple[str, dict[str, str]]:
    """The rule's outcome (pass, fail, unknown, or none: no minimum) and what its sentence fills in."""
    fact = catalog.pack.profile[rule.fact]

    def words(value: FactValue) -> str:
        return fact_words(catalog, rule.fact, value)

    values = {"fact": fact.label or rule.fact.replace("_", " "), "told": "" if told is None else words(told)}
    if rule.test == "in":
        accepted = limits[0]
        values["allowed"] = ", ".join(words(value) for value in accepted)
        return ("unknown" if told is None else "pass" if told in accepted else "fail"), values
    if rule.test == "at_least":
        low, high = limits[0], None
        values["limit"] = words(low)
        if low == 0:
            return "none", values
    else:
        low, high = limits
        values |= {"low": words(low), "high": words(high)}
    if told is None:
        return "unknown", values
    within = int(told) >= low and (high is None or int(told) <= high)
    return ("pass" if within else "fail"), values
