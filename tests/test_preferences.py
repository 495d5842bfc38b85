"""A returning customer's preferences: learned, carried into a new session, overruled, forgotten."""

from __future__ import annotations

import json
import uuid

from conftest import signed_in

from assistant.dialogue.preferences import PreferenceStore


def say(client, session_id, query, customer_id="cust-42", **extra):
    """A message from the signed-in customer `customer_id`: their id comes from their token."""
    response = client.post("/chat", json={"query": query, "session_id": session_id, **extra}, headers=signed_in(customer_id))
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def mine(client, method="get", customer_id="cust-42"):
    return getattr(client, method)(f"/customers/{customer_id}/preferences", headers=signed_in(customer_id))


def test_preferences_carry_into_a_new_session_and_can_be_overruled(client, catalog):
    first = str(uuid.uuid4())
    say(client, first, "show me islamic credit cards for travel")
    say(client, first, "am I eligible? I'm salaried and earn 1.5 lakh a month, keep it short")
    learned = mine(client).get_json()
    assert learned == {
        "filters": {"banking_type": ["islami"], "product_type": ["credit_card"], "use_case": ["travel"]},
        "profile": {"employment": "salaried", "monthly_income": "৳100,000–৳200,000"},
        "style": "short",
    }

    second = str(uuid.uuid4())
    welcome = say(client, second, "I want a platinum credit card")
    assert welcome["reply"].startswith("Welcome back! Still looking at Islamic cards?")
    assert welcome["state"]["filters"]["banking_type"] == "islami"
    assert welcome["products"] and all(catalog.product(p["id"]).banking_type == "islami" for p in welcome["products"])
    assert not say(client, second, "compare them")["reply"].startswith("Welcome back")

    overruled = say(client, second, "actually conventional ones")
    assert overruled["state"]["filters"]["banking_type"] == "conventional"
    assert mine(client).get_json()["filters"]["banking_type"] == ["conventional", "islami"]


def test_forgotten_preferences_are_gone_for_the_next_session(client):
    say(client, str(uuid.uuid4()), "show me islamic credit cards")
    assert mine(client, "delete").status_code == 204
    assert mine(client).get_json()["filters"] == {}
    fresh = say(client, str(uuid.uuid4()), "I want a platinum credit card")
    assert not fresh["reply"].startswith("Welcome back") and "banking_type" not in fresh["state"]["filters"]


def test_customers_do_not_share_preferences_and_anonymous_sessions_learn_nothing(client):
    say(client, str(uuid.uuid4()), "show me islamic credit cards", customer_id="alice")
    other = say(client, str(uuid.uuid4()), "I want a platinum credit card", customer_id="bob")
    assert not other["reply"].startswith("Welcome back")
    client.post("/chat", json={"query": "show me conventional credit cards", "session_id": str(uuid.uuid4())})
    assert mine(client, customer_id="alice").get_json()["filters"]["banking_type"] == ["islami"]


def test_a_bad_customer_id_is_a_400(client):
    assert mine(client, "delete", customer_id="not%20valid!").status_code == 400
    response = client.post("/chat", json={"query": "hi", "customer_id": "x" * 65})
    assert response.status_code == 400 and response.get_json()["error"] == "invalid_request"


def test_preferences_saved_in_the_old_shape_keep_what_the_customer_told(open_db):
    """Saved before customer facts were pack data: employment and the income band carry over."""
    store = PreferenceStore(open_db())
    old = json.dumps({"filters": {"tier": ["gold"]}, "employment": "salaried", "income_band": "৳50,000 to ৳100,000"})
    store._db.write("INSERT INTO preferences VALUES (?, ?)", ("c-old", old))
    kept = store.get("c-old")
    assert kept.profile == {"employment": "salaried", "monthly_income": "৳50,000 to ৳100,000"}
    assert kept.filters == {"tier": ["gold"]}
