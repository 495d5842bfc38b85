"""The deterministic tools both modes share: comparison and eligibility against the real catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.comparator import comparison_table
from agents.retriever import describe_filters, unapplied
from assistant.pack.loading import load_catalog
from assistant.tools.comparison import compare
from assistant.tools.eligibility import check
from assistant.tools.filters import FilterRules

DATA = Path(__file__).resolve().parent.parent / "data"


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


# ---------------------------------------------------------------- filters: both bounds, booleans, what items mention


@pytest.fixture(scope="module")
def packs():
    loaded: dict[str, object] = {}

    def pack(name):
        if name not in loaded:
            loaded[name] = load_catalog(DATA / name)
        return loaded[name]

    return pack


@pytest.mark.parametrize(
    "domain, filters, where, holds",
    [
        ("cars", {"min_price": 2_000_000}, {"price": {"$gte": 2_000_000}}, lambda p: p.price >= 2_000_000),
        (
            "cars",
            {"min_price": 1_000_000, "max_price": 1_500_000},
            {"$and": [{"price": {"$gte": 1_000_000}}, {"price": {"$lte": 1_500_000}}]},
            lambda p: 1_000_000 <= p.price <= 1_500_000,
        ),
        ("cars", {"max_mileage_kmpl": 15}, {"mileage_kmpl": {"$lte": 15}}, lambda p: (p.mileage_kmpl or 99) <= 15),
        ("store", {"max_ram_gb": 8}, {"ram_gb": {"$lte": 8}}, lambda p: (p.value("ram_gb") or 99) <= 8),
        ("restaurants", {"veg": "true"}, {"veg_only": True}, lambda p: p.veg_only is True),
        ("restaurants", {"veg": "false"}, {"veg_only": False}, lambda p: p.veg_only is False),
        ("restaurants", {"locality": "Bandra"}, {"locality": {"$contains": "Bandra"}}, lambda p: p.locality.startswith("Bandra")),
        (
            "bank",
            {"feature": "contactless payments"},
            {"benefits": {"$contains": "contactless payments"}},
            lambda p: any("contactless" in b.lower() for b in p.benefits),
        ),
        (
            "store",
            {"feature": "backlit keys"},
            {"specs": {"$contains": "backlit keys"}},
            lambda p: "backlit" in p.specs,
        ),
    ],
)
def test_a_filter_passes_the_items_it_names_in_python_and_as_chromadb_filters(packs, domain, filters, where, holds):
    catalog = packs(domain)
    rules = FilterRules(catalog)
    passing = [p for p in catalog.products if rules.matches(p, filters)]
    assert passing and passing == [p for p in catalog.products if holds(p)]
    assert rules.where(filters) == where
    for name, wanted in filters.items():  # what chromadb stores to filter on holds what the rule passes
        attribute = catalog.pack.filters[name].attribute
        stored = [rules.metadata(p).get(attribute) for p in passing]
        assert all(wanted in value for value in stored) if isinstance(stored[0], list) else all(v is not None for v in stored)


SAID = [
    ("cars", {"min_price": 2_000_000}, "cars with ex-showroom price from ₹20 lakh"),
    (
        "cars",
        {"body_type": "suv", "min_price": 1_000_000, "max_price": 1_500_000},
        "SUVs with ex-showroom price from ₹10 lakh to ₹15 lakh",
    ),
    ("cars", {"max_mileage_kmpl": 15, "min_engine_cc": 1500}, "cars with mileage up to 15 km/l with an engine of 1500 cc or more"),
    ("store", {"category": "laptop", "max_ram_gb": 8}, "laptops with RAM up to 8 GB"),
    (
        "restaurants",
        {"city": "bengaluru", "locality": "Indiranagar", "veg": "true"},
        "pure vegetarian restaurants in Bengaluru in Indiranagar",
    ),
    ("bank", {"feature": "contactless payments"}, "cards with contactless payments"),
    ("homologation", {"min_price": 200}, "reformas con precio desde 200 €"),
]


@pytest.mark.parametrize("domain, filters, said", SAID, ids=[said for _, _, said in SAID])
def test_every_filter_is_said_back_in_the_packs_words(packs, domain, filters, said):
    assert describe_filters(filters, packs(domain)) == said


def test_a_bound_no_filter_narrows_is_said_back(packs):
    assert unapplied(["battery above 5000 mah"], packs("store")) == (
        "I can't search by “battery above 5000 mah”, so the list below doesn't take it into account."
    )
    assert unapplied(["potencia de más de 100 cv"], packs("homologation")).startswith(
        "No puedo buscar por “potencia de más de 100 cv”"
    )


def test_either_bound_of_an_attribute_says_what_its_filter_asks(packs):
    """ "Above 20 lakh" says a budget as much as "under 15 lakh": a required or clarifying filter is answered by either."""
    pack = packs("cars").pack
    assert pack.said("max_price", {"min_price": 2_000_000}) and pack.said("max_price", {"max_price": 1_500_000})
    assert not pack.said("max_price", {"min_mileage": 15, "body_type": "suv"})
    assert (pack.bound("price", "min"), pack.bound("seating", "max"), pack.bound("model", "min")) == (
        "min_price",
        "max_seating",
        None,
    )


def test_a_filter_to_drop_is_named_by_what_it_is_of(packs):
    from agents.retriever import no_match

    said = no_match({"category": "gaming_mouse", "min_ram": 16}, "min_ram", packs("store"))
    assert said.endswith("Without the RAM preference there are options; tell me what to change.")
    assert "max_ram" not in no_match({"max_ram_gb": 4}, "max_ram_gb", packs("store"))
