"""The deterministic tools both modes share: comparison and eligibility against the real catalog."""

from __future__ import annotations

import pytest

from assistant.pack.texts import comparison_table
from assistant.tools.comparison import compare
from assistant.tools.eligibility import check


@pytest.fixture
def pair(catalog):
    """Two credit cards from the catalog whose annual fees differ."""
    cards = sorted((p for p in catalog.products if p.product_type == "credit_card"), key=lambda p: p.annual_fee)
    return cards[0], cards[-1]


def test_comparison_marks_the_cheaper_fee_and_the_higher_limit(pair, catalog):
    cheap, premium = pair
    result = compare([cheap, premium], catalog)
    rows = {row.key: row for row in result.rows}
    assert rows["annual_fee"].best == [cheap.id]
    assert rows["annual_fee"].values[cheap.id] == f"৳{cheap.annual_fee:,}"
    if cheap.credit_limit_max != premium.credit_limit_max:
        higher = max(pair, key=lambda p: p.credit_limit_max)
        assert rows["credit_limit_max"].best == [higher.id]
    assert result.recommended in {cheap.id, premium.id}
    assert result.wins[result.recommended], "the recommendation must win at least one row"


def test_equal_values_are_not_called_best(catalog):
    product = catalog.products[0]
    result = compare([product, product.model_copy(update={"id": "twin"})], catalog)
    assert all(row.best == [] for row in result.rows)
    assert result.recommended is None


def test_eligible_only_when_every_rule_passes(catalog):
    product = catalog.products[0]
    rule = product
    employment = rule.eligible_employment[0]
    ok = check(product, {"employment": employment, "monthly_income": rule.min_monthly_income}, catalog)
    assert ok.eligible is True and ok.missing == []

    poorer = check(product, {"employment": employment, "monthly_income": rule.min_monthly_income - 1}, catalog)
    assert poorer.eligible is False
    assert any(f"৳{rule.min_monthly_income:,}" in reason for reason in poorer.reasons)

    too_old = check(
        product,
        {"employment": employment, "monthly_income": rule.min_monthly_income, "age": rule.max_age + 1},
        catalog,
    )
    assert too_old.eligible is False


def test_unknown_facts_give_an_open_verdict_and_name_what_is_missing(catalog):
    product = catalog.products[0]
    verdict = check(product, {"employment": product.eligible_employment[0]}, catalog)
    assert verdict.eligible is None
    assert verdict.missing == ["monthly_income"]


def test_a_refused_employment_type_fails_whatever_the_income(catalog):
    all_types = {"salaried", "business_owner", "self_employed", "student", "retired"}
    product = next(p for p in catalog.products if all_types - set(p.eligible_employment))
    refused = sorted(all_types - set(product.eligible_employment))[0]
    verdict = check(product, {"employment": refused, "monthly_income": 10_000_000}, catalog)
    assert verdict.eligible is False


def test_the_summary_says_when_the_pick_only_wins_a_tie_on_fee(catalog):
    ids = ["mastercard-platinum-business", "visa-platinum-business", "jcb-platinum-business"]
    products = [catalog.product(pid) for pid in ids]
    result = compare(products, catalog)
    rows_won = sorted(len(won) for won in result.wins.values())
    text = comparison_table(result, products, catalog)
    pick = catalog.product(result.recommended).name
    assert rows_won[-1] == rows_won[-2], "these three cards tie on rows won in data/bank"
    assert f"**{pick}** ties for the most rows and has the lowest annual fee of those" in text
    tied = [p for p in products if len(result.wins[p.id]) == rows_won[-1]]
    assert result.recommended == min(tied, key=lambda p: p.annual_fee).id
