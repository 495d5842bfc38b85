"""POST /chat/stream (Server-Sent Events) and GET /sessions/<id> for a reloaded page."""

from __future__ import annotations

import json
import uuid


def events(response) -> list[tuple[str, dict]]:
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    parsed = []
    for block in response.get_data(as_text=True).strip().split("\n\n"):
        kind, data = block.split("\n", 1)
        parsed.append((kind.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return parsed


def test_stream_reports_agents_then_text_then_the_same_json_as_chat(client):
    session = str(uuid.uuid4())
    body = {"query": "I want a platinum conventional credit card for business", "session_id": session}
    streamed = events(client.post("/chat/stream", json=body))
    kinds = [kind for kind, _ in streamed]
    assert kinds[-1] == "final" and "chunk" in kinds
    agent_events = [(d["name"], d["status"]) for k, d in streamed if k == "agent"]
    assert agent_events == [
        ("retriever", "started"),
        ("retriever", "finished"),
        ("formatter", "started"),
        ("formatter", "finished"),
    ]
    assert kinds.index("chunk") > max(i for i, k in enumerate(kinds) if k == "agent")
    final = streamed[-1][1]
    assert "".join(d["text"] for k, d in streamed if k == "chunk") == final["reply"]
    assert final["agents"] == ["retriever", "formatter"] and final["state"]["version"] == 1

    plain = client.post("/chat", json={"query": "Compare them", "session_id": session}).get_json()
    assert plain["agents"] == ["comparator", "formatter"], "the streamed turn was committed like any other"


def test_bad_input_is_refused_before_the_stream_starts(client):
    response = client.post("/chat/stream", json={"query": ""})
    assert response.status_code == 400 and response.get_json()["error"] == "invalid_request"


def test_a_failure_mid_stream_is_an_error_event_without_internals(client, pipeline, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(pipeline.index, "search_products", broken)
    streamed = events(client.post("/chat/stream", json={"query": "I want a platinum visa credit card"}))
    assert streamed[-1] == ("error", {"error": "internal_error", "message": "Something went wrong on our side."})
    assert "secret" not in json.dumps(streamed)


def test_session_history_restores_the_conversation(client):
    session = str(uuid.uuid4())
    client.post("/chat", json={"query": "I want a platinum conventional credit card for business", "session_id": session})
    client.post("/chat", json={"query": "Compare them", "session_id": session})
    data = client.get(f"/sessions/{session.upper()}").get_json()
    assert data["session_id"] == session and data["state"]["version"] == 2
    assert [(t["role"], t["intent"]) for t in data["history"]] == [
        ("user", "product_info"),
        ("assistant", "product_info"),
        ("user", "comparison"),
        ("assistant", "comparison"),
    ]
    assert data["history"][1]["products"][0]["annual_fee"] > 0
    assert data["history"][3]["agents"] == ["comparator", "formatter"]


def test_unknown_or_malformed_session_ids(client):
    assert client.get(f"/sessions/{uuid.uuid4()}").status_code == 404
    assert client.get("/sessions/not-a-uuid").get_json()["error"] == "invalid_session_id"


def test_a_busy_session_mid_stream_is_a_session_busy_event(client, pipeline, monkeypatch):
    from assistant.dialogue import sessions as store_module
    from assistant.dialogue.sessions import SQLiteLocks

    monkeypatch.setattr(store_module, "LOCK_WAIT_S", 0.2)
    session = str(uuid.uuid4())
    with SQLiteLocks(pipeline.store.path).lock(session):
        streamed = events(client.post("/chat/stream", json={"query": "hello", "session_id": session}))
    assert streamed[-1][0] == "error" and streamed[-1][1]["error"] == "session_busy"
