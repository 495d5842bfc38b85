"""Every error leaves as JSON `{"error": code, "message": text}`; none shows a stack trace."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import psycopg
from botocore.exceptions import ConnectionError as S3ConnectionError
from botocore.exceptions import HTTPClientError as S3HTTPError
from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue
from psycopg_pool import PoolTimeout
from pydantic import ValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from werkzeug.exceptions import HTTPException

from assistant.dialogue.sessions import SessionBusy, VersionConflict
from assistant.dialogue.state import NotYourSession
from assistant.infra.replay import KeyReused

log = logging.getLogger(__name__)
NOT_YOURS_MESSAGE = "This conversation belongs to someone else: start a new one."
BUSY_MESSAGE = "Another message of this conversation is still being answered. Please try again in a moment."
UNAVAILABLE = {"error": "store_unavailable", "message": "Our storage is busy or unreachable. Please try again in a few seconds."}
KEY_REUSED = {"error": "idempotency_key_reused", "message": "This key came before with another message: send a new one."}
RETRY_LATER = {"Retry-After": "5"}  # a store fault: time for a lock holder to finish or Redis to come back


def store_unavailable(exc: BaseException) -> bool:
    """A store that cannot answer now but should soon (503, not 500): a SQLite database another
    writer held locked past the busy timeout, PostgreSQL unreachable (or its pool exhausted, or a
    deadlock it broke), Redis unreachable, or the attachments' S3 endpoint unreachable or cut off
    mid-answer (one S3 answered with an error is ours). Any other database error is ours."""
    if isinstance(exc, psycopg.OperationalError | PoolTimeout):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        code = getattr(exc, "sqlite_errorcode", 0)  # set when SQLite raised it; extended codes carry more bits
        return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return isinstance(exc, RedisConnectionError | RedisTimeoutError | S3ConnectionError | S3HTTPError)


class ApiError(Exception):
    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None, extra: dict[str, Any] | None = None
    ):
        """`extra`: more fields of the error's JSON for clients to act on (who holds a conversation)."""
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}
        self.extra = extra or {}


def json_object(example: str) -> dict[str, Any]:
    """The request's body as a JSON object, or a 400 saying what one looks like (`example`). JSON
    nested deeper than the parser's recursion allows is bad input too, not a server fault.
    Only a body declared application/json: any other type makes a CORS "simple request", which
    any web page could have its visitors' browsers send."""
    if request.mimetype != "application/json":
        raise ApiError(415, "unsupported_media_type", "Send the body as JSON with Content-Type: application/json.")
    try:
        body = request.get_json(silent=True)
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
        return jsonify(**exc.extra, error=exc.code, message=exc.message), exc.status, exc.headers

    @app.errorhandler(ValidationError)
    def invalid(exc: ValidationError) -> ResponseReturnValue:
        return jsonify(error="invalid_request", message=_describe(exc)), 400

    @app.errorhandler(SessionBusy)
    @app.errorhandler(VersionConflict)
    def busy(exc: Exception) -> ResponseReturnValue:
        return jsonify(error="session_busy", message=BUSY_MESSAGE), 409, {"Retry-After": "1"}

    @app.errorhandler(NotYourSession)
    def not_yours(exc: NotYourSession) -> ResponseReturnValue:
        return jsonify(error="forbidden", message=NOT_YOURS_MESSAGE), 403

    @app.errorhandler(KeyReused)
    def key_reused(exc: KeyReused) -> ResponseReturnValue:
        return jsonify(KEY_REUSED), 422

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        code = (exc.name or "error").lower().replace(" ", "_")
        allow = {key: value for key, value in exc.get_headers() if key == "Allow"}  # 405 names what is allowed
        return jsonify(error=code, message=exc.description), exc.code or 500, allow

    @app.errorhandler(sqlite3.OperationalError)
    @app.errorhandler(psycopg.OperationalError)
    @app.errorhandler(PoolTimeout)
    @app.errorhandler(RedisConnectionError)
    @app.errorhandler(RedisTimeoutError)
    @app.errorhandler(S3ConnectionError)
    @app.errorhandler(S3HTTPError)
    def unavailable(exc: Exception) -> ResponseReturnValue:
        if not store_unavailable(exc):
            return unexpected(exc)
        log.warning("store unavailable: %s", exc)
        return jsonify(UNAVAILABLE), 503, RETRY_LATER

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> ResponseReturnValue:
        log.exception("unhandled error")
        return jsonify(error="internal_error", message="Something went wrong on our side."), 500
