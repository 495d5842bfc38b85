"""HTTP endpoints: POST /chat (and its streaming twin), a session's history, a customer's
preferences, the OpenAPI document, and the health checks."""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request
from flask.typing import ResponseReturnValue

from assistant.dialogue.preferences import PreferenceStore
from assistant.dialogue.sessions import STORE, SessionBusy, VersionConflict
from assistant.pack.display import public_product
from assistant.web import openapi, telemetry
from assistant.web.errors import BUSY_MESSAGE, ApiError, json_object
from assistant.web.ratelimit import LIMITER
from assistant.web.schemas import CUSTOMER_ID, ChatRequest, ChatResponse
from crew_pipeline import PIPELINE, EventSink

bp = Blueprint("api", __name__)
log = logging.getLogger(__name__)
_CHUNK = re.compile(r"\S+\s*|\s+")  # words with their trailing space: the reply streams word by word


def _chat_request() -> ChatRequest:
    body = json_object('{"query": "hi"}')
    pack = PIPELINE.get().catalog.pack
    page = pack.profile[pack.page_fact].values if pack.page_fact else {}
    chat_request = ChatRequest.model_validate(body, context={"page_fact": set(page)})
    LIMITER.get().check(request.remote_addr or "unknown", chat_request.session_id)
    return chat_request


def _answer(chat_request: ChatRequest, request_id: str, on_event: EventSink | None = None) -> ChatResponse:
    started = time.perf_counter()
    response = PIPELINE.get().run(chat_request, on_event=on_event)
    telemetry.record_turn(response, started, request_id)
    if response.intent["type"] == "refused":
        telemetry.security_event(response.intent["reason"], response.session_id, request_id)
    return response


@bp.post("/chat")
def chat() -> Response:
    return jsonify(_answer(_chat_request(), g.request_id).model_dump())


@bp.post("/chat/stream")
def chat_stream() -> Response:
    """Server-Sent Events: `agent` (started/finished), `chunk` (reply text), then `final` (the
    same JSON /chat returns) or `error`. Bad input is refused before the stream starts."""
    chat_request, request_id = _chat_request(), g.request_id
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]  # Flask types the proxy as the app
    events: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()  # None: the stream is over

    def work() -> None:
        try:
            with app.app_context():
                response = _answer(chat_request, request_id, lambda kind, data: events.put((kind, data)))
            for piece in _CHUNK.findall(response.reply):
                events.put(("chunk", {"text": piece}))
            events.put(("final", response.model_dump()))
        except (SessionBusy, VersionConflict):
            events.put(("error", {"error": "session_busy", "message": BUSY_MESSAGE}))
        except Exception:  # the stream has started: the error becomes an event, never a trace
            log.exception("streamed turn failed")
            events.put(("error", {"error": "internal_error", "message": "Something went wrong on our side."}))
        events.put(None)

    def stream() -> Iterator[str]:
        threading.Thread(target=work, daemon=True, name="chat-stream").start()
        while (item := events.get()) is not None:
            kind, data = item
            yield f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

    return Response(stream(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.get("/sessions/<session_id>")
def session_history(session_id: str) -> Response:
    """What a reloaded page needs to show the conversation again."""
    try:
        session_id = str(uuid.UUID(session_id))
    except ValueError:
        raise ApiError(400, "invalid_session_id", "A session id is a UUID.") from None
    pipeline = PIPELINE.get()
    state = pipeline.store.load(session_id)
    if state is None:
        raise ApiError(404, "unknown_session", "No conversation with that id.")
    turns = [
        {
            **turn.model_dump(include={"role", "text", "intent", "agents", "at", "booking", "eligibility", "choices", "ask_user"}),
            "products": [public_product(p, pipeline.catalog) for p in pipeline.catalog.products_by_id(turn.products)],
        }
        for turn in state.history
    ]
    return jsonify(session_id=session_id, history=turns, state=state.summary(pipeline.catalog.pack.private_slots))


def _preferences(customer_id: str) -> PreferenceStore:
    if not CUSTOMER_ID.fullmatch(customer_id):
        raise ApiError(400, "invalid_customer_id", "A customer id is 1 to 64 letters, digits, '_' or '-'.")
    return PIPELINE.get().preferences


@bp.get("/about")
def about() -> Response:
    """What the chat page needs to present this business: its words, examples, its page fact's
    choices (the values a chat request's page fact takes) and the time zone its bookings are in."""
    catalog = PIPELINE.get().catalog
    page = catalog.pack.profile[catalog.pack.page_fact] if catalog.pack.page_fact else None
    booking = next((flow for flow in catalog.pack.flows.values() if flow.books), None)
    choices = [{"value": v, "label": choice} for v, choice in zip(page.values, page.choices, strict=True)] if page else []
    return jsonify(
        business=catalog.name,
        **catalog.pack.page.model_dump(),
        booking=booking.subject if booking else None,
        item=catalog.text["item"],
        timezone=catalog.business.timezone,
        profile_choices=choices,
        employment=choices,  # the same, under the name pages written before customer facts were pack data read
    )


@bp.get("/customers/<customer_id>/preferences")
def get_preferences(customer_id: str) -> Response:
    return jsonify(_preferences(customer_id).get(customer_id).model_dump(exclude={"updated_at"}))


@bp.delete("/customers/<customer_id>/preferences")
def forget_preferences(customer_id: str) -> ResponseReturnValue:
    _preferences(customer_id).delete(customer_id)
    return "", 204


@bp.get("/openapi.json")
def openapi_document() -> Response:
    return jsonify(openapi.document(PIPELINE.get().catalog))


@bp.get("/health")
def health() -> Response:
    """Liveness: the process answers."""
    return jsonify(status="ok")


@bp.get("/ready")
def ready() -> ResponseReturnValue:
    """Readiness: the session store and the search index answer."""
    checks: dict[str, bool] = {}
    for name, check in (("store", STORE.get().ping), ("index", PIPELINE.get().index.ready)):
        try:
            checks[name] = bool(check())
        except Exception:  # an unreachable store is a "no", not an error
            checks[name] = False
    if not all(checks.values()):
        return jsonify(error="not_ready", message="Not ready to answer yet.", checks=checks), 503
    return jsonify(status="ready", checks=checks)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
