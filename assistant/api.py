"""HTTP endpoints for the chat: POST /chat and GET /health."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from assistant.errors import ApiError
from assistant.schemas import ChatRequest

bp = Blueprint("api", __name__)


@bp.post("/chat")
def chat():
    # force=True: the seed's fetch client posts JSON without a Content-Type header.
    body = request.get_json(force=True, silent=True)
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_json", "The body must be a JSON object such as {\"query\": \"hi\"}.")
    chat_request = ChatRequest.model_validate(body)
    response = current_app.extensions["pipeline"].run(chat_request)
    return jsonify(response.model_dump())


@bp.get("/health")
def health():
    return jsonify(status="ok")
