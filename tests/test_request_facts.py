"""A chat request's `facts`: the customer facts the pack declares, sent by name; and the bank's
old `user_employment`, still read (as the page fact) for a release and marked deprecated."""

from __future__ import annotations

import json
import uuid

import pytest


def _chat(client, **body):
    return client.post("/chat", json={"query": "show me prepaid cards", **body})


def test_facts_set_the_customer_facts_the_pack_declares(client, pipeline):
    sid = str(uuid.uuid4())
    assert _chat(client, session_id=sid, facts={"employment": "student", "age": 30}).status_code == 200
    assert pipeline.store.load(sid).profile == {"employment": "student", "age": 30}


def test_the_old_field_still_sets_the_page_fact(client, pipeline):
    sid = str(uuid.uuid4())
    assert _chat(client, session_id=sid, user_employment="retired").status_code == 200
    assert pipeline.store.load(sid).profile == {"employment": "retired"}


def test_facts_win_over_the_old_field(client, pipeline):
    sid = str(uuid.uuid4())
    assert _chat(client, session_id=sid, user_employment="retired", facts={"employment": "student"}).status_code == 200
    assert pipeline.store.load(sid).profile["employment"] == "student"


def test_a_form_sends_its_facts_as_json(client, pipeline):
    sid = str(uuid.uuid4())
    form = {"query": "show me prepaid cards", "session_id": sid, "facts": json.dumps({"employment": "salaried"})}
    assert client.post("/chat", data=form, content_type="multipart/form-data").status_code == 200
    assert pipeline.store.load(sid).profile == {"employment": "salaried"}
    form["facts"] = "salaried"
    refused = client.post("/chat", data=form, content_type="multipart/form-data")
    assert refused.status_code == 400 and "facts" in refused.get_json()["message"]


@pytest.mark.parametrize(
    "facts,said",
    [
        ({"employment": "astronaut"}, "employment must be one of"),
        ({"shoe_size": "large"}, "shoe_size is not a fact this business asks"),
        ({"age": 7}, "age must be a whole number"),
        ({"age": "thirty"}, "facts"),
        ({"employment": True}, "facts"),
    ],
)
def test_a_bad_fact_is_a_400_that_changes_nothing(client, pipeline, facts, said):
    sid = str(uuid.uuid4())
    assert _chat(client, session_id=sid, facts={"employment": "salaried"}).status_code == 200
    before = pipeline.store.load(sid)
    refused = _chat(client, session_id=sid, facts=facts)
    assert refused.status_code == 400
    assert refused.get_json()["error"] == "invalid_request" and said in refused.get_json()["message"]
    assert pipeline.store.load(sid) == before


def test_the_document_marks_the_old_field_deprecated_and_lists_the_facts(client):
    document = client.get("/openapi.json").get_json()
    request = document["components"]["schemas"]["ChatRequest"]["properties"]
    assert request["user_employment"]["deprecated"] is True
    assert set(request["facts"]["properties"]) == {"employment", "monthly_income", "age"}
    assert request["facts"]["properties"]["age"] == {"type": "integer", "minimum": 16, "maximum": 100}
    form = document["paths"]["/chat"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert form["properties"]["user_employment"]["deprecated"] is True


def test_the_page_learns_the_name_its_choice_is_sent_under(client):
    assert client.get("/about").get_json()["profile_fact"] == "employment"
