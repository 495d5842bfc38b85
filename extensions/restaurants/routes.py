"""POST /assistant: {user_id, instruction} in; the booking, a question back ({ask_user}) or {error, details} out.

A request with an `Idempotency-Key` is acted on once: the answer is kept in the sessions' store
(as a retried chat message's is) and a request with the same key gets it again.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from assistant.booking.notifications import NOTIFIER
from assistant.booking.reminders import REMINDERS
from assistant.dialogue.reply_language import written_language
from assistant.dialogue.sessions import LOCKS, STORE
from assistant.infra import replay
from assistant.infra.allowance import HOLDS, OverAllowance, allowances
from assistant.infra.config import SETTINGS
from assistant.infra.database import DATABASE
from assistant.infra.extensions import Slot
from assistant.pack.model import Catalog
from assistant.pack.texts import say
from assistant.pack.translations import speaking
from assistant.tools.retrieval import CATALOG
from assistant.web.errors import ApiError, json_object
from assistant.web.identity import caller
from assistant.web.openapi import SIGNED_IN_OR_GUEST, Fragment, component, describe, errors, json_answer
from assistant.web.ratelimit import LIMITER
from extensions.restaurants.data import setup_of
from extensions.restaurants.planner import Concierge, ServiceReader, load_members
from extensions.restaurants.services import ConciergeServices
from extensions.restaurants.tables import Tables

bp = Blueprint("concierge", __name__)
log = logging.getLogger("assistant.concierge")
CONCIERGE: Slot[Concierge] = Slot("concierge")
SERVICE_READER: Slot[ServiceReader] = Slot("service_reader")
TABLES: Slot[Tables] = Slot("tables")
IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")  # visible ASCII, as a UUID or any client's key is


class AssistantRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    user_id: StrictStr = Field(min_length=1, max_length=64, json_schema_extra={"pattern": r"\S"})
    instruction: StrictStr = Field(min_length=1, max_length=1000, json_schema_extra={"pattern": r"\S"})


@bp.post("/assistant")
def assistant() -> Response:
    concierge = CONCIERGE.get()
    body = json_object('{"user_id": "u1", "instruction": "..."}')
    asked = AssistantRequest.model_validate(body)
    member = caller().customer_id
    if member is not None and asked.user_id != member:
        raise ApiError(403, "identity_mismatch", "user_id must be the bearer token's subject.")
    LIMITER.get().check(request.remote_addr or "unknown", f"user:{asked.user_id}")
    scope = f"assistant:{'member' if member is not None else 'guest'}:{asked.user_id}"
    catalog = CATALOG.get()
    language = catalog.languages.asked_for(asked.instruction) or written_language(asked.instruction, catalog) or catalog.language
    with speaking(language):  # an instruction in Hindi is answered in Hindi
        try:
            answer = _once(
                scope, asked.instruction, lambda: concierge.handle(asked.user_id, asked.instruction, member=member is not None)
            )
        except OverAllowance as over:  # this client or user has had its codes or held tables for now
            why = say(
                catalog,
                "concierge_holds_capped" if over.kind == HOLDS else "codes_capped",
                minutes=math.ceil(over.retry_after_s / 60),
            )
            raise ApiError(429, f"too_many_{over.kind}s", why, headers={"Retry-After": str(over.retry_after_s)}) from over
    log.info("concierge turn: %s", next((k for k in ("ask_user", "error") if k in answer), "done"))
    return jsonify(answer)


def _once(scope: str, instruction: str, act: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`act`'s answer, or with an Idempotency-Key the one kept for it in the caller's `scope`. The
    key is held meanwhile, so copies sent at once act once; the key sent with another instruction
    is refused."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return act()
    if not IDEMPOTENCY_KEY.fullmatch(key):
        raise ApiError(400, "bad_idempotency_key", "Idempotency-Key must be 1-255 visible ASCII characters (a UUID will do).")
    with LOCKS.get().lock(f"idempotency:{scope}:{key}"):
        stored = STORE.get().recall(scope, key)
        if stored is not None:
            return dict(json.loads(replay.recalled(stored, instruction)))
        answer = act()
        STORE.get().remember(scope, key, replay.kept(instruction, json.dumps(answer)))
        return answer


def _contract(catalog: Catalog) -> Fragment:
    """POST /assistant's part of /openapi.json."""
    schemas, concierge_request = component(AssistantRequest)
    text = {"type": "string"}
    booked = ("restaurant", "reservation", "notification")
    concierge_answer = {  # exactly one of: the booking, a question back, what went wrong
        "oneOf": [
            {
                "type": "object",
                "description": "booked: these keys and no others (reminder when one was asked for)",
                "required": list(booked),
                "properties": {key: {"type": "object"} for key in (*booked, "reminder")},
                "additionalProperties": False,
            },
            {"type": "object", "required": ["ask_user"], "properties": {"ask_user": text}, "additionalProperties": False},
            {
                "type": "object",
                "required": ["error", "details"],
                "properties": {"error": text, "details": text},
                "additionalProperties": False,
            },
        ]
    }
    paths = {
        "/assistant": {
            "post": {
                "summary": "The restaurant concierge: one instruction in; a booked table, a message and a reminder out",
                "requestBody": {"required": True, "content": {"application/json": {"schema": concierge_request}}},
                "parameters": [
                    {
                        "name": "Idempotency-Key",
                        "in": "header",
                        "required": False,
                        "description": "The same key again gets the answer kept for it, not a second booking",
                        "schema": {"type": "string", "pattern": "^[!-~]{1,255}$"},
                    }
                ],
                "responses": {
                    "200": json_answer(concierge_answer, "The booking, a question (ask_user), or {error, details}"),
                    **errors(400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
                },
                "security": SIGNED_IN_OR_GUEST,
            }
        }
    }
    return Fragment(paths, schemas)


def init_app(app: Flask) -> None:
    """POST /assistant and the concierge behind it, the reader of its service schema and its
    tables, which the chat reads messages and books with too."""
    app.register_blueprint(bp)
    describe(app, _contract)
    catalog = CATALOG.get(app)
    setup = setup_of(catalog)
    pack = SETTINGS.get(app).pack_dir
    reader = SERVICE_READER.put(app, ServiceReader(catalog, _json(pack / setup.service_schema)))
    settings = SETTINGS.get(app)
    calendar, share, backoff = _json(pack / setup.calendar), settings.unconfirmed_hold_share, settings.service_backoff_max_s
    services = ConciergeServices(catalog, calendar, DATABASE.get(app), NOTIFIER.get(app), REMINDERS.get(app), share, backoff)
    tables = TABLES.put(app, Tables(catalog, services))
    members = load_members(pack / setup.members)
    CONCIERGE.put(app, Concierge(catalog, tables, DATABASE.get(app), LOCKS.get(app), members, reader, allowances(app)))


def _json(path: Path) -> Any:
    """A pack file's JSON."""
    return json.loads(path.read_text(encoding="utf-8"))
