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

from flask import Blueprint, Response, current_app, g, jsonify, request

from assistant.dialogue.sessions import SessionBusy, VersionConflict
from assistant.pack.display import public_product
from assistant.web import openapi, telemetry
from assistant.web.errors import BUSY_MESSAGE, ApiError
from assistant.web.schemas import CUSTOMER_ID, ChatRequest, ChatResponse

bp = Blueprint("api", __name__)
log = logging.getLogger(__name__)
_CHUNK = re.compile(r"\S+\s*|\s+")  # words with their trailing space: the reply streams word by word
_DONE = object()


def _chat_request() -> ChatRequest:
    # force=True: the seed's fetch client posts JSON without a Content-Type header.
    body = request.get_json(force=True, silent=True)
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_json", "The body must be a JSON object such as {\"query\": \"hi\"}.")
    employment = current_app.extensions["pipeline"].catalog.pack.profile.get("employment")
    chat_request = ChatRequest.model_validate(body, context={"employment": set(employment.labels if employment else ())})
    current_app.extensions["rate_limiter"].check(request.remote_addr or "unknown", chat_request.session_id)
    return chat_request


def _answer(chat_request: ChatRequest, request_id: str, on_event=None) -> ChatResponse:
    started = time.perf_counter()
    response = current_app.extensions["pipeline"].run(chat_request, on_event=on_event)
    telemetry.record_turn(response, started, request_id)
    if response.intent["type"] == "refused":
        telemetry.security_event(response.intent["reason"], response.session_id, request_id)
    return response


@bp.post("/chat")
def chat():
    return jsonify(_answer(_chat_request(), g.request_id).model_dump())


@bp.post("/chat/stream")
def chat_stream():
    """Server-Sent Events: `agent` (started/finished), `chunk` (reply text), then `final` (the
    same JSON /chat returns) or `error`. Bad input is refused before the stream starts."""
    chat_request, request_id = _chat_request(), g.request_id
    app = current_app._get_current_object()
    events: queue.Queue = queue.Queue()

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
        events.put(_DONE)

    def stream():
        threading.Thread(target=work, daemon=True, name="chat-stream").start()
        while (item := events.get()) is not _DONE:
            kind, data = item
            yield f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

    return Response(stream(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache",
                                                                     "X-Accel-Buffering": "no"})


@bp.get("/sessions/<session_id>")
def session_history(session_id: str):
    """What a reloaded page needs to show the conversation again."""
    try:
        session_id = str(uuid.UUID(session_id))
    except ValueError:
        raise ApiError(400, "invalid_session_id", "A session id is a UUID.") from None
    pipeline = current_app.extensions["pipeline"]
    state = pipeline.store.load(session_id)
    if state is None:
        raise ApiError(404, "unknown_session", "No conversation with that id.")
    turns = [
        {**turn.model_dump(include={"role", "text", "intent", "agents", "at"}),
         "products": [public_product(p, pipeline.catalog) for p in pipeline.catalog.products_by_id(turn.products)]}
        for turn in state.history
    ]
    return jsonify(session_id=session_id, history=turns, state=state.summary())


def _preferences(customer_id: str):
    if not CUSTOMER_ID.fullmatch(customer_id):
        raise ApiError(400, "invalid_customer_id", "A customer id is 1 to 64 letters, digits, '_' or '-'.")
    return current_app.extensions["pipeline"].preferences


@bp.get("/about")
def about():
    """What the chat page needs to present this business: its words, examples and profile choices."""
    catalog = current_app.extensions["pipeline"].catalog
    employment = catalog.pack.profile.get("employment")
    booking = catalog.pack.booking
    choices = zip(employment.labels, employment.choices, strict=True) if employment else []
    return jsonify(business=catalog.name, **catalog.pack.page.model_dump(), booking=booking.subject if booking else None,
                   item=catalog.text["item"], employment=[{"value": v, "label": choice} for v, choice in choices])


@bp.get("/customers/<customer_id>/preferences")
def get_preferences(customer_id: str):
    return jsonify(_preferences(customer_id).get(customer_id).model_dump(exclude={"updated_at"}))


@bp.delete("/customers/<customer_id>/preferences")
def forget_preferences(customer_id: str):
    _preferences(customer_id).delete(customer_id)
    return "", 204


@bp.get("/openapi.json")
def openapi_document():
    return jsonify(openapi.document(current_app.extensions["pipeline"].catalog))


@bp.get("/health")
def health():
    """Liveness: the process answers."""
    return jsonify(status="ok")


@bp.get("/ready")
def ready():
    """Readiness: the session store and the search index answer."""
    pipeline = current_app.extensions["pipeline"]
    checks = {}
    for name, check in (("store", pipeline.store.ping), ("index", pipeline.index.ready)):
        try:
            checks[name] = bool(check())
        except Exception:  # an unreachable store is a "no", not an error
            checks[name] = False
    if not all(checks.values()):
        return jsonify(error="not_ready", message="Not ready to answer yet.", checks=checks), 503
    return jsonify(status="ready", checks=checks)
