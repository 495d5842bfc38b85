"""The HTTP contract: answers, the page, and bad input that gets a 4xx and changes nothing."""

from __future__ import annotations

import json
import uuid

import pytest


def test_missing_session_id_starts_a_new_session(client):
    response = client.post("/chat", json={"query": "hello"})
    assert response.status_code == 200
    data = response.get_json()
    assert str(uuid.UUID(data["session_id"])) == data["session_id"]
    assert data["state"]["version"] == 1
    other = client.post("/chat", json={"query": "hello"}).get_json()
    assert other["session_id"] != data["session_id"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_json_body_not_declared_json_is_415_and_changes_nothing(client, pipeline, content_type):
    """JSON posted as text/plain (as the first chat page's fetch() did) is a CORS "simple request",
    which any page can make a visitor's browser send, so it is refused before anything is read.
    multipart/form-data brings files, from this assistant's own pages only: tests/test_attachments.py."""
    sid = str(uuid.uuid4())
    body = json.dumps({"query": "I want platinum credit card", "session_id": sid})
    response = client.post("/chat", data=body, content_type=content_type)
    assert response.status_code == 415
    assert response.get_json() == {
        "error": "unsupported_media_type",
        "message": "Send the body as JSON with Content-Type: application/json.",
    }
    assert pipeline.store.load(sid) is None


@pytest.mark.parametrize("path", ["/chat", "/chat/stream", "/assistant"])
def test_every_json_endpoint_wants_application_json(tmp_path, path):
    from conftest import app_for

    client = app_for(tmp_path, "restaurants").test_client()
    plain = client.post(path, data='{"query": "hi", "user_id": "u1", "instruction": "hi"}', content_type="text/plain")
    assert plain.status_code == 415 and plain.get_json()["error"] == "unsupported_media_type"
    declared = client.post(path, data='{"query": "hi"}', content_type="application/json; charset=utf-8")
    assert declared.status_code != 415


def test_a_browser_may_still_ask_to_send_json_from_an_allowed_origin(client):
    preflight = client.options(
        "/chat",
        headers={
            "Origin": "http://localhost:5000",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == "http://localhost:5000"
    assert "content-type" in preflight.headers["Access-Control-Allow-Headers"].lower()


def test_uppercase_session_id_is_the_same_session(client):
    sid = uuid.uuid4()
    client.post("/chat", json={"query": "hello", "session_id": str(sid).upper()})
    data = client.post("/chat", json={"query": "hello", "session_id": str(sid)}).get_json()
    assert data["session_id"] == str(sid) and data["state"]["version"] == 2


def test_response_has_every_contract_field(client):
    data = client.post("/chat", json={"query": "I need a platinum credit card"}).get_json()
    assert set(data) >= {"session_id", "reply", "intent", "agents", "products", "comparison", "eligibility", "ask_user", "state"}
    assert set(data["state"]) == {
        "products",
        "comparison_done",
        "eligibility_done",
        "filters",
        "version",
        "active_goal",
        "goal_stack",
    }
    assert {"id", "name", "annual_fee", "banking_type", "network", "tier", "display"} <= set(data["products"][0])


LONG = "x" * 1001
BAD_BODIES = [
    ("missing query", {"session_id": str(uuid.uuid4())}, "query"),
    ("empty query", {"query": ""}, "query"),
    ("blank query", {"query": "   \n "}, "query"),
    ("query too long", {"query": LONG}, "query"),
    ("query not a string", {"query": 42}, "query"),
    ("query a list", {"query": ["hi"]}, "query"),
    ("session id not a uuid", {"query": "hi", "session_id": "abc"}, "session_id"),
    ("session id a number", {"query": "hi", "session_id": 12345}, "session_id"),
    ("unknown employment", {"query": "hi", "user_employment": "astronaut"}, "user_employment"),
    ("unknown fact", {"query": "hi", "facts": {"shoe_size": "large"}}, "facts"),
    ("unknown fact value", {"query": "hi", "facts": {"employment": "astronaut"}}, "facts"),
    ("facts not an object", {"query": "hi", "facts": ["employment"]}, "facts"),
    ("unknown mode", {"query": "hi", "mode": "turbo"}, "mode"),
    ("bad customer id", {"query": "hi", "customer_id": "../../etc/passwd"}, "customer_id"),
    ("unknown field", {"query": "hi", "sesion_id": str(uuid.uuid4())}, "sesion_id"),
]


@pytest.mark.parametrize("name,body,field", BAD_BODIES, ids=[b[0] for b in BAD_BODIES])
def test_bad_input_is_a_clear_400_and_changes_nothing(client, pipeline, name, body, field):
    sid = str(uuid.uuid4())
    client.post("/chat", json={"query": "I need a platinum credit card", "session_id": sid})
    before = pipeline.store.load(sid)

    response = client.post("/chat", json={**body, "session_id": body.get("session_id", sid)})

    assert response.status_code == 400
    error = response.get_json()
    assert error["error"] == "invalid_request"
    assert field in error["message"]
    assert pipeline.store.load(sid) == before


@pytest.mark.parametrize("raw", ["not json", '{"query": ', "[1, 2]", '"hello"', "null", ""])
def test_non_object_json_is_rejected(client, raw):
    response = client.post("/chat", data=raw, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["error"] == "invalid_json"


def test_oversized_body_is_413(client):
    response = client.post("/chat", json={"query": "a" * 40_000})
    assert response.status_code == 413
    assert response.get_json()["error"] == "request_entity_too_large"


def test_unknown_route_and_wrong_method_are_json(client):
    missing = client.get("/nope")
    assert missing.status_code == 404 and missing.get_json()["error"] == "not_found"
    wrong = client.get("/chat")
    assert wrong.status_code == 405 and wrong.get_json()["error"] == "method_not_allowed"


def test_unexpected_error_is_a_json_500_without_internals(app, client, pipeline, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(pipeline.index, "search_products", broken)
    response = client.post("/chat", json={"query": "I need a platinum credit card"})
    assert response.status_code == 500
    body = response.get_json()
    assert body == {"error": "internal_error", "message": "Something went wrong on our side."}


def test_health_and_chat_page(client):
    assert client.get("/health").get_json() == {"status": "ok"}
    page = client.get("/")
    assert page.status_code == 200 and b"<html" in page.data.lower()
    assert b"/chat" in client.get("/static/app.js").data


def test_cors_allows_configured_origin_only(client):
    allowed = client.post("/chat", json={"query": "hi"}, headers={"Origin": "http://localhost:5000"})
    assert allowed.headers.get("Access-Control-Allow-Origin") == "http://localhost:5000"
    other = client.post("/chat", json={"query": "hi"}, headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers


@pytest.mark.parametrize("path", ["/chat", "/assistant"])
def test_json_nested_beyond_the_parser_is_a_400(tmp_path, path):
    from conftest import app_for

    client = app_for(tmp_path, "restaurants").test_client()
    deep = '{"query": ' + "[" * 5000 + "]" * 5000 + "}"
    response = client.post(path, data=deep, content_type="application/json")
    assert response.status_code == 400 and response.get_json()["error"] == "invalid_json"


@pytest.mark.parametrize("domain", ["bank", "cars", "store", "restaurants"])
@pytest.mark.parametrize("query", ["cards under " + "9" * 309, "9" * 40 + " seater", "budget " + "9" * 20])
def test_a_number_too_large_to_mean_anything_is_no_amount(tmp_path, domain, query):
    from conftest import app_for

    client = app_for(tmp_path, domain).test_client()
    response = client.post("/chat", json={"query": query})
    assert response.status_code == 200, response.get_json()
    assert all(value != float("inf") for value in response.get_json()["state"]["filters"].values())


@pytest.mark.parametrize(
    "session_id",
    [str(uuid.UUID(int=0)), str(uuid.uuid1()), "12345678-1234-1234-1234-123456789abc", str(uuid.uuid5(uuid.NAMESPACE_DNS, "a"))],
)
def test_a_session_id_that_is_not_random_is_refused(client, pipeline, session_id):
    response = client.post("/chat", json={"query": "hello", "session_id": session_id})
    assert response.status_code == 400 and "session_id" in response.get_json()["message"]
    assert pipeline.store.load(session_id) is None


def test_about_serves_the_pages_own_words_english_unless_the_pack_words_them(client, tmp_path):
    from conftest import app_for

    from assistant.pack.model import Labels

    bank = client.get("/about").get_json()
    assert bank["lang"] == "en" and bank["labels"] == Labels().model_dump()
    assert bank["labels"]["new_conversation"] == "New conversation" and bank["labels"]["send"] == "Send"
    desk = app_for(tmp_path, "homologation").test_client().get("/about").get_json()
    assert desk["lang"] == "es" and desk["labels"].keys() == bank["labels"].keys()
    assert desk["labels"]["new_conversation"] == "Nueva conversación" and desk["labels"]["send"] == "Enviar"
    assert desk["labels"]["error"] == "Lo sentimos, algo ha fallado: {message}"
    english = [word for word in ("How much", "homologate", "lift kit") if word in " ".join(desk["examples"])]
    assert not english, desk["examples"]
