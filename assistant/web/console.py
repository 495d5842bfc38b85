"""The operator console: the page at /console, and the JSON API under /console/api/ it works
through, which a business's own help-desk tool can use too. Every call needs an operator's
credential (identity.py); the page itself holds no data.

An operator sees the queue, opens a conversation (transcript, state, goal audit), takes it
(the assistant falls silent in it), replies as themselves, and hands it back with a note. The
panic switch sends every new message to people. What nobody could answer is listed grouped by
meaning, and exported as CSV.
"""

from __future__ import annotations

import csv
import io
import logging
import time
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from assistant.dialogue.sessions import amend
from assistant.dialogue.state import Turn
from assistant.dialogue.turns import session_id as canonical_session_id
from assistant.handover.clusters import grouped
from assistant.handover.store import HANDOVERS, REASONS, Handover, HandoverStore, NotHeld, Panic, Taken
from assistant.infra.collectors import collect
from assistant.pack.model import Catalog
from assistant.web.errors import ApiError, json_object
from assistant.web.identity import require_operator
from assistant.web.openapi import OPERATOR, TURN, UUID, Fragment, describe, errors, json_answer
from assistant.web.schemas import OperatorReply, ReleaseNote
from crew_pipeline import PIPELINE

page = Blueprint("console_page", __name__)
bp = Blueprint("console", __name__, url_prefix="/console/api")
log = logging.getLogger("assistant.console")


@page.get("/console")
def console_page() -> Response:
    return current_app.send_static_file("console.html")


@bp.before_request
def operators_only() -> None:
    g.operator = require_operator()


@bp.get("/whoami")
def whoami() -> Response:
    return jsonify(operator=g.operator)


@bp.get("/queue")
def queue() -> Response:
    """Every conversation with people, the longest waiting first, and the panic switch."""
    store = HANDOVERS.get()
    return jsonify(conversations=[_public(h) for h in store.queue()], panic=_panic(store.panic()))


@bp.get("/conversations/<session_id>")
def conversation(session_id: str) -> Response:
    """Its whole transcript, its state (filters, items on screen, goals, collected details) and
    the audit of its goals' transitions."""
    session_id = _session_id(session_id)
    pipeline = PIPELINE.get()
    state = pipeline.store.load(session_id)
    held = HANDOVERS.get().current(session_id)
    if state is None:
        raise ApiError(404, "unknown_session", "No conversation with that id.")
    catalog = pipeline.catalog
    return jsonify(
        session_id=session_id,
        pack=pipeline.people.pack,
        handover=_public(held) if held else None,
        transcript=[_turn(t) for t in state.history],
        state={
            **state.summary(catalog.pack.private_slots),
            "shown": [p.name for p in catalog.products_by_id(state.shown)],
            "profile": state.profile,
            "pending": state.pending,
        },
        audit=[t.model_dump() for t in state.goals.transitions],
    )


@bp.post("/conversations/<session_id>/take")
def take(session_id: str) -> Response:
    """The assistant falls silent in it; a conversation another operator has is theirs (409)."""
    session_id = _session_id(session_id)
    try:
        held = HANDOVERS.get().take(session_id, g.operator)
    except Taken as taken:
        raise ApiError(409, "taken", f"{taken.operator} has this conversation.", extra={"operator": taken.operator}) from None
    except NotHeld:
        raise ApiError(404, "not_with_people", "That conversation is not waiting for a person.") from None
    log.info("conversation taken", extra={"session": session_id, "operator": g.operator})
    return jsonify(_public(held))


@bp.post("/conversations/<session_id>/reply")
def reply(session_id: str) -> Response:
    """The operator's message, in the customer's conversation under their name."""
    session_id = _session_id(session_id)
    text = OperatorReply.model_validate(json_object('{"text": "Hello, I can help with that."}')).text
    _held_by_caller(session_id)
    said = Turn(role="operator", text=text, by=g.operator)
    pipeline = PIPELINE.get()
    if (
        amend(pipeline.store, pipeline.locks, session_id, lambda state: state.remember(said, pipeline.settings.history_limit))
        is None
    ):
        raise ApiError(404, "unknown_session", "That conversation has expired.")
    return jsonify(message=_turn(said))


@bp.post("/conversations/<session_id>/release")
def release(session_id: str) -> Response:
    """Back to the assistant, with a note of what the person did; the state stays as it is."""
    session_id = _session_id(session_id)
    body = json_object('{"note": "Answered the fee question."}') if request.content_length else {}
    note = ReleaseNote.model_validate(body).note or ""
    try:
        HANDOVERS.get().release(session_id, g.operator, note)
    except NotHeld:
        held = HANDOVERS.get().current(session_id)
        if held is None:
            raise ApiError(404, "not_with_people", "That conversation is with the assistant already.") from None
        raise ApiError(409, "taken", f"{held.operator} has this conversation.", extra={"operator": held.operator}) from None
    log.info("conversation released", extra={"session": session_id, "operator": g.operator})
    return jsonify(session_id=session_id, handled_by="assistant")


@bp.get("/panic")
def panic() -> Response:
    return _panic_report(HANDOVERS.get())


@bp.post("/panic")
def switch_panic() -> Response:
    """On: every new message gets a holding reply and joins the queue, until it is switched off."""
    on = json_object('{"on": true}').get("on")
    if not isinstance(on, bool):
        raise ApiError(400, "invalid_switch", 'Send {"on": true} or {"on": false}.')
    store = HANDOVERS.get()
    store.set_panic(on, g.operator)
    log.warning("panic switch", extra={"on": on, "operator": g.operator})
    return _panic_report(store)


@bp.get("/unanswered")
def unanswered() -> Response:
    """What customers asked that nobody could answer, grouped by meaning, the most asked first."""
    return jsonify(groups=[_group(group.public()) for group in grouped(HANDOVERS.get().unanswered())])


FORMULA_STARTS = tuple("=+-@\t\r＝＋－＠")  # what a spreadsheet reads a formula from, full-width forms too


def _as_text(cell: str) -> str:
    """A cell a spreadsheet shows as written: a leading quote keeps a formula's start from running."""
    return f"'{cell}" if cell.startswith(FORMULA_STARTS) else cell


@bp.get("/unanswered.csv")
def unanswered_csv() -> Response:
    """Customers' words go into a spreadsheet, which would run a cell that starts like a formula:
    every cell is quoted, and one that starts like a formula is text (OWASP, CSV injection)."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    writer.writerow(["count", "example", "reasons", "last_asked"])
    for group in grouped(HANDOVERS.get().unanswered()):
        row = _group(group.public())
        reasons = "; ".join(f"{k}: {v}" for k, v in row["reasons"].items())
        writer.writerow([_as_text(str(cell)) for cell in (row["count"], row["example"], reasons, row["last_at"])])
    return Response(out.getvalue(), mimetype="text/csv", headers={"Content-Disposition": 'attachment; filename="unanswered.csv"'})


def _session_id(value: str) -> str:
    try:
        return canonical_session_id(value)
    except ValueError:
        raise ApiError(400, "invalid_session_id", "A session id is a random UUID.") from None


def _held_by_caller(session_id: str) -> Handover:
    try:
        return HANDOVERS.get().holds(session_id, g.operator)
    except NotHeld:
        raise ApiError(409, "not_yours", "Take the conversation over before replying in it.") from None


def _public(held: Handover) -> dict[str, Any]:
    return {
        "session_id": held.session_id,
        "pack": held.pack,
        "reason": held.reason,
        "reason_text": REASONS.get(held.reason, held.reason),
        "status": held.status,
        "operator": held.operator,
        "since": _iso(held.since),
        "waiting_s": int(time.time() - held.since),
        "summary": held.summary,
    }


def _turn(turn: Turn) -> dict[str, Any]:
    return turn.model_dump(include={"role", "text", "at", "by", "intent"})


def _panic(state: Panic) -> dict[str, Any]:
    return {"on": state.on, "by": state.by, "at": _iso(state.at) if state.at else None}


def _panic_report(store: HandoverStore) -> Response:
    return jsonify(**_panic(store.panic()), log=[_panic(entry) for entry in store.panic_log()])


def _group(group: dict[str, Any]) -> dict[str, Any]:
    return {**group, "last_at": _iso(group["last_at"])}


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")


class HandoverMetrics:
    """Queue length, the longest wait, hand-overs by reason and conversations people handled,
    read from the shared store at each scrape, so every worker reports the same numbers."""

    def __init__(self, store: HandoverStore):
        self.store = store

    def collect(self) -> list[Metric]:
        held = self.store.queue()
        by_reason, handled = self.store.counts()
        now = time.time()
        waiting = GaugeMetricFamily("assistant_handover_queue", "Conversations with people now", labels=["status"])
        for status in ("waiting", "taken"):
            waiting.add_metric([status], sum(h.status == status for h in held))
        longest = GaugeMetricFamily("assistant_handover_wait_seconds", "The longest wait of a conversation nobody took yet")
        longest.add_metric([], max((now - h.since for h in held if h.status == "waiting"), default=0.0))
        reasons = CounterMetricFamily("assistant_handovers", "Conversations handed to people", labels=["reason"])
        for reason, count in by_reason.items():
            reasons.add_metric([reason], count)
        people = CounterMetricFamily("assistant_handled_by_people", "Hand-overs an operator took")
        people.add_metric([], handled)
        return [waiting, longest, reasons, people]


def _contract(catalog: Catalog) -> Fragment:
    """The console's part of /openapi.json: its API is one a business's own help-desk tool can use too."""
    handover = {
        "type": "object",
        "required": ["session_id", "reason", "status", "since", "waiting_s", "summary"],
        "properties": {
            "session_id": UUID,
            "pack": {"type": "string"},
            "reason": {"type": "string", "enum": list(REASONS)},
            "reason_text": {"type": "string"},
            "status": {"type": "string", "enum": ["waiting", "taken"]},
            "operator": {"type": ["string", "null"]},
            "since": {"type": "string", "format": "date-time"},
            "waiting_s": {"type": "integer"},
            "summary": {
                "type": "string",
                "description": "The goal and how far it got, the items discussed, the last question (masked)",
            },
        },
    }
    switch: dict[str, Any] = {"on": {"type": "boolean"}, "by": {"type": ["string", "null"]}, "at": {"type": ["string", "null"]}}
    panic = {"type": "object", "required": ["on"], "properties": switch}
    panic_report = {**panic, "properties": {**switch, "log": {"type": "array", "items": panic}}}
    conversation = [{"name": "session_id", "in": "path", "required": True, "schema": UUID}]

    def body(name: str, schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
        return {
            "required": required,
            "content": {
                "application/json": {
                    "schema": {"type": "object", "required": [name] if required else [], "properties": {name: schema}}
                }
            },
        }

    def operator(summary: str, ok: dict[str, Any], *statuses: int, **more: Any) -> dict[str, Any]:
        return {"summary": summary, "responses": {"200": ok, **errors(401, 403, *statuses, 503)}, "security": OPERATOR, **more}

    paths = {
        "/console": {
            "get": {
                "summary": "The operator console's page (it holds no data: it signs in and calls /console/api/)",
                "responses": {"200": {"description": "The page", "content": {"text/html": {"schema": {"type": "string"}}}}},
            }
        },
        "/console/api/whoami": {
            "get": operator(
                "The operator the credential names",
                json_answer({"type": "object", "properties": {"operator": {"type": "string"}}}, "Them"),
            )
        },
        "/console/api/queue": {
            "get": operator(
                "Every conversation with people, the longest waiting first, and the panic switch",
                json_answer(
                    {"type": "object", "properties": {"conversations": {"type": "array", "items": handover}, "panic": panic}},
                    "The queue",
                ),
            )
        },
        "/console/api/conversations/{session_id}": {
            "get": operator(
                "One conversation: its transcript, state and goal audit",
                json_answer(
                    {
                        "type": "object",
                        "properties": {
                            "session_id": UUID,
                            "pack": {"type": "string"},
                            "handover": {"oneOf": [handover, {"type": "null"}]},
                            "transcript": {"type": "array", "items": TURN},
                            "state": {"type": "object"},
                            "audit": {"type": "array", "items": {"type": "object"}},
                        },
                    },
                    "The conversation",
                ),
                400,
                404,
                parameters=conversation,
            )
        },
        "/console/api/conversations/{session_id}/take": {
            "post": operator(
                "Take the conversation over: the assistant falls silent in it (409 names who has it)",
                json_answer(handover, "Yours"),
                400,
                404,
                409,
                parameters=conversation,
            )
        },
        "/console/api/conversations/{session_id}/reply": {
            "post": operator(
                "Say something to the customer, under your name (you must have taken it over)",
                json_answer({"type": "object", "properties": {"message": TURN}}, "Said"),
                400,
                404,
                409,
                415,
                parameters=conversation,
                requestBody=body("text", {"type": "string", "minLength": 1, "maxLength": 2000}),
            )
        },
        "/console/api/conversations/{session_id}/release": {
            "post": operator(
                "Hand the conversation back to the assistant, with a note of what you did",
                json_answer({"type": "object", "properties": {"session_id": UUID, "handled_by": {"type": "string"}}}, "Back"),
                400,
                404,
                409,
                415,
                parameters=conversation,
                requestBody=body("note", {"type": "string", "maxLength": 2000}, required=False),
            )
        },
        "/console/api/panic": {
            "get": operator("The panic switch and its log", json_answer(panic_report, "The switch")),
            "post": operator(
                "Switch panic on (every new message gets a holding reply and joins the queue) or off",
                json_answer(panic_report, "The switch"),
                400,
                415,
                requestBody=body("on", {"type": "boolean"}),
            ),
        },
        "/console/api/unanswered": {
            "get": operator(
                "What customers asked that nobody could answer, grouped by meaning, most asked first (masked)",
                json_answer(
                    {
                        "type": "object",
                        "properties": {
                            "groups": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "count": {"type": "integer"},
                                        "example": {"type": "string"},
                                        "reasons": {"type": "object", "additionalProperties": {"type": "integer"}},
                                        "last_at": {"type": "string", "format": "date-time"},
                                    },
                                },
                            }
                        },
                    },
                    "The groups",
                ),
            )
        },
        "/console/api/unanswered.csv": {
            "get": operator(
                "The same as CSV: count, example, reasons, last_asked",
                {"description": "CSV", "content": {"text/csv": {"schema": {"type": "string"}}}},
            )
        },
    }
    return Fragment(paths)


def init_app(app: Flask) -> None:
    app.register_blueprint(page)
    app.register_blueprint(bp)
    describe(app, _contract)
    collect(app, HandoverMetrics(HANDOVERS.get(app)))
