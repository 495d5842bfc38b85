"""The Eligibility Analyzer's tool: a product's rules against what the customer told us.

Which attributes hold the rules comes from the pack (eligibility: employment, min_income,
min_age, max_age); a rule an item does not carry is not checked. A verdict is True only when
every rule we can check passes, False when any rule fails, and None when nothing fails but a
fact we need (employment, income) is still unknown.
"""

from __future__ import annotations

from pydantic import BaseModel

from assistant.dialogue.state import CustomerProfile
from assistant.pack.display import money
from assistant.pack.model import Catalog, Eligibility, Product


class Verdict(BaseModel):
    product_id: str
    product_name: str
    eligible: bool | None
    reasons: list[str]
    missing: list[str]


def check(product: Product, profile: CustomerProfile, catalog: Catalog) -> Verdict:
    rules = catalog.pack.eligibility or Eligibility()  # a pack without rules: nothing to check
    reasons: list[str] = []
    failed = False
    missing: list[str] = []
    labels = catalog.pack.profile["employment"].labels if "employment" in catalog.pack.profile else {}
    said = lambda value: labels.get(value, str(value).replace("_", " "))  # noqa: E731
    cash = lambda amount: money(amount, catalog.business.currency_symbol)  # noqa: E731

    accepted_values = product.value(rules.employment) if rules.employment else None
    if accepted_values:
        accepted = ", ".join(said(e) for e in accepted_values)
        if profile.employment is None:
            missing.append("employment")
            reasons.append(f"Open to {accepted}.")
        elif profile.employment in accepted_values:
            reasons.append(f"Your employment ({said(profile.employment)}) is accepted.")
        else:
            failed = True
            reasons.append(f"Not offered to {said(profile.employment)}; open to {accepted}.")

    minimum_income = product.value(rules.min_income) if rules.min_income else None
    if minimum_income is not None:
        minimum = cash(minimum_income)
        if minimum_income == 0:
            reasons.append("No minimum income is required.")
        elif profile.monthly_income is None:
            missing.append("monthly_income")
            reasons.append(f"Needs a monthly income of at least {minimum}.")
        elif profile.monthly_income >= minimum_income:
            reasons.append(f"Your monthly income {cash(profile.monthly_income)} meets the {minimum} minimum.")
        else:
            failed = True
            reasons.append(f"Needs a monthly income of at least {minimum}; you told us {cash(profile.monthly_income)}.")

    low = product.value(rules.min_age) if rules.min_age else None
    high = product.value(rules.max_age) if rules.max_age else None
    if low is not None and high is not None:
        ages = f"{low}–{high}"
        if profile.age is None:
            reasons.append(f"Applicants must be aged {ages}{rules.age_note}.")
        elif low <= profile.age <= high:
            reasons.append(f"Your age ({profile.age}) is within {ages}.")
        else:
            failed = True
            reasons.append(f"Applicants must be aged {ages}; you told us {profile.age}.")

    eligible = False if failed else (None if missing else True)
    return Verdict(
        product_id=product.id, product_name=product.name, eligible=eligible, reasons=reasons, missing=missing
    )
