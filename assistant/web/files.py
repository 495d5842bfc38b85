"""Files sent with chat messages: POST /attachments keeps one for a conversation and answers its id,
which the next message references (`attachments` in POST /chat); or POST /chat as
multipart/form-data brings the files and the message at once.

A multipart body is one a page on any site can make its visitors' browsers send (a CORS "simple
request"), so one that says it comes from a page must come from ours (the Origin header).

Files are taken only into a conversation that asks for them now: its active goal's next question
is for an attachment slot (a case's photos or documents). A made-up session id, or one whose
conversation asks for nothing of the kind, keeps no file (409)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from flask import Blueprint, Flask, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.datastructures import FileStorage

from assistant.attachments.content import Refused
from assistant.attachments.store import ATTACHMENTS, Attachment
from assistant.dialogue.state import NotYourSession
from assistant.dialogue.turns import ChatRequest, session_id
from assistant.infra.config import SETTINGS
from assistant.pack.model import Catalog
from assistant.web.errors import ApiError
from assistant.web.identity import caller, require_customer
from assistant.web.openapi import BINARY, FILE_ID, SESSION, SIGNED_IN_OR_GUEST, Fragment, describe, errors, json_answer
from assistant.web.ratelimit import LIMITER
from assistant.web.schemas import ATTACHMENTS_ONLY
from crew_pipeline import PIPELINE

bp = Blueprint("files", __name__)
FORM = "multipart/form-data"
FILE_FIELD = "file"


@bp.post("/attachments")
def upload() -> ResponseReturnValue:
    """One file (form field `file`) for the conversation named by the form's `session_id`."""
    if request.mimetype != FORM:
        raise ApiError(415, "unsupported_media_type", f"Send the file as {FORM}: a field `{FILE_FIELD}` and a `session_id`.")
    _from_our_pages()
    try:
        conversation = session_id(request.form.get("session_id", ""))
    except ValueError as exc:
        raise ApiError(400, "invalid_session_id", f"session_id {exc}.") from None
    files = request.files.getlist(FILE_FIELD)
    if len(files) != 1:
        raise ApiError(400, "one_file", f"Send exactly one file, in the form field `{FILE_FIELD}`.")
    LIMITER.get().check(request.remote_addr or "unknown", conversation)
    _owned(conversation, caller().customer_id)
    _asks_for_files(conversation)
    return jsonify(_kept(conversation, files)[0].public()), 201


def chat_form() -> dict[str, Any]:
    """A multipart chat message's fields as the JSON body would have them: its words (a paperclip
    for files without words) and the ids of files uploaded before (repeated `attachments`)."""
    _from_our_pages()
    body: dict[str, Any] = {key: request.form[key] for key in request.form if key != "attachments"}
    if "attachments" in request.form:
        body["attachments"] = request.form.getlist("attachments")
    if "facts" in request.form:  # a form's fields are text: the facts come as one JSON object
        try:
            body["facts"] = json.loads(request.form["facts"])
        except ValueError:
            raise ApiError(400, "invalid_request", 'facts: a JSON object, such as {"employment": "salaried"}') from None
    if not body.get("query", "").strip() and request.files.getlist(FILE_FIELD):
        body["query"] = ATTACHMENTS_ONLY
    return body


def with_files(chat_request: ChatRequest) -> ChatRequest:
    """The message with its files: those it brings are kept (all, or none when one is refused)
    and join the ids it references, each of which must be its conversation's."""
    files = request.files.getlist(FILE_FIELD) if request.mimetype == FORM else []
    ids = chat_request.attachments or []
    if not files and not ids:
        return chat_request
    most = SETTINGS.get().attachments_per_message
    if len(files) + len(ids) > most:
        raise ApiError(400, "too_many_attachments", f"A message brings at most {most} files.")
    conversation = chat_request.session_id or str(uuid.uuid4())
    found = {a.id for a in ATTACHMENTS.get().get(conversation, ids)}
    if missing := [i for i in ids if i not in found]:
        raise ApiError(404, "unknown_attachment", f"No file {missing[0]} was sent in this conversation (its session_id).")
    _owned(conversation, chat_request.customer_id)
    if files:
        _asks_for_files(conversation)
    kept = _kept(conversation, files) if files else []
    return chat_request.model_copy(update={"session_id": conversation, "attachments": [*ids, *(a.id for a in kept)]})


def _kept(conversation: str, files: list[FileStorage]) -> list[Attachment]:
    store, kept = ATTACHMENTS.get(), []
    try:
        for file in files:
            kept.append(store.save(conversation, file.filename or "", file.stream.read(store.max_bytes + 1)))
    except Refused:
        for attachment in kept:
            store.discard(attachment)
        raise
    return kept


def _owned(conversation: str, customer_id: str | None) -> None:
    """A signed-in customer's conversation takes files from them (or an operator) alone."""
    state = PIPELINE.get().store.load(conversation)
    if state is not None and state.customer_id is not None:
        if customer_id is None:
            require_customer(state.customer_id)
        elif customer_id != state.customer_id:
            raise NotYourSession(conversation)


def _asks_for_files(conversation: str) -> None:
    """Refuses files unless the conversation's active flow asks for one now (as it stands for this
    conversation, where an extension's action builds it: a case's steps for what it quoted)."""
    pipeline = PIPELINE.get()
    state = pipeline.store.load(conversation)
    goal = state.goals.active if state else None
    flows, actions = pipeline.catalog.pack.flows, pipeline.services.actions
    if goal is not None and goal.type in flows:
        action = actions.get(flows[goal.type].action)
        flow = action.flow(goal.type, goal.slots) if action else flows[goal.type]
        if any(flow.slot(name).kind == "attachment" for name in pipeline.desk.engine.asked(flow, goal.missing)):
            return
    raise ApiError(409, "files_not_asked", "This conversation is not asking for files now: send them when the assistant asks.")


def _from_our_pages() -> None:
    origin = request.headers.get("Origin")
    if origin is None:  # not sent by a browser's page: a client of the API
        return
    ours = {request.host_url.rstrip("/"), *(o.rstrip("/") for o in SETTINGS.get().cors_origins)}
    if origin.rstrip("/") not in ours:
        raise ApiError(403, "cross_origin", "Files are accepted from this assistant's own pages only.")


def _contract(catalog: Catalog) -> Fragment:
    """POST /attachments' part of /openapi.json."""
    upload_form = {
        "type": "object",
        "required": ["session_id", "file"],
        "properties": {"session_id": SESSION, "file": BINARY},
    }
    uploaded = {
        "type": "object",
        "required": ["id", "kind", "mime", "size"],
        "properties": {
            "id": FILE_ID,
            "kind": {"type": "string", "enum": ["image", "pdf"]},
            "mime": {"type": "string", "enum": ["image/jpeg", "image/png", "application/pdf"]},
            "size": {"type": "integer"},
        },
    }
    return Fragment(
        {
            "/attachments": {
                "post": {
                    "summary": "Keep a photo or PDF for a conversation; its id goes in the next message's `attachments`",
                    "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": upload_form}}},
                    "responses": {
                        "201": json_answer(uploaded, "Kept (a photo as encoded again, without its metadata)"),
                        **errors(400, 401, 403, 409, 413, 415, 429, 503),
                    },
                    "security": SIGNED_IN_OR_GUEST,
                }
            }
        }
    )


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    describe(app, _contract)

    @app.errorhandler(Refused)
    def refused(exc: Refused) -> ResponseReturnValue:
        return jsonify(error=exc.code, message=exc.message), exc.status
