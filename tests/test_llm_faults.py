"""LLM mode when the model or its server misbehaves: any fault gives the offline reply, a server
without JSON schemas is asked in its JSON mode, calls are capped, and a circuit breaker shared
by every worker skips a failing model for a cool-down. A scripted model stands in for the
provider, and for the JSON mode a loopback server that refuses schemas as llama.cpp's does."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from fake_openai import fake_openai
from scripted_llm import ScriptedLLM, restate_draft

from app import create_app

UNCLEAR = "plastic for the missus pls"  # the rules can't place it: the model is asked to read it


@pytest.fixture
def make_app(tmp_path):
    def make(llm: ScriptedLLM, **settings):
        app = create_app(
            {
                "session_db": tmp_path / "sessions.sqlite3",  # every app here shares it, as workers do
                "llm_model": "openai/test",
                "llm_base_url": "http://127.0.0.1:9/v1",
                **settings,
            }
        )
        app.extensions["pipeline"].crew_mode.llm = llm
        return app.test_client()

    return make


def chat(client, query: str) -> dict:
    response = client.post("/chat", json={"query": query, "session_id": str(uuid.uuid4())})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


@pytest.mark.parametrize("fault", [ConnectionError("Connection refused"), TimeoutError("read timed out"), OSError("unreachable")])
def test_a_model_that_cannot_be_reached_while_reading_gives_the_offline_reply_at_once(make_app, client, fault):
    data = chat(make_app(ScriptedLLM(script=[fault])), UNCLEAR)
    assert data["mode"] == "offline-fallback" and data["llm_calls"] == 1
    assert data["reply"] == chat(client, UNCLEAR)["reply"]


@pytest.mark.parametrize("fault", [KeyError("choices"), RuntimeError("500 Internal Server Error"), ValueError("bad JSON")])
def test_any_error_the_server_answers_with_gives_the_offline_reply(make_app, client, fault):
    data = chat(make_app(ScriptedLLM(default=fault)), UNCLEAR)
    assert data["mode"] == "offline-fallback" and data["reply"] == chat(client, UNCLEAR)["reply"]


def test_a_server_that_refuses_json_schemas_is_asked_for_plain_json_from_then_on(make_app):
    reading = json.dumps({"commands": [{"kind": "search", "filters": {"tier": "gold", "product_type": "credit_card"}}]})
    llm = ScriptedLLM(script=[RuntimeError("500: response_format json_schema is not supported"), reading], default=restate_draft)
    client = make_app(llm)
    data = chat(client, "something shiny but not too fancy, yellow metal maybe")
    assert [call["response_model"] is not None for call in llm.calls[:2]] == [True, False]
    assert data["intent"]["filters"] == {"tier": "gold", "product_type": "credit_card"} and data["mode"] == "crew"
    before = len(llm.calls)
    llm.script = [reading]
    chat(client, "something shiny in yellow metal for my wallet")
    assert llm.calls[before]["response_model"] is None, "the server's refusal is remembered"


def without_schemas(body: dict) -> tuple[int, str]:
    """A server without JSON schemas, as llama.cpp's: a 500 for `json_schema`, a reading for
    `json_object` (its JSON mode), the formatter's draft otherwise."""
    kind = (body.get("response_format") or {}).get("type")
    if kind == "json_schema":
        return 500, "Input should be 'text' or 'json_object'"
    if kind == "json_object":
        return 200, json.dumps({"commands": [{"kind": "search", "filters": {"tier": "gold", "product_type": "credit_card"}}]})
    return 200, restate_draft(body["messages"])


def test_a_server_without_json_schemas_is_asked_in_its_json_mode(tmp_path):
    with fake_openai(without_schemas) as (url, requests):
        app = create_app({"session_db": tmp_path / "s.sqlite3", "llm_model": "openai/local", "llm_base_url": url})
        first = chat(app.test_client(), "something shiny but not too fancy, yellow metal maybe")
        second = chat(app.test_client(), "something shiny in yellow metal for my wallet")
    formats = [(r["body"].get("response_format") or {}).get("type") for r in requests]
    assert formats == ["json_schema", "json_object", None, "json_object", None]  # refused once, remembered
    assert first["intent"]["filters"]["tier"] == second["intent"]["filters"]["tier"] == "gold"
    assert first["mode"] == second["mode"] == "crew"


def test_a_turn_that_needs_no_model_call_says_it_was_answered_offline(make_app):
    llm = ScriptedLLM(default=restate_draft)
    data = chat(make_app(llm), "I want a card")
    assert data["ask_user"] and data["llm_calls"] == 0 and data["mode"] == "offline" and not llm.calls


def test_repeated_faults_open_the_breaker_for_every_worker_until_the_cool_down(make_app):
    failing = ScriptedLLM(default=ConnectionError("Connection refused"))
    worker = make_app(failing, llm_breaker_faults=2, llm_breaker_cooldown_s=300)
    assert chat(worker, UNCLEAR)["mode"] == "offline-fallback"
    assert worker.get("/ready").get_json()["llm"] == {"breaker_open_s": 0}
    chat(worker, "I want a platinum conventional credit card for business")
    assert len(failing.calls) == 2
    healthy = ScriptedLLM(default=restate_draft)
    other_worker = make_app(healthy, llm_breaker_faults=2, llm_breaker_cooldown_s=300)
    skipped = chat(other_worker, "I want a platinum conventional credit card for business")
    assert skipped["mode"] == "offline-fallback" and skipped["llm_calls"] == 0 and skipped["products"]
    assert not healthy.calls, "an open breaker calls no model, in any worker"
    ready = other_worker.get("/ready")
    assert ready.status_code == 200 and 290 < ready.get_json()["llm"]["breaker_open_s"] <= 300, "offline still answers"
    metric = next(
        line
        for line in other_worker.get("/metrics").get_data(as_text=True).splitlines()
        if line.startswith("assistant_llm_breaker")
    )
    assert 290 < float(metric.split()[-1]) <= 300


def test_the_reading_prompt_lists_exactly_the_commands_its_schema_allows(make_app):
    from assistant.llm.crew_mode import LLMReading

    llm = ScriptedLLM(script=[json.dumps({"commands": [{"kind": "not_understood"}]})], default=restate_draft)
    chat(make_app(llm), UNCLEAR)
    listed = re.search(r'"kind": one of ([^;]+);', llm.prompt_text(0)).group(1).split(", ")
    schema = LLMReading.model_json_schema()
    allowed = [definition["properties"]["kind"]["const"] for definition in schema["$defs"].values()]
    assert sorted(listed) == sorted(allowed)


def test_a_proposal_outside_the_commands_list_is_refused_and_the_rules_reading_stands(make_app):
    llm = ScriptedLLM(
        script=[json.dumps({"commands": [{"kind": "change_committed", "goal": "x", "intent": "booking"}]})], default=restate_draft
    )
    data = chat(make_app(llm), UNCLEAR)
    assert data["intent"]["type"] in ("unknown", "faq") and data["booking"] is None, (
        "a model proposes no change to what was committed"
    )
