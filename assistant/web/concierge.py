"""POST /assistant: the seed's one-instruction concierge contract (seed 001, sections 3.1 and 5.6)."""

from __future__ import annotations

import logging

from flask import Blueprint, current_app, jsonify, request
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from assistant.web.errors import ApiError

bp = Blueprint("concierge", __name__)
log = logging.getLogger("assistant.concierge")


class AssistantRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    user_id: StrictStr = Field(min_length=1, max_length=64, json_schema_extra={"pattern": r"\S"})
    instruction: StrictStr = Field(min_length=1, max_length=1000, json_schema_extra={"pattern": r"\S"})


@bp.post("/assistant")
def assistant():
    concierge = current_app.extensions.get("concierge")
    if concierge is None:
        raise ApiError(404, "no_concierge", "This assistant has no restaurant concierge: start it with DOMAIN=restaurants.")
    body = request.get_json(force=True, silent=True)
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_json", 'The body must be a JSON object such as {"user_id": "u1", "instruction": "..."}.')
    asked = AssistantRequest.model_validate(body)
    current_app.extensions["rate_limiter"].check(request.remote_addr or "unknown", f"user:{asked.user_id}")
    answer = concierge.handle(asked.user_id, asked.instruction)
    log.info("concierge turn: %s", next((k for k in ("ask_user", "error") if k in answer), "done"))
    return jsonify(answer)
