"""HTTP endpoints: POST /chat, a customer's preferences, GET /health."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from assistant.errors import ApiError
from assistant.schemas import CUSTOMER_ID, ChatRequest

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


def _preferences(customer_id: str):
    if not CUSTOMER_ID.fullmatch(customer_id):
        raise ApiError(400, "invalid_customer_id", "A customer id is 1 to 64 letters, digits, '_' or '-'.")
    return current_app.extensions["pipeline"].preferences


@bp.get("/customers/<customer_id>/preferences")
def get_preferences(customer_id: str):
    return jsonify(_preferences(customer_id).get(customer_id).model_dump(exclude={"updated_at"}))


@bp.delete("/customers/<customer_id>/preferences")
def forget_preferences(customer_id: str):
    _preferences(customer_id).delete(customer_id)
    return "", 204


@bp.get("/health")
def health():
    return jsonify(status="ok")
