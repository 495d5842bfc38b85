"""LLM mode through the real pipeline and a real CrewAI crew, with a scripted model standing in
for the provider (and, at the end, a local OpenAI-compatible HTTP server)."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid

import pytest
from fake_openai import fake_openai
from scripted_llm import ScriptedLLM, restate_draft

from app import create_app

SEED = [  # each message, the agents that run, and those a model works for
    ("I want a platinum conventional credit card for business", ["retriever"], []),
    ("Which is best for me? Compare them", ["comparator"], ["Product Comparator"]),
    ("Am I eligible for the Mastercard one?", ["eligibility"], []),
    ("Compare them and check eligibility", ["comparator", "eligibility"], ["Product Comparator"]),
    ("Actually show me Islamic options instead", ["retriever"], []),
    ("What are the fees?", [], []),
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


def test_a_model_works_only_where_judgement_adds_something_and_is_offered_no_tool(make_app):
    """A model call that only paraphrases a deterministic result is waste: the retriever's,
    eligibility's and booking's did. Only the comparator (weighing the table against what the
    customer needs, in a structured answer) and the formatter (framing) call the model now."""
    llm = ScriptedLLM(default=restate_draft)
    client, session = make_app(llm), str(uuid.uuid4())
    for query, agents, judges in SEED:
        before = len(llm.calls)
        data = chat(client, session, query)
        called = llm.calls[before:]
        assert [call["agent"] for call in called] == [*judges, "Response Formatter"], query
        assert [getattr(call["response_model"], "__name__", None) for call in called] == ["Judgement"] * len(judges) + [None]
        assert data["mode"] == "crew" and data["grounding"] == "passed"
        assert data["llm_calls"] == len(called) and data["agents"] == [*agents, "formatter"]
    prompts = "\n".join(llm.prompt_text(i) for i in range(len(llm.calls)))
    assert "Tool Name:" not in prompts and "search_products" not in prompts


def _judged(make_app, judgement: str) -> tuple[dict, ScriptedLLM]:
    llm = ScriptedLLM(default=restate_draft)
    client, session = make_app(llm), str(uuid.uuid4())
    chat(client, session, "I want a platinum conventional credit card for business")
    llm.script = [judgement]
    return chat(client, session, "Which is best for me? Compare them"), llm


def test_the_comparators_judgement_is_checked_against_the_table_and_said_by_the_engine(make_app, catalog):
    one, _ = _judged(make_app, '{"best": "jcb-platinum-business", "on": "lounge_visits_per_year"}')  # a row alone
    assert "**JCB Platinum Business Credit Card** suits you best: it leads on airport lounge visits a year." in one["reply"]
    data, llm = _judged(make_app, '{"best": "jcb-platinum-business", "on": ["lounge_visits_per_year", "credit_limit_max"]}')
    judge = llm.prompt_text(len(llm.calls) - 2)
    assert '"key":"annual_fee"' in judge and '"employment":"business_owner"' in judge and '"tier":"platinum"' in judge
    assert '"eligible_employment"' not in judge and '"wins"' not in judge, "the table and what they need, not raw records"
    said = "For what you told me you need, **JCB Platinum Business Credit Card** suits you best: it leads on"
    assert said + " airport lounge visits a year and credit limit up to." in data["reply"]
    assert data["reply"].index("| Annual fee |") < data["reply"].index(said), "after the verified table"
    assert said in llm.prompt_text(len(llm.calls) - 1), "the formatter frames the judged draft"


@pytest.mark.parametrize(
    "judgement",
    [
        '{"best": "jcb-platinum-business", "on": ["annual_fee"]}',  # not best on that row
        '{"best": "amex-gold", "on": ["rewards"]}',  # not compared
        '{"best": "jcb-platinum-business", "on": ["cashback_pct"]}',  # no such row
        '{"best": null, "on": []}',  # nothing stands out for them
        "Final Answer: The JCB gives 2 reward points per ৳100 and is best for you.",  # prose, not the structure
    ],
)
def test_a_judgement_the_table_does_not_bear_out_is_left_out(make_app, client, judgement):
    data, _ = _judged(make_app, judgement)
    assert data["mode"] == "crew" and data["grounding"] == "passed", "the framing is still written"
    session = str(uuid.uuid4())
    chat(client, session, "I want a platinum conventional credit card for business")
    offline = chat(client, session, "Which is best for me? Compare them")
    assert "suits you best" not in data["reply"] and data["reply"].endswith(offline["reply"])
    assert "2 reward points per ৳100 and is best" not in data["reply"]


def test_a_comparison_with_nothing_said_of_needs_asks_no_judgement(make_app):
    llm = ScriptedLLM(default=restate_draft)
    client, session = make_app(llm), str(uuid.uuid4())
    query = "compare the Visa Platinum Business Credit Card and the JCB Platinum Business Credit Card"
    assert client.post("/chat", json={"query": query, "session_id": session}).get_json()["comparison"]
    assert [call["agent"] for call in llm.calls] == ["Response Formatter"]


def test_an_invented_price_is_regenerated_once_with_the_violation_named(make_app, client):
    llm = ScriptedLLM(
        script=[
            "Final Answer: The best card costs just ৳999 a year!",
            "All three cards are below, with their fees.",
        ]
    )
    data = chat(make_app(llm), str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    offline = chat(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert data["grounding"] == "regenerated" and data["mode"] == "crew"
    assert data["reply"] == "All three cards are below, with their fees.\n\n" + offline["reply"]
    assert "the figure 999" in llm.prompt_text(1) and "৳5,000" in llm.prompt_text(1)


def test_every_fact_the_customer_reads_is_the_drafts_and_the_model_only_frames_it(make_app, client):
    """Grounding by construction: a passing reply's sentences that name an item or a figure,
    even a true one said loosely, give way to the verified draft; only sentences stating
    nothing frame it."""
    framing = "Great question, and thanks for your patience! Here is what I found for you."
    loose = "The Mastercard Platinum Business Credit Card is the one for you, at ৳5,000 a year."
    llm = ScriptedLLM(script=[f"Final Answer: {framing} {loose}"])
    data = chat(make_app(llm), str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    offline = chat(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert data["grounding"] == "passed" and data["reply"] == f"{framing}\n\n{offline['reply']}"


def test_a_reply_that_stays_ungrounded_falls_back_to_the_template(make_app, client):
    llm = ScriptedLLM(script=["Final Answer: Only ৳999!", "Still only ৳999!"])
    session = str(uuid.uuid4())
    data = chat(make_app(llm), session, "I want a platinum conventional credit card for business")
    offline = chat(client, str(uuid.uuid4()), "I want a platinum conventional credit card for business")
    assert data["grounding"] == "fallback" and data["mode"] == "crew"
    assert data["reply"] == offline["reply"] and "999" not in data["reply"]


@pytest.mark.parametrize("fault", [RuntimeError("provider error 500"), TimeoutError("read timed out"), ""])
def test_a_failing_model_falls_back_to_the_offline_reply(make_app, client, fault):
    llm = ScriptedLLM(script=[fault])
    query = "compare the Visa Platinum Business Credit Card and the JCB Platinum Business Credit Card"
    data = chat(make_app(llm), str(uuid.uuid4()), query, user_employment=None)  # no need said, no judgement: the framing fails
    offline = chat(client, str(uuid.uuid4()), query, user_employment=None)
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
    client, session = make_app(llm, llm_calls_per_turn=1), str(uuid.uuid4())
    chat(client, session, "I want a platinum conventional credit card for business")
    data = chat(client, session, "Compare them and check eligibility")  # the judgement and the framing: 2 calls
    assert data["mode"] == "offline-fallback" and data["llm_calls"] == 1
    assert data["comparison"] and data["eligibility"], "the offline agents' facts still answer"


def test_the_model_reads_what_the_rules_cannot_within_the_allow_list(make_app, catalog):
    reading = json.dumps(
        {"commands": [{"kind": "search", "filters": {"tier": "gold", "network": "dinersclub", "product_type": "credit_card"}}]}
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


def test_an_openai_compatible_server_is_reached_through_base_url(tmp_path):
    with fake_openai(lambda body: (200, restate_draft(body["messages"]))) as (url, requests):
        app = create_app({"session_db": tmp_path / "s.sqlite3", "llm_model": "openai/local-model", "llm_base_url": url})
        client, session = app.test_client(), str(uuid.uuid4())
        replies = [chat(client, session, query) for query, _, _ in SEED]
    assert all(r["mode"] == "crew" and r["grounding"] == "passed" for r in replies), replies
    assert len(requests) == sum(r["llm_calls"] for r in replies) == 8
    assert {r["path"] for r in requests} == {"/v1/chat/completions"}
    assert {r["body"]["model"] for r in requests} == {"local-model"}
    assert {r["body"].get("max_tokens") for r in requests} == {400}, "no runaway generation"
    assert requests[0]["auth"] == "Bearer not-needed"
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
    assert {call["agent"] for call in llm.calls} <= {"Response Formatter", None}  # the framing, and readings


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


def test_a_filter_only_the_model_read_narrows_that_search_and_is_not_kept(make_app, catalog):
    """A filter only the model read is not the customer's: "whats good", read by the model as
    conventional cards, kept every later search to conventional cards, though the customer never
    said so."""
    reading = json.dumps(
        {"commands": [{"kind": "search", "filters": {"banking_type": "conventional", "product_type": "credit_card"}}]}
    )
    client, session = make_app(ScriptedLLM(script=[reading], default=restate_draft)), str(uuid.uuid4())
    guessed = chat(client, session, "whats good")
    assert guessed["products"] and {catalog.product(p["id"]).banking_type for p in guessed["products"]} == {"conventional"}
    assert guessed["state"]["filters"] == {}
    later = chat(client, session, "show me platinum credit cards")
    assert later["state"]["filters"] == {"product_type": "credit_card", "tier": "platinum"}
    assert "islami" in {catalog.product(p["id"]).banking_type for p in later["products"]}


def test_the_stream_shows_the_verified_draft_while_the_model_frames_it(make_app):
    """The customer sees the first words early. The draft is verified, so it
    streams before the model answers (the model here answers only once the test has seen the
    first words); the model's own words come with the final answer."""
    framing, released, held = "Happy to help with that.", threading.Event(), []

    def model(messages: list[dict]) -> str:
        held.append(released.wait(5))  # True: released by the first words reaching the client
        return f"Final Answer: {framing}"

    client = make_app(ScriptedLLM(default=model))
    body = {"query": "I want a platinum conventional credit card for business", "session_id": str(uuid.uuid4())}
    response = client.post("/chat/stream", json=body, buffered=False)
    events = []
    for raw in response.response:
        for block in raw.decode().split("\n\n"):
            if block.strip():
                kind, data = (line.split(": ", 1)[1] for line in block.splitlines())
                events.append((kind, json.loads(data)))
                if kind == "chunk":
                    released.set()
    assert held == [True], "the first words reached the client while the model was still writing"
    draft = "".join(data["text"] for kind, data in events if kind == "chunk")
    [final] = [data for kind, data in events if kind == "final"]
    assert final["reply"] == f"{framing}\n\n{draft}" and final["mode"] == "crew" and final["grounding"] == "passed"
