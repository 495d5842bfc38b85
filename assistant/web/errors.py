"""Every error leaves as JSON `{"error": code, "message": text}`; none shows a stack trace."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException

from assistant.dialogue.sessions import SessionBusy, VersionConflict

log = logging.getLogger(__name__)
BUSY_MESSAGE = "Another message of this conversation is still being answered. Please try again in a moment."


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


def json_object(example: str) -> dict[str, Any]:
    """The request's body as a JSON object, or a 400 saying what one looks like (`example`). JSON
    nested deeper than the parser's recursion allows is bad input too, not a server fault.
    force=True: the seed's fetch client posts JSON without a Content-Type header."""
    try:
        body = request.get_json(force=True, silent=True)
    except RecursionError:
        raise ApiError(400, "invalid_json", "The body is nested too deeply.") from None
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_json", f"The body must be a JSON object such as {example}.")
    return body


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        field = ".".join(str(p) for p in error["loc"]) or "body"
        message = error["msg"].removeprefix("Value error, ")
        parts.append(f"{field}: {message}")
    return "; ".join(parts)


def init_app(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> ResponseReturnValue:
        return jsonify(error=exc.code, message=exc.message), exc.status, exc.headers

    @app.errorhandler(ValidationError)
    def invalid(exc: ValidationError) -> ResponseReturnValue:
        return jsonify(error="invalid_request", message=_describe(exc)), 400

    @app.errorhandler(SessionBusy)
    @app.errorhandler(VersionConflict)
    def busy(exc: Exception) -> ResponseReturnValue:
        return jsonify(error="session_busy", message=BUSY_MESSAGE), 409, {"Retry-After": "1"}

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        code = (exc.name or "error").lower().replace(" ", "_")
        allow = {key: value for key, value in exc.get_headers() if key == "Allow"}  # 405 names what is allowed
        return jsonify(error=code, message=exc.description), exc.code or 500, allow

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> ResponseReturnValue:
        log.exception("unhandled error")
        return jsonify(error="internal_error", message="Something went wrong on our side."), 500
