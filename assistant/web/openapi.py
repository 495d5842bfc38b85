"""The OpenAPI document at /openapi.json, built from the same pydantic models that validate requests."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.attachments.store import ATTACHMENT_ID
from assistant.cases.store import STATUSES
from assistant.dialogue.turns import CUSTOMER_ID, SESSION_ID_PATTERN, ChatRequest, ChatResponse
from assistant.handover.store import REASONS
from assistant.pack.model import Catalog, Labels
from assistant.web.concierge import AssistantRequest
from assistant.web.schemas import ATTACHMENTS_ONLY

_REF = "#/components/schemas/{model}"
_ERROR = {"$ref": "#/components/schemas/Error"}
_UUID = {"type": "string", "format": "uuid"}
_SIGNED_IN_OR_GUEST: list[dict[str, list[str]]] = [{"customerToken": []}, {}]  # a guest needs no credential
_CUSTOMER_OR_OPERATOR: list[dict[str, list[str]]] = [{"customerToken": []}, {"operatorKey": []}]
_OPERATOR: list[dict[str, list[str]]] = [{"operatorKey": []}]  # or a token whose role is operator
_BINARY = {"type": "string", "format": "binary"}
_FILE_ID = {"type": "string", "pattern": f"^{ATTACHMENT_ID.pattern}$"}
_SESSION = {"type": "string", "pattern": SESSION_ID_PATTERN}
# Under gunicorn (gunicorn.conf.py), before the app sees a request; the answers are JSON errors too.
_LIMITS = (
    "Every error is JSON: `{error, message}`. Under gunicorn a request line over 4094 bytes gets 414, "
    "more than 100 headers or a header over 8190 bytes gets 431, and a body over MAX_REQUEST_BYTES "
    "(chunked or not) gets 413; a multipart body with files may be larger by ATTACHMENT_MAX_BYTES a file. "
    "A JSON body must be sent as `Content-Type: application/json` (else 415); /chat and /attachments also take "
    "`multipart/form-data`. Files are checked by their content: a JPEG, PNG or HEIC photo (its metadata removed) or a PDF."
)
_EVENT = {
    "type": "object",
    "required": ["event", "data"],
    "description": "One Server-Sent Event; `data` is JSON",
    "properties": {"event": {"type": "string", "enum": ["agent", "chunk", "final", "error"]}, "data": {"type": "string"}},
}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
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
    return {str(s): _json(_ERROR, words[s]) | ({"headers": retry_after} if s in (409, 429, 503) else {}) for s in statuses}


def _people_paths() -> dict[str, Any]:
    """A conversation people take over: the page's poll for their replies, and the operator
    console's API (assistant/web/console.py), which a business's own help-desk tool can use too."""
    turn = {
        "type": "object",
        "required": ["role", "text", "at"],
        "properties": {
            "role": {"type": "string", "enum": ["user", "assistant", "operator"]},
            "text": {"type": "string"},
            "at": {"type": "number", "description": "Seconds since the epoch"},
            "by": {"type": ["string", "null"], "description": "The operator's name"},
        },
    }
    handover = {
        "type": "object",
        "required": ["session_id", "reason", "status", "since", "waiting_s", "summary"],
        "properties": {
            "session_id": _UUID,
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
    conversation = [{"name": "session_id", "in": "path", "required": True, "schema": _UUID}]

    def body(name: str, schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
        return {
            "required": required,
            "content": {
                "application/json": {
                    "schema": {"type": "object", "required": [name] if required else [], "properties": {name: schema}}
                }
            },
        }

    def operator(summary: str, ok: dict[str, Any], *errors: int, **more: Any) -> dict[str, Any]:
        return {"summary": summary, "responses": {"200": ok, **_errors(401, 403, *errors, 503)}, "security": _OPERATOR, **more}

    return {
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
                    "200": _json(
                        {
                            "type": "object",
                            "required": ["messages", "handled_by"],
                            "properties": {
                                "messages": {"type": "array", "items": turn},
                                "handled_by": {"type": "string", "enum": ["assistant", "human"]},
                                "operator": {"type": ["string", "null"]},
                            },
                        },
                        "The messages",
                    ),
                    **_errors(400, 401, 403, 404, 503),
                },
                "security": _SIGNED_IN_OR_GUEST,
            }
        },
        "/console": {
            "get": {
                "summary": "The operator console's page (it holds no data: it signs in and calls /console/api/)",
                "responses": {"200": {"description": "The page", "content": {"text/html": {"schema": {"type": "string"}}}}},
            }
        },
        "/console/api/whoami": {
            "get": operator(
                "The operator the credential names",
                _json({"type": "object", "properties": {"operator": {"type": "string"}}}, "Them"),
            )
        },
        "/console/api/queue": {
            "get": operator(
                "Every conversation with people, the longest waiting first, and the panic switch",
                _json(
                    {"type": "object", "properties": {"conversations": {"type": "array", "items": handover}, "panic": panic}},
                    "The queue",
                ),
            )
        },
        "/console/api/conversations/{session_id}": {
            "get": operator(
                "One conversation: its transcript, state and goal audit",
                _json(
                    {
                        "type": "object",
                        "properties": {
                            "session_id": _UUID,
                            "pack": {"type": "string"},
                            "handover": {"oneOf": [handover, {"type": "null"}]},
                            "transcript": {"type": "array", "items": turn},
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
                _json(handover, "Yours"),
                400,
                404,
                409,
                parameters=conversation,
            )
        },
        "/console/api/conversations/{session_id}/reply": {
            "post": operator(
                "Say something to the customer, under your name (you must have taken it over)",
                _json({"type": "object", "properties": {"message": turn}}, "Said"),
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
                _json({"type": "object", "properties": {"session_id": _UUID, "handled_by": {"type": "string"}}}, "Back"),
                400,
                404,
                409,
                415,
                parameters=conversation,
                requestBody=body("note", {"type": "string", "maxLength": 2000}, required=False),
            )
        },
        "/console/api/panic": {
            "get": operator("The panic switch and its log", _json(panic_report, "The switch")),
            "post": operator(
                "Switch panic on (every new message gets a holding reply and joins the queue) or off",
                _json(panic_report, "The switch"),
                400,
                415,
                requestBody=body("on", {"type": "boolean"}),
            ),
        },
        "/console/api/unanswered": {
            "get": operator(
                "What customers asked that nobody could answer, grouped by meaning, most asked first (masked)",
                _json(
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


def _component(model: type[BaseModel]) -> tuple[dict[str, Any], dict[str, Any]]:
    schema = model.model_json_schema(ref_template=_REF)
    defs = schema.pop("$defs", {})
    return {model.__name__: schema, **defs}, {"$ref": _REF.format(model=model.__name__)}


def document(catalog: Catalog) -> dict[str, Any]:
    """The API as this domain pack serves it (its page fact's values, its business's name)."""
    request_schemas, chat_request = _component(ChatRequest)
    page = catalog.pack.profile[catalog.pack.page_fact].values if catalog.pack.page_fact else {}
    request_schemas["ChatRequest"]["properties"]["user_employment"] = {  # the page fact's compatibility field
        "anyOf": ([{"type": "string", "enum": sorted(page)}] if page else []) + [{"type": "null"}]
    }
    response_schemas, chat_response = _component(ChatResponse)
    chat_form = {
        "type": "object",
        "description": f"The message's fields, and its files in `file`; without words the query is {ATTACHMENTS_ONLY}",
        "properties": {
            "query": {"type": "string", "maxLength": 1000},
            "session_id": _SESSION,
            "user_employment": {"type": "string"},
            "mode": {"type": "string", "enum": ["offline", "crew"]},
            "attachments": {"type": "array", "items": _FILE_ID, "maxItems": 10, "description": "ids of files uploaded before"},
            "file": {"type": "array", "items": _BINARY, "maxItems": 10},
        },
    }
    chat_body = {
        "required": True,
        "content": {"application/json": {"schema": chat_request}, "multipart/form-data": {"schema": chat_form}},
    }
    upload_form = {
        "type": "object",
        "required": ["session_id", "file"],
        "properties": {"session_id": _SESSION, "file": _BINARY},
    }
    uploaded = {
        "type": "object",
        "required": ["id", "kind", "mime", "size"],
        "properties": {
            "id": _FILE_ID,
            "kind": {"type": "string", "enum": ["image", "pdf"]},
            "mime": {"type": "string", "enum": ["image/jpeg", "image/png", "application/pdf"]},
            "size": {"type": "integer"},
        },
    }
    case_path = [{"name": "case_id", "in": "path", "required": True, "schema": {"type": "string"}}]
    case = {
        "type": "object",
        "required": ["id", "status", "created_at", "updated_at", "session_id"],
        "description": "The record its flow built (its sections by name, `transcript`) with the office's id, status and times",
        "properties": {
            "id": {"type": "string"},
            "status": {"type": "string", "enum": list(STATUSES)},
            "created_at": {"type": "string", "format": "date-time"},
            "updated_at": {"type": "string", "format": "date-time"},
            "session_id": {"type": "string"},
            "transcript": {"type": "array", "items": {"type": "object"}},
        },
    }
    customer = [
        {"name": "customer_id", "in": "path", "required": True, "schema": {"type": "string", "pattern": f"^{CUSTOMER_ID.pattern}$"}}
    ]
    status = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}
    text = {"type": "string"}
    concierge_schemas, concierge_request = _component(AssistantRequest)
    request_schemas.update(concierge_schemas)
    concierge_answer = {
        "type": "object",
        "properties": {key: {"type": "object"} for key in ("restaurant", "reservation", "notification", "reminder")}
        | {"ask_user": text, "error": text, "details": text, "message": text},
    }
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
            "profile_choices": choices,
            "employment": {**choices, "deprecated": True, "description": "the same as profile_choices"},
        },
    }
    return {
        "openapi": "3.0.3",
        "info": {
            "title": f"{catalog.name} assistant",
            "version": "1.0.0",
            "description": f"A multi-agent customer assistant; offline by default. {_LIMITS}",
        },
        "paths": {
            "/chat": {
                "post": {
                    "summary": "Answer one chat message",
                    "requestBody": chat_body,
                    "responses": {
                        "200": _json(chat_response, "The turn's answer"),
                        **_errors(400, 401, 403, 404, 409, 413, 415, 429, 503),
                    },
                    "security": _SIGNED_IN_OR_GUEST,
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
                        **_errors(400, 401, 403, 404, 409, 413, 415, 429, 503),
                    },
                    "security": _SIGNED_IN_OR_GUEST,
                }
            },
            "/sessions/{session_id}": {
                "get": {
                    "summary": "A session's history and state, for a reloaded page",
                    "parameters": [{"name": "session_id", "in": "path", "required": True, "schema": _UUID}],
                    "responses": {
                        "200": _json(
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
                        **_errors(400, 401, 403, 404, 503),
                    },
                    "security": _SIGNED_IN_OR_GUEST,
                }
            },
            "/customers/{customer_id}/preferences": {
                "get": {
                    "summary": "A customer's learned preferences",
                    "parameters": customer,
                    "responses": {"200": _json({"type": "object"}, "The preferences"), **_errors(400, 401, 403, 503)},
                    "security": _CUSTOMER_OR_OPERATOR,
                },
                "delete": {
                    "summary": "Forget a customer's preferences",
                    "parameters": customer,
                    "responses": {"204": {"description": "Forgotten"}, **_errors(400, 401, 403, 503)},
                    "security": _CUSTOMER_OR_OPERATOR,
                },
            },
            "/attachments": {
                "post": {
                    "summary": "Keep a photo or PDF for a conversation; its id goes in the next message's `attachments`",
                    "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": upload_form}}},
                    "responses": {
                        "201": _json(uploaded, "Kept (a photo as encoded again, without its metadata)"),
                        **_errors(400, 401, 403, 409, 413, 415, 429, 503),
                    },
                    "security": _SIGNED_IN_OR_GUEST,
                }
            },
            "/cases": {
                "get": {
                    "summary": "The cases handed to the office, newest first (without transcripts)",
                    "parameters": [
                        {"name": "status", "in": "query", "required": False, "schema": {"type": "string", "enum": list(STATUSES)}}
                    ],
                    "responses": {
                        "200": _json(
                            {"type": "object", "required": ["cases"], "properties": {"cases": {"type": "array", "items": case}}},
                            "The cases",
                        ),
                        **_errors(400, 401, 403, 503),
                    },
                    "security": _OPERATOR,
                }
            },
            "/cases/{case_id}": {
                "get": {
                    "summary": "One case, whole",
                    "parameters": case_path,
                    "responses": {"200": _json(case, "The case"), **_errors(401, 403, 404, 503)},
                    "security": _OPERATOR,
                },
                "patch": {
                    "summary": "Move a case to another status",
                    "parameters": case_path,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["status"],
                                    "properties": {"status": {"type": "string", "enum": list(STATUSES)}},
                                }
                            }
                        },
                    },
                    "responses": {"200": _json(case, "The case"), **_errors(400, 401, 403, 404, 413, 415, 503)},
                    "security": _OPERATOR,
                },
            },
            "/cases/{case_id}/summary.pdf": {
                "get": {
                    "summary": "One case on one printed page",
                    "parameters": case_path,
                    "responses": {
                        "200": {"description": "A one-page PDF", "content": {"application/pdf": {"schema": _BINARY}}},
                        **_errors(401, 403, 404, 503),
                    },
                    "security": _OPERATOR,
                }
            },
            "/cases/{case_id}/attachments/{attachment_id}": {
                "get": {
                    "summary": "A file the case's conversation sent",
                    "parameters": [*case_path, {"name": "attachment_id", "in": "path", "required": True, "schema": _FILE_ID}],
                    "responses": {
                        "200": {
                            "description": "The file as kept",
                            "content": {mime: {"schema": _BINARY} for mime in ("image/jpeg", "image/png", "application/pdf")},
                        },
                        **_errors(401, 403, 404, 503),
                    },
                    "security": _OPERATOR,
                }
            },
            "/pack-files/images/{name}": {
                "get": {
                    "summary": "An example drawing of the pack's (an SVG a quote's reply links to)",
                    "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "responses": {
                        "200": {"description": "The drawing", "content": {"image/svg+xml": {"schema": _BINARY}}},
                        **_errors(404),
                    },
                }
            },
            "/health": {"get": {"summary": "Liveness", "responses": {"200": _json(status, "Alive")}}},
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
                        "200": _json(concierge_answer, "The booking, a question (ask_user), or {error, details}"),
                        **_errors(400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
                    },
                    "security": _SIGNED_IN_OR_GUEST,
                }
            },
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
                    "responses": {"200": _json(about, "Its title, words, examples and profile choices"), **_errors(400)},
                }
            },
            "/ready": {
                "get": {
                    "summary": "Readiness: store and index reachable",
                    "responses": {"200": _json(status, "Ready"), **_errors(503)},
                }
            },
            **_people_paths(),
            "/metrics": {
                "get": {
                    "summary": "Prometheus metrics",
                    "responses": {
                        "200": {"description": "Text exposition format", "content": {"text/plain": {"schema": {"type": "string"}}}}
                    },
                }
            },
        },
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
                **request_schemas,
                **response_schemas,
                "Error": {
                    "type": "object",
                    "required": ["error", "message"],
                    "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
                },
            },
        },
    }
