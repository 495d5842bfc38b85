"""HTTP endpoints: POST /chat (and its streaming twin), a session's history, a customer's
preferences, the OpenAPI document, and the health checks."""

from __future__ import annotations

import contextvars
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
from assistant.dialogue.state import NotYourSession, SessionState
from assistant.dialogue.turns import CUSTOMER_ID, ChatRequest, ChatResponse
from assistant.handover.store import HANDOVERS
from assistant.infra.database import DATABASE
from assistant.infra.replay import KeyReused
from assistant.pack.display import public_product
from assistant.pack.model import Catalog, CustomerFact, Labels
from assistant.pack.translations import speaking
from assistant.web import files, openapi, telemetry
from assistant.web.errors import (
    BUSY_MESSAGE,
    KEY_REUSED,
    NOT_YOURS_MESSAGE,
    RETRY_LATER,
    UNAVAILABLE,
    ApiError,
    json_object,
    store_unavailable,
)
from assistant.web.identity import caller, require_customer
from assistant.web.openapi import (
    BINARY,
    CUSTOMER_OR_OPERATOR,
    FILE_ID,
    SESSION,
    SIGNED_IN_OR_GUEST,
    TURN,
    UUID,
    Fragment,
    component,
    errors,
    json_answer,
)
from assistant.web.ratelimit import LIMITER
from assistant.web.schemas import ATTACHMENTS_ONLY
from crew_pipeline import PIPELINE, EventSink

bp = Blueprint("api", __name__)
log = logging.getLogger(__name__)
_CHUNK = re.compile(r"\S+\s*|\s+")  # words with their trailing space: the reply streams word by word


def _chat_request() -> ChatRequest:
    """The message, as JSON or as multipart/form-data with its files (kept once the message is valid)."""
    body = files.chat_form() if request.mimetype == files.FORM else json_object('{"query": "hi"}')
    pack = PIPELINE.get().catalog.pack
    chat_request = ChatRequest.model_validate(body, context={"profile": pack.profile, "page_fact": pack.page_fact})
    customer_id = caller().customer_id
    if chat_request.customer_id not in (None, customer_id):
        raise ApiError(403, "identity_mismatch", "customer_id is read from the bearer token; this one does not match it.")
    LIMITER.get().check(request.remote_addr or "unknown", chat_request.session_id)
    return files.with_files(chat_request.model_copy(update={"customer_id": customer_id}))


def _replay_key() -> str | None:
    """The X-Request-ID the client sent, if it sent one: a retry of the message gets the stored
    answer. An id generated here is new on every request, so it replays nothing."""
    return g.request_id if request.headers.get("X-Request-ID") == g.request_id else None


def _answer(chat_request: ChatRequest, request_id: str, replay_key: str | None, on_event: EventSink | None = None) -> ChatResponse:
    started = time.perf_counter()
    response = PIPELINE.get().run(chat_request, on_event=on_event, replay_key=replay_key)
    telemetry.record_turn(response, started, request_id)
    if response.intent["type"] == "refused":
        telemetry.security_event(response.intent["reason"], response.session_id, request_id)
    return response


@bp.post("/chat")
def chat() -> Response:
    return jsonify(_answer(_chat_request(), g.request_id, _replay_key()).model_dump())


@bp.post("/chat/stream")
def chat_stream() -> Response:
    """Server-Sent Events: `agent` (started/finished), `chunk` (reply text), then `final` (the
    same JSON /chat returns) or `error`. Bad input is refused before the stream starts. In LLM
    mode the engine's verified draft streams as soon as it is written, while the model frames
    it: only the model's own words wait for the guard, and `final` carries the whole reply."""
    chat_request, request_id, replay_key = _chat_request(), g.request_id, _replay_key()
    asked_by = contextvars.copy_context()  # the request's asker (web/ratelimit.py), for the turn's own thread
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]  # Flask types the proxy as the app
    events: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()  # None: the stream is over

    drafted: list[str] = []

    def chunks(text: str) -> None:
        for piece in _CHUNK.findall(text):
            events.put(("chunk", {"text": piece}))

    def on_event(kind: str, data: dict[str, Any]) -> None:
        if kind == "draft":
            drafted.append(data["text"])
            chunks(data["text"])
        else:
            events.put((kind, data))

    def work() -> None:
        try:
            with app.app_context():
                response = _answer(chat_request, request_id, replay_key, on_event)
            if not drafted:
                chunks(response.reply)
            events.put(("final", response.model_dump()))
        except (SessionBusy, VersionConflict):
            events.put(("error", {"error": "session_busy", "message": BUSY_MESSAGE}))
        except NotYourSession:
            events.put(("error", {"error": "forbidden", "message": NOT_YOURS_MESSAGE}))
        except KeyReused:
            events.put(("error", KEY_REUSED))
        except Exception as exc:  # the stream has started: the error becomes an event, never a trace
            if store_unavailable(exc):
                log.warning("store unavailable: %s", exc)
                events.put(("error", UNAVAILABLE))
            else:
                log.exception("streamed turn failed")
                events.put(("error", {"error": "internal_error", "message": "Something went wrong on our side."}))
        events.put(None)

    def stream() -> Iterator[str]:
        threading.Thread(target=asked_by.run, args=(work,), daemon=True, name="chat-stream").start()
        while (item := events.get()) is not None:
            kind, data = item
            yield f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

    return Response(stream(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _session(session_id: str) -> SessionState:
    """A saved conversation, for its own customer (or anyone, a guest's: its id is the secret)."""
    try:
        session_id = str(uuid.UUID(session_id))
    except ValueError:
        raise ApiError(400, "invalid_session_id", "A session id is a UUID.") from None
    state = PIPELINE.get().store.load(session_id)
    if state is None:
        raise ApiError(404, "unknown_session", "No conversation with that id.")
    if state.customer_id is not None:
        require_customer(state.customer_id)
    return state


def _with_people(session_id: str) -> dict[str, Any]:
    """Who answers the conversation now, and the operator, if one has it."""
    held = HANDOVERS.get().current(session_id)
    return {"handled_by": "human" if held else "assistant", "operator": held.operator if held else None}


@bp.get("/sessions/<session_id>")
def session_history(session_id: str) -> Response:
    """What a reloaded page needs to show the conversation again."""
    state, pipeline = _session(session_id), PIPELINE.get()
    turns = [
        {
            **turn.model_dump(
                include={
                    "role",
                    "text",
                    "by",
                    "intent",
                    "agents",
                    "at",
                    "booking",
                    "eligibility",
                    "choices",
                    "ask_user",
                    "images",
                    "files",
                }
            ),
            "products": [public_product(p, pipeline.catalog) for p in pipeline.catalog.products_by_id(turn.products)],
        }
        for turn in state.history
    ]
    summary = state.summary(pipeline.catalog.pack.private_slots)
    language = state.replied_in or pipeline.catalog.language  # a reloaded page speaks the conversation's language
    return jsonify(session_id=state.session_id, history=turns, state=summary, language=language, **_with_people(state.session_id))


@bp.get("/sessions/<session_id>/messages")
def session_messages(session_id: str) -> Response:
    """The messages after `after` (seconds since the epoch), and who answers now: what a page
    polls while a person has the conversation, to show their replies as they come."""
    try:
        after = float(request.args.get("after", "0"))
    except ValueError:
        raise ApiError(400, "invalid_after", "after is a time in seconds since the epoch, such as 1764230400.5.") from None
    state = _session(session_id)
    messages = [t.model_dump(include={"role", "text", "at", "by"}) for t in state.history if t.at > after]
    return jsonify(messages=messages, **_with_people(state.session_id))


def _preferences(customer_id: str) -> PreferenceStore:
    if not CUSTOMER_ID.fullmatch(customer_id):
        raise ApiError(400, "invalid_customer_id", "A customer id is 1 to 64 letters, digits, '_' or '-'.")
    require_customer(customer_id)
    return PIPELINE.get().preferences


def _page_language(catalog: Catalog) -> str:
    """The language the page asked for (`lang`: one of the pack's codes), else the pack's own."""
    code = request.args.get("lang", catalog.language)
    if code not in catalog.own_pack.languages:
        known = ", ".join(catalog.own_pack.languages)
        raise ApiError(400, "unknown_language", f"lang is one of this business's languages: {known}.")
    return code


@bp.get("/about")
def about() -> Response:
    """What the chat page needs to present this business: its words in the language asked for
    (a reply in another language switches the page to it; until that language's translation
    lands, the pack's own words, and `lang` says so), examples, its page fact's choices
    (the values a chat request's page fact takes), the languages it speaks and the time zone its
    bookings are in."""
    catalog = PIPELINE.get().catalog
    code = _page_language(catalog)
    with speaking(code):
        pack = catalog.pack
        translated = code != catalog.language and code in catalog.versions
        tag = code if translated else pack.page.lang  # the words' own language: a code is a BCP-47 tag too
        page = pack.profile[pack.page_fact] if pack.page_fact else None
        booking = next((flow for flow in pack.flows.values() if flow.books), None)
        choices = [{"value": v, "label": choice} for v, choice in zip(page.values, page.choices, strict=True)] if page else []
        return jsonify(
            business=catalog.name,
            **{**pack.page.model_dump(), "lang": tag},
            languages=pack.languages,
            booking=booking.subject if booking else None,
            item=catalog.text["item"],
            timezone=catalog.business.timezone,
            profile_fact=pack.page_fact,  # the name the page sends its choice under, in a chat request's facts
            profile_choices=choices,
            employment=choices,  # the same, under the name pages written before customer facts were pack data read
        )


@bp.get("/customers/<customer_id>/preferences")
def get_preferences(customer_id: str) -> Response:
    """The customer's own token, or an operator's key."""
    return jsonify(_preferences(customer_id).get(customer_id).model_dump(exclude={"updated_at"}))


@bp.delete("/customers/<customer_id>/preferences")
def forget_preferences(customer_id: str) -> ResponseReturnValue:
    """The customer's own token, or an operator's key."""
    _preferences(customer_id).delete(customer_id)
    return "", 204


@bp.get("/openapi.json")
def openapi_document() -> Response:
    return jsonify(openapi.document(current_app, PIPELINE.get().catalog))


@bp.get("/health")
def health() -> Response:
    """Liveness: the process answers."""
    return jsonify(status="ok")


@bp.get("/ready")
def ready() -> ResponseReturnValue:
    """Readiness: the stores take writes (the sessions' store, and the bookings' database, which
    another process may hold write-locked) and the search index answers."""
    checks: dict[str, bool] = {}

    def stores() -> bool:
        return STORE.get().ping() and DATABASE.get().writable()

    for name, check in (("store", stores), ("index", PIPELINE.get().index.ready)):
        try:
            checks[name] = bool(check())
        except Exception:  # an unreachable store is a "no", not an error
            checks[name] = False
    if not all(checks.values()):
        return jsonify(error="not_ready", message="Not ready to answer yet.", checks=checks), 503, RETRY_LATER
    crew = PIPELINE.get().crew_mode  # the model may be down: the assistant still answers, offline
    llm = {"llm": {"breaker_open_s": round(crew.breaker.open_for(), 1)}} if crew else {}
    return jsonify(status="ready", checks=checks, **llm)


_EVENT = {
    "type": "object",
    "required": ["event", "data"],
    "description": "One Server-Sent Event; `data` is JSON",
    "properties": {"event": {"type": "string", "enum": ["agent", "chunk", "final", "error"]}, "data": {"type": "string"}},
}


def _fact_schema(fact: CustomerFact) -> dict[str, Any]:
    if fact.kind == "category":
        return {"type": "string", "enum": list(fact.values)}
    low, high = fact.range or (0, None)
    return {"type": "integer", "minimum": low, **({"maximum": high} if high is not None else {})}


def _contract(catalog: Catalog) -> Fragment:
    """These routes' part of /openapi.json: the chat request's page fact takes this pack's values."""
    request_schemas, chat_request = component(ChatRequest)
    pack = catalog.pack
    page = pack.profile[pack.page_fact].values if pack.page_fact else {}
    properties = request_schemas["ChatRequest"]["properties"]
    properties["facts"] = {  # the pack's own facts, each with the values it takes
        "type": "object",
        "description": "what the customer tells of themselves, by fact (GET /about profile_fact names the page's)",
        "additionalProperties": False,
        "properties": {name: _fact_schema(fact) for name, fact in pack.profile.items()},
    }
    properties["user_employment"] = {  # the page fact's compatibility field
        "anyOf": ([{"type": "string", "enum": sorted(page)}] if page else []) + [{"type": "null"}],
        "deprecated": True,
        "description": f"the same as facts.{pack.page_fact or '<page fact>'}; use facts",
    }
    response_schemas, chat_response = component(ChatResponse)
    chat_form = {
        "type": "object",
        "description": f"The message's fields, and its files in `file`; without words the query is {ATTACHMENTS_ONLY}",
        "properties": {
            "query": {"type": "string", "maxLength": 1000},
            "session_id": SESSION,
            "facts": {"type": "string", "description": "the facts, as a JSON object"},
            "user_employment": {"type": "string", "deprecated": True, "description": "use facts"},
            "mode": {"type": "string", "enum": ["offline", "crew"]},
            "attachments": {"type": "array", "items": FILE_ID, "maxItems": 10, "description": "ids of files uploaded before"},
            "file": {"type": "array", "items": BINARY, "maxItems": 10},
        },
    }
    chat_body = {
        "required": True,
        "content": {"application/json": {"schema": chat_request}, "multipart/form-data": {"schema": chat_form}},
    }
    customer = [
        {"name": "customer_id", "in": "path", "required": True, "schema": {"type": "string", "pattern": f"^{CUSTOMER_ID.pattern}$"}}
    ]
    status = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}
    text = {"type": "string"}
    choices = {
        "type": "array",
        "items": {"type": "object", "required": ["value", "label"], "properties": {"value": text, "label": text}},
    }
    labels = {
        "type": "object",
        "description": "the page's own words (pack `page.labels`, English by default); a {name} is filled in by the page",
        "required": list(Labels.model_fields),
        "properties": {key: {**text, "example": field.default} for key, field in Labels.model_fields.items()},
    }
    about = {
        "type": "object",
        "required": "business title placeholder welcome examples lang languages labels profile_choices timezone".split(),
        "properties": {
            "business": text,
            "title": text,
            "placeholder": text,
            "welcome": text,
            "examples": {"type": "array", "items": text},
            "lang": {"type": "string", "description": "the page's language (BCP-47): <html lang> and its dates"},
            "languages": {"type": "array", "items": text, "description": "the languages the business speaks: what lang takes"},
            "labels": labels,
            "booking": {"type": "string", "nullable": True},
            "item": text,
            "timezone": {"type": "string", "description": "the IANA time zone bookings are made in"},
            "profile_fact": {"type": "string", "nullable": True, "description": "the fact profile_choices set: its name in facts"},
            "profile_choices": choices,
            "employment": {**choices, "deprecated": True, "description": "the same as profile_choices"},
        },
    }
    conversation = [{"name": "session_id", "in": "path", "required": True, "schema": UUID}]
    paths = {
        "/chat": {
            "post": {
                "summary": "Answer one chat message",
                "requestBody": chat_body,
                "responses": {
                    "200": json_answer(chat_response, "The turn's answer"),
                    **errors(400, 401, 403, 404, 409, 413, 415, 429, 503),
                },
                "security": SIGNED_IN_OR_GUEST,
            }
        },
        "/chat/stream": {
            "post": {
                "summary": "Answer one chat message as Server-Sent Events (agent, chunk, final or error)",
                "requestBody": chat_body,
                "responses": {
                    "200": {
                        "description": "An event stream; its `final` event is the /chat answer",
                        "content": {"text/event-stream": {"schema": _EVENT}},
                    },
                    **errors(400, 401, 403, 404, 409, 413, 415, 429, 503),
                },
                "security": SIGNED_IN_OR_GUEST,
            }
        },
        "/sessions/{session_id}": {
            "get": {
                "summary": "A session's history and state, for a reloaded page",
                "parameters": conversation,
                "responses": {
                    "200": json_answer(
                        {
                            "type": "object",
                            "required": ["session_id", "history", "state"],
                            "properties": {
                                "session_id": {"type": "string"},
                                "history": {"type": "array", "items": {"type": "object"}},
                                "state": {"type": "object"},
                                "language": {"type": "string", "description": "the language its last reply was in"},
                            },
                        },
                        "The session",
                    ),
                    **errors(400, 401, 403, 404, 503),
                },
                "security": SIGNED_IN_OR_GUEST,
            }
        },
        "/sessions/{session_id}/messages": {
            "get": {
                "summary": "The messages after a time, and who answers now: what a page polls while a person has the conversation",
                "parameters": [
                    *conversation,
                    {
                        "name": "after",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "number"},
                        "description": "Seconds since the epoch",
                    },
                ],
                "responses": {
                    "200": json_answer(
                        {
                            "type": "object",
                            "required": ["messages", "handled_by"],
                            "properties": {
                                "messages": {"type": "array", "items": TURN},
                                "handled_by": {"type": "string", "enum": ["assistant", "human"]},
                                "operator": {"type": ["string", "null"]},
                            },
                        },
                        "The messages",
                    ),
                    **errors(400, 401, 403, 404, 503),
                },
                "security": SIGNED_IN_OR_GUEST,
            }
        },
        "/customers/{customer_id}/preferences": {
            "get": {
                "summary": "A customer's learned preferences",
                "parameters": customer,
                "responses": {"200": json_answer({"type": "object"}, "The preferences"), **errors(400, 401, 403, 503)},
                "security": CUSTOMER_OR_OPERATOR,
            },
            "delete": {
                "summary": "Forget a customer's preferences",
                "parameters": customer,
                "responses": {"204": {"description": "Forgotten"}, **errors(400, 401, 403, 503)},
                "security": CUSTOMER_OR_OPERATOR,
            },
        },
        "/health": {"get": {"summary": "Liveness", "responses": {"200": json_answer(status, "Alive")}}},
        "/about": {
            "get": {
                "summary": "The business this assistant serves, for the chat page, in one of its languages",
                "parameters": [
                    {
                        "name": "lang",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "string", "enum": list(catalog.own_pack.languages)},
                        "description": "the page's language: a chat reply's `language`; the business's own by default",
                    }
                ],
                "responses": {"200": json_answer(about, "Its title, words, examples and profile choices"), **errors(400)},
            }
        },
        "/ready": {
            "get": {
                "summary": "Readiness: store and index reachable",
                "responses": {"200": json_answer(status, "Ready"), **errors(503)},
            }
        },
    }
    return Fragment(paths, {**request_schemas, **response_schemas})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    openapi.describe(app, _contract)
