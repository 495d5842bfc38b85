"""The bank's catalog is data: it must load, be consistent, and cover what customers ask about."""

from __future__ import annotations

from collections import Counter

from assistant.tools.filters import FilterRules


def test_catalog_size_and_coverage(catalog):
    products = catalog.products
    assert len(products) >= 30
    assert len(catalog.faq) >= 40
    assert Counter(p.product_type for p in products).most_common(1)[0][0] == "credit_card"
    assert {p.banking_type for p in products} == {"conventional", "islami"}
    assert {"visa", "mastercard", "jcb", "amex", "unionpay"} <= {p.network for p in products}
    assert {"classic", "gold", "platinum", "signature", "infinite"} <= {p.tier for p in products}
    assert {"travel", "shopping", "business", "dining", "fuel", "everyday"} <= {use for p in products for use in p.use_cases}


def test_ids_are_unique_and_facts_are_sane(catalog):
    assert len({p.id for p in catalog.products}) == len(catalog.products)
    assert len({f.id for f in catalog.faq}) == len(catalog.faq)
    for p in catalog.products:
        assert p.annual_fee >= 0
        assert p.eligible_employment and p.min_monthly_income >= 0 and p.min_age < p.max_age
        if p.product_type == "credit_card":  # what makes it credit: a rate, a limit, a grace period
            assert p.value("rate") and p.value("interest_free_days") is not None
            assert 0 < p.value("credit_limit_min") <= p.value("credit_limit_max")


def test_every_product_matches_its_own_attributes(catalog):
    for p in catalog.products:
        filters = {"banking_type": p.banking_type, "network": p.network, "tier": p.tier}
        assert FilterRules(catalog).matches(p, filters)


def test_faq_covers_what_card_holders_ask(catalog):
    categories = {f.category.lower() for f in catalog.faq}
    for topic in ("delivery", "lost", "pin", "declin", "limit", "fee", "foreign", "dispute", "statement", "islamic"):
        assert any(topic in c or any(topic in f.question.lower() for f in catalog.faq) for c in categories), topic
    assert all(f.answer.strip() for f in catalog.faq)
