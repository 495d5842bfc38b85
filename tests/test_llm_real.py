"""LLM mode against a real model, through crewai's own client and no fake: SmolLM2-135M on
llama-cpp-python's OpenAI-compatible server on loopback (tests/local_llm.py). The model is far
too small to answer well; what is tested is what must hold whatever a model does: a turn never
fails, no figure the data doesn't back reaches the customer, the deadline and the circuit
breaker hold, and every call's output stays bounded."""

from __future__ import annotations

import time
import uuid

import pytest
from conftest import app_for
from local_llm import Usage, local_model, proxy, wrong_figures

from bench.seed import SEED_CONVERSATION


@pytest.fixture(scope="module")
def server():
    with local_model() as url:
        yield url


def llm_app(tmp_path, url: str, **settings):
    """The bank in LLM mode on the model at `url`, answering the same prompt the same way (temperature 0).
    A call may wait a minute: on a busy two-core machine the server may still be finishing a call
    an earlier test abandoned (a liveness bound; the deadline tests set their own)."""
    settings = {"llm_timeout_s": 60, **settings}
    return app_for(
        tmp_path, "bank", llm_model="openai/smollm2", llm_base_url=url, client_rate_per_min=0, llm_temperature=0, **settings
    )


def ask(client, session: str, query: str, **extra) -> dict:
    response = client.post("/chat", json={"query": query, "session_id": session, "user_employment": "business_owner", **extra})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_the_seed_conversation_never_fails_and_no_wrong_figure_reaches_the_customer(tmp_path, server):
    """Whatever the guard made of the model's words (kept, written again, or left out), the
    customer reads the verified draft, framed at most (and, on a comparison, with the engine's
    sentence for a judgement the table bore out), and no figure the data doesn't back."""
    client = llm_app(tmp_path, server, llm_turn_deadline_s=60, llm_breaker_faults=50).test_client()
    catalog = client.application.extensions["pipeline"].catalog
    session, twin = str(uuid.uuid4()), str(uuid.uuid4())
    written = 0
    for query in [*SEED_CONVERSATION, "plastic for the missus pls", "whats good"]:
        data = ask(client, session, query)
        offline = ask(client, twin, query, mode="offline")
        if data["mode"] != "crew" or data["intent"] != offline["intent"]:  # no reply of the model's, or another reading
            continue
        written += 1
        _framing, found, judged = data["reply"].partition(offline["reply"])
        assert found, "the verified draft is the answer, framed at most"
        assert not judged or judged.startswith("\n\nFor what you told me you need, **"), "and the engine's words for a judgement"
        assert wrong_figures(data["reply"], offline["reply"], data["products"], catalog) == []
    assert written >= len(SEED_CONVERSATION) - 1, "the model was asked to write nearly every reply"


def test_a_server_that_refuses_json_schemas_still_reads_the_message(tmp_path, server):
    app = llm_app(tmp_path, server, llm_turn_deadline_s=60)
    data = ask(app.test_client(), str(uuid.uuid4()), "plastic for the missus pls")
    assert data["llm_calls"] >= 1 and app.extensions["pipeline"].crew_mode.structured is False


def test_the_turn_deadline_holds_against_a_real_server(tmp_path, server):
    # the call it abandons runs on in the server: a few tokens, so the next test's calls don't wait long
    client = llm_app(tmp_path, server, llm_turn_deadline_s=0.5, llm_max_tokens=16).test_client()
    started = time.monotonic()
    data = ask(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert time.monotonic() - started < 3 and data["mode"] == "offline-fallback" and data["products"]


def test_the_breaker_opens_when_the_server_is_down_and_turns_answer_offline_at_once(tmp_path):
    client = llm_app(tmp_path, "http://127.0.0.1:9/v1", llm_breaker_faults=2).test_client()  # nothing listens there
    for _ in range(2):
        assert ask(client, str(uuid.uuid4()), "whats good")["mode"] == "offline-fallback"
    started = time.monotonic()
    skipped = ask(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert skipped["llm_calls"] == 0 and skipped["mode"] == "offline-fallback" and skipped["products"]
    assert time.monotonic() - started < 1 and client.get("/ready").get_json()["llm"]["breaker_open_s"] > 0


def test_every_call_stops_at_the_token_cap(tmp_path, server):
    usage = Usage()
    counting = proxy(server, usage)
    try:
        app = llm_app(tmp_path, f"http://127.0.0.1:{counting.server_port}/v1", llm_max_tokens=24, llm_turn_deadline_s=60)
        ask(app.test_client(), str(uuid.uuid4()), "Which is best for business travel? Compare the platinum cards")
    finally:
        counting.shutdown()
    assert usage.calls and usage.completion <= 24 * usage.calls
    assert all(used <= 24 for used in usage.each)
