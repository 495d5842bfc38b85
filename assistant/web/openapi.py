"""The OpenAPI document at /openapi.json, assembled from the fragments each web module declares
beside its routes (`describe` in its init_app), so a route and its contract change together.

This module holds what the fragments share: the pieces of a response, the error answers, the
credentials, and the components made from the same pydantic models that validate requests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask
from pydantic import BaseModel

from assistant.attachments.store import ATTACHMENT_ID
from assistant.dialogue.turns import SESSION_ID_PATTERN
from assistant.pack.model import Catalog

_REF = "#/components/schemas/{model}"
_ERROR = {"$ref": "#/components/schemas/Error"}
_FRAGMENTS = "openapi_fragments"  # app.extensions key: the builders of the modules registered on the app
UUID = {"type": "string", "format": "uuid"}
SIGNED_IN_OR_GUEST: list[dict[str, list[str]]] = [{"customerToken": []}, {}]  # a guest needs no credential
CUSTOMER_OR_OPERATOR: list[dict[str, list[str]]] = [{"customerToken": []}, {"operatorKey": []}]
OPERATOR: list[dict[str, list[str]]] = [{"operatorKey": []}]  # or a token whose role is operator
BINARY = {"type": "string", "format": "binary"}
FILE_ID = {"type": "string", "pattern": f"^{ATTACHMENT_ID.pattern}$"}
SESSION = {"type": "string", "pattern": SESSION_ID_PATTERN}
# A message of a conversation, as the page's poll (api.py) and the operator console show it.
TURN = {
    "type": "object",
    "required": ["role", "text", "at"],
    "properties": {
        "role": {"type": "string", "enum": ["user", "assistant", "operator"]},
        "text": {"type": "string"},
        "at": {"type": "number", "description": "Seconds since the epoch"},
        "by": {"type": ["string", "null"], "description": "The operator's name"},
    },
}
# Under gunicorn (gunicorn.conf.py), before the app sees a request; the answers are JSON errors too.
_LIMITS = (
    "Every error is JSON: `{error, message}`. Under gunicorn a request line over 4094 bytes gets 414, "
    "more than 100 headers or a header over 8190 bytes gets 431, and a body over MAX_REQUEST_BYTES "
    "(chunked or not) gets 413; a multipart body with files may be larger by ATTACHMENT_MAX_BYTES a file. "
    "A JSON body must be sent as `Content-Type: application/json` (else 415); /chat and /attachments also take "
    "`multipart/form-data`. Files are checked by their content: a JPEG, PNG or HEIC photo (its metadata removed) or a PDF."
)


@dataclass(frozen=True)
class Fragment:
    """One module's part of the document: its paths, and the component schemas they refer to."""

    paths: dict[str, Any]
    schemas: dict[str, Any] = field(default_factory=dict)


Builder = Callable[[Catalog], Fragment]  # a fragment as the app's domain pack serves it


def describe(app: Flask, build: Builder) -> None:
    """Adds a module's fragment to the app's document; called where the module registers its routes."""
    app.extensions.setdefault(_FRAGMENTS, []).append(build)


def json_answer(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def errors(*statuses: int) -> dict[str, Any]:
    """The error answers of a route; one that checks credentials (401) also refuses, for a while,
    a client whose credentials were refused too often (429)."""
    if 401 in statuses and 429 not in statuses:
        statuses = (*statuses, 429)
    words = {
        400: "Bad input; nothing changed",
        401: "The credential is missing or not valid",
        403: "The credential does not open this customer's data or conversation",
        404: "Not found (a file the message references: not sent in this conversation)",
        409: "The session is busy, retry; or (a file) the conversation is not asking for files now",
        413: "The body is too large",
        415: "Unsupported media type",
        422: "The Idempotency-Key was sent before with another request",
        429: "Too many messages, codes or refused credentials from this client; see Retry-After",
        503: "Not ready, or a store is busy or unreachable (nothing changed); see Retry-After",
    }
    retry_after = {"Retry-After": {"description": "Seconds to wait before retrying", "schema": {"type": "integer"}}}
    return {str(s): json_answer(_ERROR, words[s]) | ({"headers": retry_after} if s in (409, 429, 503) else {}) for s in statuses}


def component(model: type[BaseModel]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A model's schema and those it nests, as components, and the reference to it."""
    schema = model.model_json_schema(ref_template=_REF)
    defs = schema.pop("$defs", {})
    return {model.__name__: schema, **defs}, {"$ref": _REF.format(model=model.__name__)}


def document(app: Flask, catalog: Catalog) -> dict[str, Any]:
    """The API as this app and its domain pack serve it (its page fact's values, its business's name)."""
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for build in app.extensions.get(_FRAGMENTS, []):
        fragment = build(catalog)
        paths.update(fragment.paths)
        schemas.update(fragment.schemas)
    return {
        "openapi": "3.0.3",
        "info": {
            "title": f"{catalog.name} assistant",
            "version": "1.0.0",
            "description": f"A multi-agent customer assistant; offline by default. {_LIMITS}",
        },
        "paths": paths,
        "components": {
            "securitySchemes": {
                "customerToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "A customer's token from the business's login (HS256 or RS256); `sub` is the customer id",
                },
                "operatorKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-API-Key",
                    "description": "An operator's API key (a token whose `role` is operator opens the same)",
                },
            },
            "schemas": {
                **schemas,
                "Error": {
                    "type": "object",
                    "required": ["error", "message"],
                    "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
                },
            },
        },
    }
