"""Cases, one record each, in the bookings' SQLite file (the office's side of the data). A
record is the JSON its flow built (items, prices, fields, documents, the transcript); the store
adds the id, the status and the times. A turn retried after a commit conflict hands the same
record in again: it gets the case made the first time, not a second one (the times of the
transcript's messages, which a retry takes anew, are no part of what makes a record the same)."""

from __future__ import annotations

import builtins
import hashlib
import json
import secrets
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from flask import Flask
from pydantic import BaseModel, ConfigDict

from assistant.attachments.store import ATTACHMENTS
from assistant.infra.database import DATABASE, Database
from assistant.infra.extensions import Slot
from assistant.infra.periodic import Periodic, start_chore
from assistant.language.invisible import visible

STATUSES = ("submitted", "in_review", "done", "rejected", "cancelled")
LIST_LIMIT = 100
MANAGED = ("id", "status", "created_at", "updated_at")  # written by the store, not by the flow


class CaseRecord(BaseModel):
    """What every record has; the rest is the flow's own (its sections, by the names it gives them)."""

    model_config = ConfigDict(extra="allow")

    session_id: str
    customer_id: str | None = None
    title: str | None = None  # the summary's heading
    labels: dict[str, str] = {}  # section name -> its title in the customer's language, for the summary
    transcript: list[dict[str, Any]] = []  # {role, text, at}


class CaseStore:
    def __init__(self, db: Database):
        self._db = db

    def submit(self, case: Mapping[str, Any], reply: Callable[[str], str] | None = None) -> str:
        """Keeps the record with status "submitted"; its case id. `reply`: what the customer is
        told, given the case id, which ends the kept transcript."""
        record = CaseRecord.model_validate({k: _visible(v) for k, v in case.items() if k not in MANAGED}).model_dump(mode="json")
        same = {**record, "transcript": [{k: v for k, v in t.items() if k != "at"} for t in record["transcript"]]}
        fingerprint = hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()
        now = datetime.now(UTC)
        case_id = f"{now:%Y%m%d}-{secrets.token_hex(3).upper()}"
        if reply is not None:
            record["transcript"].append({"role": "assistant", "text": reply(case_id), "at": now.timestamp()})
        text = json.dumps(record, ensure_ascii=False)  # in the flow's order, which the summary keeps
        with self._db.transaction() as db:
            db.lock(f"case:{fingerprint}")  # the same record sent twice at once is one case
            kept = db.execute("SELECT id FROM cases WHERE fingerprint = ?", (fingerprint,)).fetchone()
            if kept is not None:
                return str(kept[0])
            db.execute(
                "INSERT INTO cases (id, session_id, fingerprint, status, created_at, updated_at, record)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (case_id, record["session_id"], fingerprint, STATUSES[0], now.isoformat(), now.isoformat(), text),
            )
        return case_id

    def get(self, case_id: str) -> dict[str, Any] | None:
        row = self._db.one("SELECT id, status, created_at, updated_at, record FROM cases WHERE id = ?", (case_id,))
        return _case(row) if row else None

    def list(self, status: str | None = None, limit: int = LIST_LIMIT) -> builtins.list[dict[str, Any]]:
        """The newest cases first (with that status), without their transcripts."""
        where, params = ("WHERE status = ?", (status,)) if status else ("", ())
        rows = self._db.rows(
            f"SELECT id, status, created_at, updated_at, record FROM cases {where} ORDER BY created_at DESC, id LIMIT ?",
            (*params, limit),
        )
        return [{k: v for k, v in _case(row).items() if k != "transcript"} for row in rows]

    def handed_in(self, session_id: str) -> bool:
        """Whether the conversation handed in a case (whose files the office then keeps)."""
        return self._db.one("SELECT 1 FROM cases WHERE session_id = ? LIMIT 1", (session_id,)) is not None

    def set_status(self, case_id: str, status: str) -> dict[str, Any] | None:
        """The case with its new status; None if there is no such case."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of: {', '.join(STATUSES)}")
        now = datetime.now(UTC).isoformat()
        if not self._db.write("UPDATE cases SET status = ?, updated_at = ? WHERE id = ?", (status, now, case_id)):
            return None
        return self.get(case_id)


def _visible(value: Any) -> Any:
    """The value with the characters nobody sees taken out of every text in it (language.invisible):
    the office reads, copies and prints what the customer typed."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {visible(k) if isinstance(k, str) else k: _visible(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_visible(v) for v in value]
    return value


def _case(row: tuple[Any, ...]) -> dict[str, Any]:
    case_id, status, created_at, updated_at, record = row
    return {"id": case_id, "status": status, "created_at": created_at, "updated_at": updated_at, **json.loads(record)}


CASES: Slot[CaseStore] = Slot("cases")


SWEEP_S = 3600  # how often the files of conversations that handed in no case are looked for


def init_app(app: Flask) -> None:
    """The cases beside the bookings; every SWEEP_S the files of conversations that handed in
    none, left for ATTACHMENTS_UNUSED_S, are removed."""
    cases = CASES.put(app, CaseStore(DATABASE.get(app)))
    files = ATTACHMENTS.get(app)
    start_chore(app, Periodic("attachments-sweep", SWEEP_S, lambda: files.sweep(cases.handed_in)))
