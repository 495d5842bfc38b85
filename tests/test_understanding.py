"""Understanding: the routed intent, and the rules' filters, typos, amounts, Hinglish and Banglish."""

from __future__ import annotations

import pytest

from assistant.understanding.reader import Understanding


@pytest.fixture(scope="module")
def understand(request):
    from pathlib import Path

    from assistant.pack.loading import load_catalog
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


@pytest.mark.parametrize(
    "text, income",
    [
        ("salary: 25 years in the same job", None),  # no money: a bare number under 1,000 with a unit
        ("salary ৳500", 500),
        ("income 3 crore", 30_000_000),
        ("salary BDT 2,500", 2_500),
        ("income 1500", 1_500),
        ("income 900", None),  # a bare number under 1,000 is no amount of money
        ("amar beton ৫০ হাজার টাকা", 50_000),
        ("show me cards with a fee under 1000, I earn 80k", 80_000),  # the fee's amount is the fee's
    ],
)
def test_an_amount_of_money_is_said_with_the_currency_a_scale_or_from_a_thousand(understand, text, income):
    assert understand(text).profile.get("monthly_income") == income


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


# ---------------------------------------------------------------- numbers bound to what they are said of


@pytest.fixture(scope="module")
def read():
    """read(pack, message, ...): the Intent each pack's reader makes of a message; readers built once."""
    from pathlib import Path

    from assistant.pack.loading import load_catalog
    from assistant.tools.embeddings import default_embedder
    from assistant.tools.retrieval import CatalogIndex
    from assistant.understanding.router import Router

    readers: dict[str, Understanding] = {}

    def reading(domain, text, has_products=False, pending=None, awaiting=None):
        if domain not in readers:
            catalog = load_catalog(Path(__file__).resolve().parent.parent / "data" / domain)
            help_centre = CatalogIndex(catalog, default_embedder()).help
            readers[domain] = Understanding(catalog, Router.for_pack(catalog, default_embedder()), help_centre)
        return readers[domain].detect(text, has_products, pending, awaiting)

    return reading


@pytest.mark.parametrize(
    "domain, text, filters",
    [
        # the direction said, of the attribute said, every number attribute either way
        ("cars", "cars above 20 lakhs", {"min_price": 2_000_000}),
        ("cars", "SUVs under 15 lakh", {"body_type": "suv", "max_price": 1_500_000}),
        ("cars", "mileage less than 15", {"max_mileage_kmpl": 15}),
        ("cars", "milage less than 15", {"max_mileage_kmpl": 15}),  # a typo of the attribute's word
        ("cars", "a car with a mileage of at least 18 kmpl", {"min_mileage": 18}),
        ("cars", "engine above 1500cc", {"min_engine_cc": 1500}),
        ("cars", "a hatchback with an engine below 1200 cc", {"body_type": "hatchback", "max_engine_cc": 1200}),
        ("cars", "at most 5 seats", {"max_seating": 5}),
        ("cars", "a 7 seater under 20 lakh", {"min_seats": 7, "max_price": 2_000_000}),
        ("cars", "price between 10 and 15 lakh", {"min_price": 1_000_000, "max_price": 1_500_000}),
        ("cars", "diesel SUV 10-15 lakh", {"fuel": "diesel", "body_type": "suv", "min_price": 1_000_000, "max_price": 1_500_000}),
        ("cars", "a 4 to 5 seater", {"min_seats": 4, "max_seating": 5}),  # a range is of what its end is said of
        ("cars", "electric SUVs with a range above 400 km", {"fuel": "electric", "body_type": "suv", "min_range": 400}),
        ("cars", "cars under 15", {}),  # nothing costs anywhere near ₹15: no price at all
        ("bank", "my number is 01712-345678", {}),  # a phone number is no range of fees
        # the nearest words say what each number is of; a word before a bound is that bound's
        ("cars", "price above 20 lakh and mileage over 15", {"min_price": 2_000_000, "min_mileage": 15}),
        ("cars", "cars above 20 lakhs with mileage over 15", {"min_price": 2_000_000, "min_mileage": 15}),
        ("cars", "mileage over 15 and under 12 lakh", {"min_mileage": 15, "max_price": 1_200_000}),
        # Hinglish and Devanagari
        ("cars", "15 kmpl se zyada mileage, 12 lakh tak", {"min_mileage": 15, "max_price": 1_200_000}),
        ("cars", "10 se 15 lakh ke beech ki SUV", {"body_type": "suv", "min_price": 1_000_000, "max_price": 1_500_000}),
        ("cars", "20 लाख से ऊपर की एसयूवी", {"body_type": "suv", "min_price": 2_000_000}),
        ("cars", "इंजन 1500 cc से ज़्यादा", {"min_engine_cc": 1500}),
        # an amount taken back: the one meant
        ("cars", "budget 15 lakh, sorry, 18 lakh", {"max_price": 1_800_000}),
        ("cars", "SUV 15 lakh nahi, 18 lakh tak", {"body_type": "suv", "max_price": 1_800_000}),
        # the store: RAM and price either way, English and Thai
        ("store", "a laptop with at least 16GB RAM under 50k", {"category": "laptop", "min_ram": 16, "max_price": 50_000}),
        ("store", "laptop with 8gb ram or less", {"category": "laptop", "max_ram_gb": 8}),
        ("store", "laptops above 40000", {"category": "laptop", "min_price": 40_000}),
        ("store", "RAM at most 8 and price from 15000", {"max_ram_gb": 8, "min_price": 15_000}),
        ("store", "โน้ตบุ๊คแรม 16GB ขึ้นไป งบไม่เกิน 40000", {"category": "laptop", "min_ram": 16, "max_price": 40_000}),
        ("store", "เมาส์ราคาระหว่าง 1000 ถึง 2000 บาท", {"category": "mouse", "min_price": 1000, "max_price": 2000}),
        # the bank: the fee and the credit limit, English and Banglish
        ("bank", "credit card with annual fee over 5000", {"product_type": "credit_card", "min_annual_fee": 5000}),
        ("bank", "cards with a credit limit above 5 lakh", {"min_credit_limit": 500_000, "product_type": "credit_card"}),
        ("bank", "fee 1000 takar niche", {"max_annual_fee": 1000}),
        ("bank", "limit kompokkhe 3 lakh", {"min_credit_limit": 300_000}),
        ("bank", "a card with a fee of 5k", {}),  # a fee with no bound is no filter
        # the restaurants: the price for two, the rating, and a party's size is no filter
        ("restaurants", "cost for two above 1500 in pune", {"city": "pune", "min_price_for_two": 1500}),
        ("restaurants", "under 800 for two", {"max_price": 800}),
        ("restaurants", "rated above 4.5", {"min_rating": 4.5}),
        ("restaurants", "a table for more than 6 people under 2000", {"max_price": 2000}),
        ("restaurants", "between 7 and 8 pm in Mumbai", {"city": "mumbai"}),
        # Spanish, in the homologation desk
        ("homologation", "reformas de moto por menos de 300 euros", {"category": "motos", "max_price": 300}),
        ("homologation", "algo para coche de más de 200 euros", {"category": "turismos", "min_price": 200}),
    ],
)
def test_a_number_bounds_the_attribute_it_is_said_of_in_the_direction_said(read, domain, text, filters):
    assert read(domain, text).filters == filters


@pytest.mark.parametrize(
    "domain, text, filters, unapplied",
    [
        ("store", "phones with battery above 5000 mAh under 20000", {"category": "phone", "max_price": 20_000},
         ["battery above 5000 mah"]),
        ("store", "a laptop with at least 512GB storage", {"category": "laptop"}, ["at least 512gb"]),
        ("cars", "SUVs with boot space above 400 litres", {"body_type": "suv"}, ["boot space above 400 litres"]),
        ("cars", "SUVs under 15 lakh", {"body_type": "suv", "max_price": 1_500_000}, []),
    ],
)  # fmt: skip
def test_a_bound_no_filter_narrows_is_said_back_never_put_on_another(read, domain, text, filters, unapplied):
    intent = read(domain, text)
    assert intent.type == "product_info" and intent.filters == filters and intent.unapplied == unapplied


def test_a_bare_number_answering_a_budget_takes_the_direction_said(read):
    assert read("store", "1500", pending="clarify_product", awaiting="max_price").filters == {"max_price": 1500}
    assert read("store", "above 20000", pending="clarify_product", awaiting="max_price").filters == {"min_price": 20_000}


@pytest.mark.parametrize(
    "domain, text, filters",
    [
        ("restaurants", "Indiranagar mein koi pure veg restaurant hai?", {"locality": "Indiranagar", "veg": "true"}),
        ("restaurants", "non veg places in Bandra", {"locality": "Bandra", "veg": "false"}),
        ("bank", "show me cards with contactless payment", {"feature": "contactless payments"}),
        ("bank", "contactless credit cards", {"feature": "contactless payments", "product_type": "credit_card"}),
        ("store", "a laptop with a backlit keyboard", {"category": "laptop", "feature": "backlit keys"}),
        ("cars", "SUVs with a sunroof", {"body_type": "suv", "feature": "a sunroof"}),
    ],
)
def test_booleans_places_and_features_asked_with_items_are_filters(read, domain, text, filters):
    intent = read(domain, text)
    assert intent.type == "product_info" and intent.filters == filters


def test_a_question_about_the_feature_itself_is_help(read):
    assert read("bank", "how does contactless work?").type == "faq"


@pytest.mark.parametrize(
    "text, income",
    [
        ("My monthly income is 3,500… no, 3.5 lakh", 350_000),
        ("I earn 80k, sorry, I mean 85k", 85_000),
        ("amar beton 50 hajar na, 60 hajar", 60_000),
        ("আমার বেতন ৫০ হাজার, না মানে ৬০ হাজার টাকা", 60_000),
        ("my salary is above 50k", 50_000),  # the customer's own amount, no fee
    ],
)
def test_a_corrected_amount_keeps_the_one_meant(read, text, income):
    intent = read("bank", text)
    assert intent.profile.get("monthly_income") == income and intent.filters == {}
