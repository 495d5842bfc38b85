"""The Eligibility Analyzer's tool: a product's rules against what the customer told us.

A verdict is True only when every rule we can check passes, False when any rule fails, and
None when nothing fails but a fact we need (employment, income) is still unknown.
"""

from __future__ import annotations

from pydantic import BaseModel

from assistant.comparison import taka
from assistant.domain import Product
from assistant.state import CustomerProfile

EMPLOYMENT_LABELS = {
    "salaried": "salaried employees",
    "business_owner": "business owners",
    "self_employed": "self-employed professionals",
    "student": "students",
    "retired": "retired customers",
}


class Verdict(BaseModel):
    product_id: str
    product_name: str
    eligible: bool | None
    reasons: list[str]
    missing: list[str]


def check(product: Product, profile: CustomerProfile) -> Verdict:
    rule = product.eligibility
    reasons: list[str] = []
    failed = False
    missing: list[str] = []
    accepted = ", ".join(EMPLOYMENT_LABELS[e] for e in rule.employment)

    if profile.employment is None:
        missing.append("employment")
        reasons.append(f"Open to {accepted}.")
    elif profile.employment in rule.employment:
        reasons.append(f"Your employment ({EMPLOYMENT_LABELS[profile.employment]}) is accepted.")
    else:
        failed = True
        reasons.append(f"Not offered to {EMPLOYMENT_LABELS[profile.employment]}; open to {accepted}.")

    minimum = taka(rule.min_monthly_income)
    if rule.min_monthly_income == 0:
        reasons.append("No minimum income is required.")
    elif profile.monthly_income is None:
        missing.append("monthly_income")
        reasons.append(f"Needs a monthly income of at least {minimum}.")
    elif profile.monthly_income >= rule.min_monthly_income:
        reasons.append(f"Your monthly income {taka(profile.monthly_income)} meets the {minimum} minimum.")
    else:
        failed = True
        reasons.append(f"Needs a monthly income of at least {minimum}; you told us {taka(profile.monthly_income)}.")

    ages = f"{rule.min_age}–{rule.max_age}"
    if profile.age is None:
        reasons.append(f"Applicants must be aged {ages} (checked against your NID when you apply).")
    elif rule.min_age <= profile.age <= rule.max_age:
        reasons.append(f"Your age ({profile.age}) is within {ages}.")
    else:
        failed = True
        reasons.append(f"Applicants must be aged {ages}; you told us {profile.age}.")

    eligible = False if failed else (None if missing else True)
    return Verdict(
        product_id=product.id, product_name=product.name, eligible=eligible, reasons=reasons, missing=missing
    )
