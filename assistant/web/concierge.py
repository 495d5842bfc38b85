"""POST /assistant: the seed's one-instruction concierge contract (seed 001, sections 3.1 and 5.6)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from assistant.booking.notifications import NOTIFIER
from assistant.booking.reminders import REMINDERS
from assistant.concierge.planner import Concierge, ServiceReader, load_members
from assistant.concierge.services import ConciergeServices
from assistant.concierge.tables import Tables
from assistant.dialogue.sessions import LOCKS
from assistant.infra.config import SETTINGS, bookings_file
from assistant.infra.extensions import Slot
from assistant.tools.retrieval import CATALOG
from assistant.web.errors import ApiError, json_object
from assistant.web.ratelimit import LIMITER

bp = Blueprint("concierge", __name__)
log = logging.getLogger("assistant.concierge")
CONCIERGE: Slot[Concierge] = Slot("concierge")
SERVICE_READER: Slot[ServiceReader] = Slot("service_reader")
TABLES: Slot[Tables] = Slot("tables")


class AssistantRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    user_id: StrictStr = Field(min_length=1, max_length=64, json_schema_extra={"pattern": r"\S"})
    instruction: StrictStr = Field(min_length=1, max_length=1000, json_schema_extra={"pattern": r"\S"})


@bp.post("/assistant")
def assistant() -> Response:
    concierge = CONCIERGE.find()
    if concierge is None:
        raise ApiError(
            404,
            "no_concierge",
            "This assistant's pack has no concierge: a pack declares one in pack.yaml (DOMAIN=restaurants has one).",
        )
    body = json_object('{"user_id": "u1", "instruction": "..."}')
    asked = AssistantRequest.model_validate(body)
    LIMITER.get().check(request.remote_addr or "unknown", f"user:{asked.user_id}")
    answer = concierge.handle(asked.user_id, asked.instruction)
    log.info("concierge turn: %s", next((k for k in ("ask_user", "error") if k in answer), "done"))
    return jsonify(answer)


def init_app(app: Flask) -> None:
    """POST /assistant, and for a pack with a concierge (the restaurants') the concierge behind it,
    the reader of its service schema and its tables, which the chat reads messages and books with too."""
    app.register_blueprint(bp)
    catalog = CATALOG.get(app)
    setup = catalog.pack.concierge
    if setup is None:
        return
    pack = SETTINGS.get(app).pack_dir
    reader = SERVICE_READER.put(app, ServiceReader(catalog, _json(pack / setup.service_schema)))
    services = ConciergeServices(catalog, _json(pack / setup.calendar), bookings_file(app), NOTIFIER.get(app), REMINDERS.get(app))
    tables = TABLES.put(app, Tables(catalog, services))
    CONCIERGE.put(app, Concierge(catalog, tables, bookings_file(app), LOCKS.get(app), load_members(pack / setup.members), reader))


def _json(path: Path) -> Any:
    """A pack file's JSON."""
    return json.loads(path.read_text(encoding="utf-8"))
