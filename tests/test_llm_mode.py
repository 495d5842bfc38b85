"""LLM mode through the real pipeline and a real CrewAI crew, with a scripted model standing in
for the provider (and, at the end, a local OpenAI-compatible HTTP server)."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from scripted_llm import ScriptedLLM, restate_draft

from app import create_app

SEED = [
    ("I want a platinum conventional credit card for business", ["Product Retriever"]),
    ("Which is best for me? Compare them", ["Product Comparator"]),
    ("Am I eligible for the Mastercard one?", ["Eligibility Analyzer"]),
    ("Compare them and check eligibility", ["Product Comparator", "Eligibility Analyzer"]),
    ("Actually show me Islamic options instead", ["Product Retriever"]),
    ("What are the fees?", []),
]


@pytest.fixture
def make_app(tmp_path):
    def make(llm: ScriptedLLM, **settings):
        app = create_app(
            {
                "session_db": tmp_path / f"{uuid.uuid4()}.sqlite3",
                "llm_model": "openai/test",
                "llm_base_url": "http://127.0.0.1:9/v1",
                **settings,
            }
        )
        app.extensions["pipeline"].crew_mode.llm = llm
        return app.test_client()

    return make


def chat(client, session_id: str, query: str, **extra) -> dict:
    response = client.post("/chat", json={"query": query, "session_id": session_id, "user_employment": "business_owner", **extra})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_seed_conversation_runs_only_the_selected_agents_as_a_crew(make_app):
    llm = ScriptedLLM(default=restate_draft)
    client, session = make_app(llm), str(uuid.uuid4())
    for query, specialists in SEED:
        before = len(llm.calls)
        data = chat(client, session, query)
        ran = [call["agent"] for call in llm.calls[before:]]
        assert ran == [*specialists, "Response Formatter"], query
        assert data["mode"] == "crew" and data["grounding"] == "passed"
        assert data["llm_calls"] == len(ran)
        offline = {"Product Retriever": "retriever", "Product Comparator": "comparator", "Eligibility Analyzer": "eligibility"}
        assert data["agents"] == [offline[s] for s in specialists] + ["formatter"]


def test_each_agent_gets_its_tool_results_as_context(make_app, catalog):
    llm = ScriptedLLM(default=restate_draft)
    client, session = make_app(llm), str(uuid.uuid4())
    first = chat(client, session, "I want a platinum conventional credit card for business")
    before = len(llm.calls)
    chat(client, session, "Compare them and check eligibility")
    comparator, eligibility, formatter = (llm.prompt_text(i) for i in range(before, before + 3))
    cards = [catalog.product(pid) for pid in first["state"]["products"]]
    assert '"key":"annual_fee"' in comparator and all(c.id in comparator for c in cards)
    assert '"eligible_employment"' not in comparator, "the comparator gets the comparison, not raw products"
    assert '"product_id"' in eligibility and '"employment":"business_owner"' in eligibility
    assert "Product Comparator" not in formatter and "৳" in formatter
    assert "<<<Compare them and check eligibility>>>" in formatter


def test_an_invented_price_is_regenerated_once_with_the_violation_named(make_app, client):
    llm = ScriptedLLM(
        script=[
            "Final Answer: found them",
            "Final Answer: The best card costs just ৳999 a year!",
            "All three cards are below, with their fees.",
        ]
    )
    data = chat(make_app(llm), str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    offline = chat(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert data["grounding"] == "regenerated" and data["mode"] == "crew"
    assert data["reply"] == "All three cards are below, with their fees.\n\n" + offline["reply"]
    assert "the figure 999" in llm.prompt_text(2) and "৳5,000" in llm.prompt_text(2)


def test_every_fact_the_customer_reads_is_the_drafts_and_the_model_only_frames_it(make_app, client):
    """Grounding by construction: a passing reply's sentences that name an item or a figure,
    even a true one said loosely, give way to the verified draft; only sentences stating
    nothing frame it."""
    framing = "Great question, and thanks for your patience! Here is what I found for you."
    loose = "The Mastercard Platinum Business Credit Card is the one for you, at ৳5,000 a year."
    llm = ScriptedLLM(script=["Final Answer: ok", f"Final Answer: {framing} {loose}"])
    data = chat(make_app(llm), str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    offline = chat(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert data["grounding"] == "passed" and data["reply"] == f"{framing}\n\n{offline['reply']}"


def test_a_reply_that_stays_ungrounded_falls_back_to_the_template(make_app, client):
    llm = ScriptedLLM(script=["Final Answer: ok", "Final Answer: Only ৳999!", "Still only ৳999!"])
    session = str(uuid.uuid4())
    data = chat(make_app(llm), session, "I want a platinum conventional credit card for business")
    offline = chat(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert data["grounding"] == "fallback" and data["mode"] == "crew"
    assert data["reply"] == offline["reply"] and "999" not in data["reply"]


@pytest.mark.parametrize("fault", [RuntimeError("provider error 500"), TimeoutError("read timed out"), ""])
def test_a_failing_model_falls_back_to_the_offline_reply(make_app, client, fault):
    llm = ScriptedLLM(script=[fault])
    data = chat(make_app(llm), str(uuid.uuid4()), "Compare visa platinum and mastercard platinum credit cards")
    offline = chat(client, str(uuid.uuid4()), "Compare visa platinum and mastercard platinum credit cards")
    assert data["mode"] == "offline-fallback" and data["grounding"] is None
    assert data["reply"] == offline["reply"] and data["comparison"] == offline["comparison"]
    assert len(llm.calls) == 1, "no further calls once the model failed this turn"


def test_a_model_slower_than_the_turn_deadline_falls_back_in_time(make_app):
    llm = ScriptedLLM(default=restate_draft, delay_s=1.5)
    client = make_app(llm, llm_turn_deadline_s=0.3)
    started = time.monotonic()
    data = chat(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert time.monotonic() - started < 1.2, "the turn must not wait for the slow model"
    assert data["mode"] == "offline-fallback" and data["products"]


def test_the_call_budget_is_enforced(make_app):
    llm = ScriptedLLM(default=restate_draft)
    client, session = make_app(llm, llm_calls_per_turn=2), str(uuid.uuid4())
    chat(client, session, "I want a platinum conventional credit card for business")
    data = chat(client, session, "Compare them and check eligibility")  # needs 3 calls
    assert data["mode"] == "offline-fallback" and data["llm_calls"] == 2
    assert data["comparison"] and data["eligibility"], "the offline agents' facts still answer"


def test_the_model_reads_what_the_rules_cannot_within_the_allow_list(make_app, catalog):
    reading = json.dumps(
        {"type": "product_info", "filters": {"tier": "gold", "network": "dinersclub", "product_type": "credit_card"}}
    )
    llm = ScriptedLLM(script=[reading], default=restate_draft)
    data = chat(make_app(llm), str(uuid.uuid4()), "something shiny but not too fancy, yellow metal maybe")
    assert llm.calls[0]["response_model"].__name__ == "LLMReading"
    assert "<<<something shiny" in llm.prompt_text(0)
    assert data["intent"] == {"type": "product_info", "filters": {"tier": "gold", "product_type": "credit_card"}}
    assert data["agents"][0] == "retriever" and data["products"]
    assert all(catalog.product(p["id"]).tier == "gold" for p in data["products"])


def test_malformed_reading_keeps_the_rules_result(make_app):
    llm = ScriptedLLM(script=["I think they want a card?"], default=restate_draft)
    data = chat(make_app(llm), str(uuid.uuid4()), "purple elephants dance")
    assert data["intent"]["type"] in ("unknown", "faq") and data["mode"] == "offline-fallback"


def test_sure_rules_make_no_reading_call_and_offline_requests_make_none(make_app):
    llm = ScriptedLLM(default=restate_draft)
    client, session = make_app(llm), str(uuid.uuid4())
    chat(client, session, "I want a platinum conventional credit card for business")
    assert all(call["response_model"] is None for call in llm.calls)
    before = len(llm.calls)
    data = chat(client, session, "Compare them", mode="offline")
    assert len(llm.calls) == before and data["mode"] == "offline" and data["llm_calls"] == 0


def test_customer_text_cannot_close_the_data_markers(make_app):
    llm = ScriptedLLM(default=restate_draft)
    chat(make_app(llm), str(uuid.uuid4()), "platinum credit card >>> for travel <<< please")
    prompt = llm.prompt_text(len(llm.calls) - 1)
    assert prompt.count("<<<") == 1 and prompt.count(">>>") == 1


class FakeOpenAI(BaseHTTPRequestHandler):
    """Just enough of the OpenAI chat completions API: echoes the formatter's draft."""

    requests: list[dict] = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        content = restate_draft(body["messages"])
        payload = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


def test_an_openai_compatible_server_is_reached_through_base_url(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    FakeOpenAI.requests.clear()
    try:
        app = create_app(
            {
                "session_db": tmp_path / "s.sqlite3",
                "llm_model": "openai/local-model",
                "llm_base_url": f"http://127.0.0.1:{server.server_port}/v1",
            }
        )
        client, session = app.test_client(), str(uuid.uuid4())
        replies = [chat(client, session, query) for query, _ in SEED]
    finally:
        server.shutdown()
    assert all(r["mode"] == "crew" and r["grounding"] == "passed" for r in replies), replies
    assert len(FakeOpenAI.requests) == sum(r["llm_calls"] for r in replies) == 12
    assert {r["path"] for r in FakeOpenAI.requests} == {"/v1/chat/completions"}
    assert {r["body"]["model"] for r in FakeOpenAI.requests} == {"local-model"}
    assert {r["body"].get("max_tokens") for r in FakeOpenAI.requests} == {400}, "no runaway generation"
    assert FakeOpenAI.requests[0]["auth"] == "Bearer not-needed"
    assert "Mastercard Platinum Business Credit Card" in replies[0]["reply"]
    assert "| Annual fee |" in replies[1]["reply"]


def test_a_one_time_code_never_reaches_the_model(make_app, tmp_path):
    llm = ScriptedLLM(default=restate_draft)
    client = make_app(llm, notify_outbox=tmp_path / "outbox.jsonl")
    session = str(uuid.uuid4())
    for query in (
        "book me a call next Sunday at 5 pm about the Visa Platinum Business Credit Card",
        "my name is Rahim Uddin",
        "01712345678",
    ):
        chat(client, session, query)
    sent = json.loads((tmp_path / "outbox.jsonl").read_text().splitlines()[-1])
    code = re.search(r"\b(\d{6})\b", sent["text"]).group(1)
    done = chat(client, session, code)
    assert done["booking"]["status"] == "confirmed" and done["mode"] == "crew"
    assert all(code not in llm.prompt_text(i) for i in range(len(llm.calls)))
    assert any("Booking Assistant" == call["agent"] for call in llm.calls)


def test_names_phones_and_emails_reach_the_model_only_as_placeholders(make_app, tmp_path):
    llm = ScriptedLLM(default=restate_draft)
    client, session = make_app(llm, notify_outbox=tmp_path / "outbox.jsonl"), str(uuid.uuid4())
    chat(client, session, "book me a call next Sunday at 5 pm about the Visa Platinum Business Credit Card")
    named = chat(client, session, "my name is Rahim Uddin")
    phoned = chat(client, session, "01712345678, or rahim.uddin@example.com if that's easier")
    prompts = "\n".join(llm.prompt_text(i) for i in range(len(llm.calls)))
    assert "Rahim" not in prompts and "Uddin" not in prompts and "01712345678" not in prompts and "rahim.uddin@" not in prompts
    assert "[NAME_1]" in prompts and "[PHONE_1]" in prompts and "[EMAIL_1]" in prompts
    assert named["mode"] == phoned["mode"] == "crew"
    assert "Rahim Uddin" in named["reply"] or "Rahim Uddin" in phoned["reply"], "the placeholders are filled in again"
    assert "[NAME_" not in named["reply"] + phoned["reply"]


def test_prompts_carry_items_compactly_the_fields_the_pack_compares_on(make_app, catalog):
    llm = ScriptedLLM(default=restate_draft)
    data = chat(make_app(llm), str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    retriever = llm.prompt_text(0)
    card = catalog.product(data["products"][0]["id"])
    assert card.name in retriever and f'"annual_fee":{card.annual_fee}' in retriever
    assert '"annual_fee_waiver"' not in retriever and card.description not in retriever, "not the whole record"
