"""The office's side: the cases conversations handed in, for operators only (their API key or
token). GET /cases?status= lists them, GET /cases/<id> is one as JSON, /cases/<id>/summary.pdf
the same on one page, /cases/<id>/attachments/<file id> a file its conversation sent, and
PATCH /cases/<id> moves its status on."""

from __future__ import annotations

import io
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request, send_file

from assistant.attachments.store import ATTACHMENTS
from assistant.pack.model import Catalog
from assistant.tools.retrieval import CATALOG
from assistant.web.errors import ApiError, json_object
from assistant.web.identity import require_operator
from assistant.web.openapi import BINARY, FILE_ID, OPERATOR, Fragment, describe, errors, json_answer
from extensions.homologation.case_store import CASES, STATUSES
from extensions.homologation.case_summary import summary_pdf

bp = Blueprint("cases", __name__)
# A customer's file and a page made of their words are the office's to save, never a page of ours
# to render: downloaded, their type as said, and scripts off should a browser render them anyway.
DOWNLOAD = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox; default-src 'none'"}


@bp.before_request
def operators_only() -> None:
    require_operator()


@bp.get("/cases")
def list_cases() -> Response:
    status = request.args.get("status") or None
    if status is not None and status not in STATUSES:
        raise ApiError(400, "invalid_status", f"status is one of: {', '.join(STATUSES)}.")
    return jsonify(cases=CASES.get().list(status))


@bp.get("/cases/<case_id>")
def get_case(case_id: str) -> Response:
    return jsonify(_case(case_id))


@bp.patch("/cases/<case_id>")
def set_status(case_id: str) -> Response:
    status = json_object('{"status": "in_review"}').get("status")
    if status not in STATUSES:
        raise ApiError(400, "invalid_status", f"status is one of: {', '.join(STATUSES)}.")
    _case(case_id)
    return jsonify(CASES.get().set_status(case_id, status))


@bp.get("/cases/<case_id>/summary.pdf")
def summary(case_id: str) -> Response:
    case = _case(case_id)
    pdf = summary_pdf(case, ATTACHMENTS.get().of_session(case["session_id"]), CATALOG.get())
    disposition = {"Content-Disposition": f'attachment; filename="{case_id}.pdf"'}
    return Response(pdf, mimetype="application/pdf", headers={**disposition, **DOWNLOAD})


@bp.get("/cases/<case_id>/attachments/<attachment_id>")
def attachment(case_id: str, attachment_id: str) -> Response:
    """A file the case's conversation sent (ids of any other conversation are not found)."""
    store = ATTACHMENTS.get()
    found = store.get(_case(case_id)["session_id"], [attachment_id])
    if not found:
        raise ApiError(404, "unknown_attachment", "This case's conversation sent no such file.")
    data = io.BytesIO(store.read(found[0]))  # from the directory or S3, wherever ATTACHMENTS_URL keeps them
    sent = send_file(data, mimetype=found[0].mime, as_attachment=True, download_name=found[0].name)
    sent.headers.update(DOWNLOAD)
    return sent


def _case(case_id: str) -> dict[str, Any]:
    case = CASES.get().get(case_id)
    if case is None:
        raise ApiError(404, "unknown_case", "No case with that id.")
    return case


def _contract(catalog: Catalog) -> Fragment:
    """These routes' part of /openapi.json."""
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
    return Fragment(
        {
            "/cases": {
                "get": {
                    "summary": "The cases handed to the office, newest first (without transcripts)",
                    "parameters": [
                        {"name": "status", "in": "query", "required": False, "schema": {"type": "string", "enum": list(STATUSES)}}
                    ],
                    "responses": {
                        "200": json_answer(
                            {"type": "object", "required": ["cases"], "properties": {"cases": {"type": "array", "items": case}}},
                            "The cases",
                        ),
                        **errors(400, 401, 403, 503),
                    },
                    "security": OPERATOR,
                }
            },
            "/cases/{case_id}": {
                "get": {
                    "summary": "One case, whole",
                    "parameters": case_path,
                    "responses": {"200": json_answer(case, "The case"), **errors(401, 403, 404, 503)},
                    "security": OPERATOR,
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
                    "responses": {"200": json_answer(case, "The case"), **errors(400, 401, 403, 404, 413, 415, 503)},
                    "security": OPERATOR,
                },
            },
            "/cases/{case_id}/summary.pdf": {
                "get": {
                    "summary": "One case on one printed page",
                    "parameters": case_path,
                    "responses": {
                        "200": {"description": "A one-page PDF", "content": {"application/pdf": {"schema": BINARY}}},
                        **errors(401, 403, 404, 503),
                    },
                    "security": OPERATOR,
                }
            },
            "/cases/{case_id}/attachments/{attachment_id}": {
                "get": {
                    "summary": "A file the case's conversation sent",
                    "parameters": [*case_path, {"name": "attachment_id", "in": "path", "required": True, "schema": FILE_ID}],
                    "responses": {
                        "200": {
                            "description": "The file as kept",
                            "content": {mime: {"schema": BINARY} for mime in ("image/jpeg", "image/png", "application/pdf")},
                        },
                        **errors(401, 403, 404, 503),
                    },
                    "security": OPERATOR,
                }
            },
        }
    )


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    describe(app, _contract)
