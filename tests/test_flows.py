"""The bank assistant's reference conversations, end to end through POST /chat: flows 1-6 (retrieve,
compare, check eligibility, both at once, change a filter, all in turn then the fees) and scenarios A-E
(employment read from the text, best then eligible with no new search, three agents in one turn, a
filter change that keeps the other filters)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from conftest import assert_products_match

from assistant.tools.comparison import compare, rank_key
from assistant.tools.eligibility import check


def taka(amount: int) -> str:
    return f"৳{amount:,}"


PLATINUM_BUSINESS = {
    "product_type": "credit_card",
    "banking_type": "conventional",
    "tier": "platinum",
    "use_case": "business",
}


def test_flow_1_initial_retrieval_caches_matching_products(conversation, catalog, searches):
    chat = conversation("business_owner")
    data = chat.say("I want a platinum conventional credit card for business")

    assert data["intent"] == {"type": "product_info", "filters": PLATINUM_BUSINESS}
    assert data["agents"] == ["retriever", "formatter"]
    assert len(searches) == 1
    assert len(data["products"]) >= 2
    assert_products_match(data, catalog)
    assert data["state"]["products"] == [p["id"] for p in data["products"]]
    assert data["state"]["comparison_done"] is False and data["state"]["eligibility_done"] is False
    for product in data["products"]:
        assert product["name"] in data["reply"]
        assert taka(product["annual_fee"]) in data["reply"]


def test_flow_2_comparison_reuses_cached_products(conversation, catalog, searches):
    chat = conversation("business_owner")
    first = chat.say("I want a platinum conventional credit card for business")
    data = chat.say("Which is best for me? Compare them")

    assert data["intent"]["type"] == "comparison"
    assert data["agents"] == ["comparator", "formatter"]
    assert len(searches) == 1, "the comparison must not retrieve again"
    assert data["state"]["products"] == first["state"]["products"]
    assert data["state"]["comparison_done"] is True
    cached = [catalog.product(pid) for pid in first["state"]["products"]]
    assert data["comparison"] == compare(cached, catalog).model_dump()
    fee_row = next(r for r in data["comparison"]["rows"] if r["key"] == "annual_fee")
    cheapest = min(p.annual_fee for p in cached)
    assert fee_row["best"] == [p.id for p in cached if p.annual_fee == cheapest]
    assert all(taka(p.annual_fee) in data["reply"] for p in cached)


def test_flow_3_eligibility_for_one_cached_product(conversation, catalog, searches):
    chat = conversation("business_owner")
    first = chat.say("I want a platinum conventional credit card for business")
    chat.say("Compare them")
    data = chat.say("Am I eligible for the Mastercard one?")

    mastercards = [pid for pid in first["state"]["products"] if catalog.product(pid).network == "mastercard"]
    assert mastercards, "the catalog must hold a conventional platinum Mastercard for business"
    assert data["intent"]["type"] == "eligibility_check"
    assert data["agents"] == ["eligibility", "formatter"]
    assert len(searches) == 1
    assert [v["product_id"] for v in data["eligibility"]] == mastercards
    assert data["state"] == {
        **first["state"],
        "comparison_done": True,
        "eligibility_done": True,
        "version": 3,
        "active_goal": data["state"]["active_goal"],
    }
    assert data["state"]["active_goal"]["status"] == "blocked"  # waiting for the income
    # Employment is known (business owner), income is not: the verdict waits and we ask for it.
    verdict = data["eligibility"][0]
    assert verdict["eligible"] is None and verdict["missing"] == ["monthly_income"]
    assert "income" in data["ask_user"]

    answer = chat.say("I earn 1.5 lakh a month")
    assert answer["agents"] == ["eligibility", "formatter"]
    assert [v["product_id"] for v in answer["eligibility"]] == mastercards
    expected = check(catalog.product(mastercards[0]), {"employment": "business_owner", "monthly_income": 150_000}, catalog)
    assert answer["eligibility"][0]["eligible"] is expected.eligible is not None
    assert answer["ask_user"] is None
    assert len(searches) == 1


def test_flow_4_comparison_and_eligibility_together(conversation, catalog, searches):
    chat = conversation("business_owner")
    first = chat.say("I want a platinum conventional credit card for business")
    data = chat.say("Compare them and check eligibility")

    assert data["intent"]["type"] == "comparison"
    assert data["agents"] == ["comparator", "eligibility", "formatter"]
    assert len(searches) == 1
    assert data["comparison"]["products"] == first["state"]["products"]
    assert [v["product_id"] for v in data["eligibility"]] == first["state"]["products"]
    assert data["state"]["comparison_done"] and data["state"]["eligibility_done"]


def test_flow_5_filter_change_resets_cache_and_retrieves_again(conversation, catalog, searches):
    chat = conversation("business_owner")
    chat.say("I want a platinum conventional credit card for business")
    chat.say("Compare them and check eligibility")
    data = chat.say("Actually show me Islamic options instead")

    assert data["intent"] == {"type": "product_info", "filters": {"banking_type": "islami"}}
    assert data["agents"] == ["retriever", "formatter"]
    assert len(searches) == 2
    assert data["state"]["filters"] == {**PLATINUM_BUSINESS, "banking_type": "islami"}
    assert data["state"]["comparison_done"] is False and data["state"]["eligibility_done"] is False
    assert data["products"] and all(p["banking_type"] == "islami" for p in data["products"])
    assert_products_match(data, catalog)
    assert data["state"]["products"] == [p["id"] for p in data["products"]]


def test_flow_6_retrieve_compare_eligibility_then_fees(conversation, catalog, searches):
    chat = conversation("business_owner")
    first = chat.say("I need a platinum credit card")
    assert first["agents"] == ["retriever", "formatter"]
    assert first["intent"]["filters"] == {"tier": "platinum", "product_type": "credit_card"}
    assert_products_match(first, catalog)

    assert chat.say("Compare them")["agents"] == ["comparator", "formatter"]
    assert chat.say("Am I eligible?")["agents"] == ["eligibility", "formatter"]
    fees = chat.say("What are the fees?")

    assert fees["intent"]["type"] == "feature_query"
    assert fees["agents"] == ["formatter"]
    assert len(searches) == 1
    assert [p["id"] for p in fees["products"]] == first["state"]["products"]
    for pid in first["state"]["products"]:
        product = catalog.product(pid)
        assert taka(product.annual_fee) in fees["reply"]
        assert taka(product.card_replacement_fee) in fees["reply"]


def test_scenario_a_first_query_reads_employment_from_text(conversation, catalog, searches, pipeline):
    chat = conversation()
    data = chat.say("I want platinum credit card as a business owner")
    assert data["agents"] == ["retriever", "formatter"]
    assert data["state"]["products"]
    assert_products_match(data, catalog)
    state = pipeline.store.load(chat.session_id)
    assert state.profile["employment"] == "business_owner"


def test_scenario_b_c_best_then_eligible_without_retrieval(conversation, catalog, searches):
    chat = conversation()
    chat.say("I want platinum credit card as a business owner")
    best = chat.say("Which is best?")
    assert best["agents"] == ["comparator", "formatter"]
    eligible = chat.say("Am I eligible?")
    assert eligible["agents"] == ["eligibility", "formatter"]
    assert len(searches) == 1
    for verdict in eligible["eligibility"]:
        product = catalog.product(verdict["product_id"])
        if "business_owner" not in product.eligible_employment:
            assert verdict["eligible"] is False
        else:
            assert verdict["eligible"] is None and verdict["missing"] == ["monthly_income"]


def test_scenario_d_three_agents_in_one_turn(conversation, searches):
    chat = conversation("salaried")
    chat.say("show me gold credit cards")
    data = chat.say("Compare them and check if I'm eligible")
    assert data["agents"] == ["comparator", "eligibility", "formatter"]
    assert len(searches) == 1


def test_scenario_e_filter_change_keeps_other_filters(conversation, catalog, searches):
    chat = conversation()
    before = chat.say("platinum conventional credit card please")
    after = chat.say("platinum islamic credit card")
    assert after["agents"] == ["retriever", "formatter"]
    assert after["state"]["filters"] == {**before["state"]["filters"], "banking_type": "islami"}
    assert set(after["state"]["products"]).isdisjoint(before["state"]["products"])
    assert_products_match(after, catalog)
    assert len(searches) == 2


def test_same_filters_again_is_served_from_cache(conversation, searches):
    chat = conversation()
    first = chat.say("I need a platinum credit card")
    again = chat.say("show me platinum credit cards")
    assert again["agents"] == ["formatter"]
    assert again["state"]["products"] == first["state"]["products"]
    assert len(searches) == 1


def test_vague_request_gets_one_clarifying_question(conversation, catalog, searches):
    chat = conversation()
    data = chat.say("I want a card")
    assert data["agents"] == ["formatter"]
    assert data["ask_user"] and data["choices"] == ["Credit card", "Debit card", "Prepaid card"]
    assert data["products"] == [] and len(searches) == 0

    answer = chat.say("Credit card")
    assert answer["agents"] == ["retriever", "formatter"]
    assert answer["ask_user"] is None
    assert answer["state"]["filters"] == {"product_type": "credit_card"}
    assert_products_match(answer, catalog)


def test_faq_is_answered_from_the_faq_only(conversation, catalog, searches):
    chat = conversation()
    data = chat.say("I lost my card, what should I do?")
    assert data["intent"]["type"] == "faq"
    assert data["agents"] == ["retriever", "formatter"]
    answers = [e.answer for e in catalog.faq]
    assert any(answer in data["reply"] for answer in answers)
    assert data["products"] == [] and len(searches) == 0


def test_unanswerable_question_points_to_support(conversation, catalog):
    data = conversation().say("Can you book me a flight to Mars on a rocket?")
    assert data["intent"]["type"] in ("faq", "out_of_scope", "unknown")
    assert not any(e.answer in data["reply"] for e in catalog.faq)
    assert catalog.business.support_contact in data["reply"]


def test_greeting_runs_only_the_formatter(conversation, catalog):
    data = conversation().say("Assalamualaikum!")
    assert data["intent"]["type"] == "greeting"
    assert data["agents"] == ["formatter"]
    assert catalog.name in data["reply"]


def test_hinglish_and_banglish_requests(conversation, catalog):
    hinglish = conversation().say("mujhe platinum card chahiye")
    assert hinglish["intent"]["type"] == "product_info"
    assert hinglish["intent"]["filters"] == {"tier": "platinum"}

    banglish = conversation().say("amar ekta islami credit card lagbe travel er jonno")
    assert banglish["intent"] == {
        "type": "product_info",
        "filters": {"product_type": "credit_card", "banking_type": "islami", "use_case": "travel"},
    }
    assert banglish["agents"] == ["retriever", "formatter"]
    assert banglish["products"]
    assert_products_match(banglish, catalog)


def test_profile_answers_are_accepted_in_any_order(conversation, catalog, searches):
    chat = conversation()
    chat.say("show me visa platinum credit cards")
    asked = chat.say("am I eligible?")
    assert asked["ask_user"] and "employment" in asked["ask_user"]

    income_first = chat.say("1.5 lakh")
    assert income_first["agents"] == ["eligibility", "formatter"]
    assert "employment" in income_first["ask_user"], "income is known now; employment is still missing"

    done = chat.say("I'm salaried")
    profile = {"employment": "salaried", "monthly_income": 150_000}
    assert [v["eligible"] for v in done["eligibility"]] == [
        check(catalog.product(pid), profile, catalog).eligible for pid in done["state"]["products"]
    ]
    assert all(v["eligible"] is not None for v in done["eligibility"])
    assert done["ask_user"] is None
    assert len(searches) == 1


def test_a_single_match_reads_as_one_card(conversation, catalog):
    data = conversation().say("I want a card with no annual fee")
    free = [p.id for p in catalog.products if p.annual_fee == 0]
    assert [p["id"] for p in data["products"]] == free
    assert len(free) == 1, "data/bank has exactly one card without an annual fee"
    assert data["reply"].startswith("Here is 1 card with no annual fee that matches:")
    assert "compare them" not in data["reply"]


def test_thanks_gets_a_closing_reply_not_the_welcome(conversation):
    chat = conversation()
    assert "What are you looking for?" in chat.say("hi")["reply"]
    closing = chat.say("thanks!")
    assert closing["agents"] == ["formatter"]
    assert "welcome" in closing["reply"].lower() and "What are you looking for?" not in closing["reply"]


def test_a_student_asking_which_card_they_can_get_is_shown_those_open_to_them(conversation, catalog, searches):
    chat = conversation()
    asked = chat.say("I am a student, which card can I get?")
    assert asked["intent"]["type"] == "eligibility_check" and asked["agents"] == ["eligibility", "formatter"]
    assert not searches, "every card is checked against the rules; nothing is searched by similarity"
    profile = {"employment": "student"}
    open_to_them = sorted((p for p in catalog.products if check(p, profile, catalog).eligible), key=lambda p: rank_key(p, catalog))
    assert [p["id"] for p in asked["products"]] == [p.id for p in open_to_them[:5]]
    assert "Noted: employment students" in asked["reply"] and "are open to you" in asked["reply"]

    answered = chat.say("prepaid")
    assert answered["state"]["filters"] == {"product_type": "prepaid_card"}
    assert answered["products"] and all(catalog.product(p["id"]).product_type == "prepaid_card" for p in answered["products"])


def test_which_is_cheapest_ranks_the_cards_on_screen_and_anything_cheaper_the_catalog(conversation, catalog, searches):
    chat = conversation()
    shown = chat.say("platinum credit card")["products"]
    data = chat.say("which is the cheapest?")
    ranked = sorted((catalog.product(p["id"]) for p in shown), key=lambda p: (p.annual_fee, p.name))
    assert [p["id"] for p in data["products"]] == [p.id for p in ranked]
    assert data["reply"].startswith(f"**{ranked[0].name}** has the lowest annual fee: ৳{ranked[0].annual_fee:,}")
    assert data["agents"] == ["comparator", "formatter"] and len(searches) == 1
    beyond = chat.say("anything cheaper?")
    matching = sorted(
        (p for p in catalog.products if p.tier == "platinum" and p.product_type == "credit_card"),
        key=lambda p: (p.annual_fee, p.name),
    )
    assert len(matching) > 5
    assert [p["id"] for p in beyond["products"]] == [p.id for p in matching[:5]]
    assert "lowest annual fee first" in beyond["reply"] and beyond["agents"] == ["retriever", "formatter"]


@pytest.mark.parametrize(
    "domain, search, follow_up",
    [
        ("bank", "platinum credit cards", "anything cheaper?"),
        ("store", "gaming mouse under 3000", "any cheaper ones?"),
        ("restaurants", "biryani places in mumbai", "something less expensive?"),
        ("cars", "diesel suv", "isse sasta kuch hai?"),
    ],
)
def test_asking_for_something_cheaper_ranks_the_matches_cheapest_first(tmp_path, domain, search, follow_up):
    from conftest import Conversation, app_for

    app = app_for(tmp_path, domain)
    catalog = app.extensions["pipeline"].catalog
    chat = Conversation(app.test_client())
    first = chat.say(search)
    data = chat.say(follow_up)
    assert data["intent"]["type"] == "product_info" and data["state"]["filters"] == first["state"]["filters"]
    shown = [catalog.product(p["id"]) for p in data["products"]]
    prices = [rank_key(p, catalog) for p in shown]
    assert len(shown) > 1 and prices == sorted(prices)
    assert min(prices) <= min(rank_key(catalog.product(p["id"]), catalog) for p in first["products"])


def test_a_feature_question_instead_of_the_clarifying_answer_is_answered_for_those_cards(conversation, catalog):
    chat = conversation()
    assert chat.say("gold card")["ask_user"]
    data = chat.say("what is the interest rate?")
    assert data["intent"]["type"] == "feature_query" and data["agents"] == ["retriever", "formatter"]
    assert data["products"] and all(catalog.product(p["id"]).tier == "gold" for p in data["products"])
    first = catalog.product(data["products"][0]["id"])
    assert f"{first.rate:g}% a year" in data["reply"]


@pytest.mark.parametrize("told", ["amar salary 2 lakh 50 hajar", "I'm a business owner", "I am 25 years old"])
def test_a_profile_fact_told_unasked_checks_the_cards_at_hand(conversation, told):
    """Nobody asked, and the router is unsure of the words: a fact eligibility needs is for eligibility."""
    chat = conversation()
    chat.say("platinum credit card")
    data = chat.say(told)
    assert data["intent"]["type"] == "eligibility_check" and "eligibility" in data["agents"]


def test_a_booking_takes_a_name_said_with_its_slot_and_the_customers_own_number_never_a_friends(conversation, pipeline):
    zone = ZoneInfo(pipeline.catalog.business.timezone)
    pipeline.desk.clock = lambda: dt.datetime(2026, 11, 23, 9, 30, tzinfo=zone)  # a Monday: tomorrow's call-backs are open
    chat = conversation("business_owner")
    chat.say("I want a platinum conventional credit card for business")
    chat.say("I'd like to apply for the Mastercard one")
    chat.say("a call-back tomorrow at 5 pm please")
    named = chat.say("name: Rahim Uddin")
    assert "for Rahim Uddin" in named["reply"] and "mobile number" in (named["ask_user"] or "")
    friend = chat.say("my friend's number is 01812345678")
    assert "sent a 6-digit code" not in friend["reply"] and friend["state"]["active_goal"]["missing"] == ["phone"]
    own = chat.say("mine is 01712345678, my wife's is 01912345678")
    assert "+880*******678" in own["reply"] and "type the code" in (own["ask_user"] or "")
