"""Understanding: the routed intent, and the rules' filters, typos, amounts, Hinglish and Banglish."""

from __future__ import annotations

import pytest

from assistant.language import load_languages
from assistant.understanding.reader import Money, Understanding, normalise


@pytest.fixture(scope="module")
def understand(request):
    from pathlib import Path

    from assistant.pack.model import load_catalog
    from assistant.tools.embeddings import default_embedder
    from assistant.understanding.router import Router

    catalog = load_catalog(Path(__file__).resolve().parent.parent / "data" / "bank")
    understanding = Understanding(catalog, Router.for_pack(catalog, default_embedder()))
    return lambda text, has_products=False, pending=None: understanding.detect(text, has_products, pending)


@pytest.mark.parametrize(
    "text,kind,filters",
    [
        (
            "I want a platinum conventional credit card for business",
            "product_info",
            {"tier": "platinum", "banking_type": "conventional", "product_type": "credit_card", "use_case": "business"},
        ),
        ("i want a platnum credit crad", "product_info", {"tier": "platinum", "product_type": "credit_card"}),
        ("show me islamik cards for travelling", "product_info", {"banking_type": "islami", "use_case": "travel"}),
        ("Any Shariah compliant mastercard?", "product_info", {"banking_type": "islami", "network": "mastercard"}),
        ("american express gold", "product_info", {"network": "amex", "tier": "gold"}),
        ("mujhe platinum card chahiye", "product_info", {"tier": "platinum"}),
        ("amar ekta credit card lagbe", "product_info", {"product_type": "credit_card"}),
        ("credit card with annual fee under 5k", "product_info", {"product_type": "credit_card", "max_annual_fee": 5000}),
        ("credit card, annual fee under 500", "product_info", {"product_type": "credit_card", "max_annual_fee": 500}),
        ("non-islamic credit card", "product_info", {"banking_type": "conventional", "product_type": "credit_card"}),
        ("islamic or conventional gold", "product_info", {"banking_type": ["islami", "conventional"], "tier": "gold"}),
        ("a card with no annual fee", "product_info", {"max_annual_fee": 0}),
        ("lifetime free credit card", "product_info", {"max_annual_fee": 0, "product_type": "credit_card"}),
        ("Compare them", "comparison", {}),
        ("visa vs mastercard", "comparison", {"network": ["visa", "mastercard"]}),
        ("Which is best for me?", "comparison", {}),
        ("Am I eligible for the Mastercard one?", "eligibility_check", {"network": "mastercard"}),
        ("can I get this card?", "eligibility_check", {}),
        ("I lost my credit card", "faq", {"product_type": "credit_card"}),
        ("how do I reset my PIN", "faq", {}),
        ("hello", "greeting", {}),
        ("thanks!", "greeting", {}),
        ("purple elephants dance", "unknown", {}),
    ],
)
def test_intent_and_filters(understand, text, kind, filters):
    intent = understand(text)
    assert intent.type == kind
    assert intent.filters == filters


def test_feature_question_needs_products_in_context(understand):
    assert understand("What are the fees?", has_products=True).type == "feature_query"
    assert understand("What are the fees?", has_products=True).feature_topics == ["fees"]
    assert understand("what's the interest rate and lounge access", has_products=True).feature_topics == ["rate", "lounge"]
    assert understand("What are the fees?", has_products=False).type == "faq"


def test_compare_and_eligibility_in_one_message(understand):
    intent = understand("Compare them and check if I'm eligible")
    assert intent.type == "comparison"
    assert intent.wants_comparison and intent.wants_eligibility


@pytest.mark.parametrize(
    "text,amount",
    [
        ("I earn 80k a month", 80_000),
        ("my salary is 1.5 lakh", 150_000),
        ("monthly income ৳50,000", 50_000),
        ("income is Tk 1,20,000 per month", 120_000),
        ("amar beton 75000 taka", 75_000),
        ("mera income 2 lakh hai", 200_000),
        ("my income is ৫০,০০০ taka", 50_000),
        ("I make 45 hajar a month", 45_000),
    ],
)
def test_income_amounts(understand, text, amount):
    assert understand(text).profile.get("monthly_income") == amount


def test_bare_amount_is_income_only_when_we_asked_for_it(understand):
    assert understand("1.5 lakh").profile.get("monthly_income") is None
    answer = understand("1.5 lakh", has_products=True, pending="monthly_income")
    assert answer.profile.get("monthly_income") == 150_000
    assert answer.type == "eligibility_check"


@pytest.mark.parametrize(
    "text,employment",
    [
        ("I'm a business owner", "business_owner"),
        ("ami byabsayi", "business_owner"),
        ("I am a salaried employee", "salaried"),
        ("I'm a freelancer", "self_employed"),
        ("I am a university student", "student"),
        ("retired govt officer", "retired"),
    ],
)
def test_employment(understand, text, employment):
    assert understand(text).profile.get("employment") == employment


def test_age(understand):
    assert understand("I am 34 years old").profile.get("age") == 34
    assert understand("age 61, retired").profile.get("age") == 61
    assert understand("I'm 25").profile.get("age") == 25
    assert understand("I am 80k income").profile.get("age") is None


def test_amount_parsing_edge_cases():
    languages = load_languages(["bn", "hi"])
    taka, rupees = Money("৳", ["tk", "taka", "bdt"]), Money("₹", ["rs", "inr", "rupees"])

    def first(money: Money, text: str, bare: bool = False) -> int | None:
        return money.first(normalise(languages.amounts(languages.digits(text))), bare=bare)

    assert first(taka, "25 years") is None
    assert first(taka, "৳500") == 500
    assert first(taka, "3 crore") == 30_000_000
    assert first(taka, "BDT 2,500") == 2_500
    assert first(taka, "1500") == 1_500
    assert first(taka, "900") is None and first(taka, "900", bare=True) == 900
    assert first(taka, "৫০ হাজার টাকা") == 50_000
    assert first(rupees, "under ₹15 lakh") == 1_500_000
    assert first(rupees, "Rs. 8,50,000") == 850_000
    assert first(rupees, "dedh lakh rupees") == 150_000


@pytest.mark.parametrize(
    "message,income",
    [
        ("my salary is two lakh fifty thousand, am I eligible?", 250_000),
        ("I earn 1.5 lakh a month, which cards can I get?", 150_000),
        ("amar salary sare tin hajar taka, eligible?", 3_500),
        ("আমার বেতন ৫০ হাজার টাকা, আমি কি যোগ্য?", 50_000),
    ],
)
def test_an_income_said_in_words_is_read_in_every_language_of_the_pack(understand, message, income):
    assert understand(message).profile.get("monthly_income") == income


def test_thanks_is_told_apart_from_hello(understand):
    assert understand("thank you so much").thanks is True
    assert understand("hello").thanks is False
