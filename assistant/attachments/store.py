"""Attachments kept per session: each file's bytes under <session id>/<id>.<ext> in the blob
storage ATTACHMENTS_URL names (blobs.py: ATTACHMENTS_DIR by default, or S3), its description a row
of the durable database's `attachments` table, so that every machine finds what any other kept.
An id opens nothing outside its own session, whose id is the bearer secret of the conversation
already: a leaked attachment id alone shows nothing.

A conversation keeps ATTACHMENTS_PER_SESSION files and ATTACHMENTS_SESSION_BYTES at most (decided
under a lock of the session, so two machines' uploads cannot both take its last place), and the
whole store ATTACHMENTS_TOTAL_FILES and ATTACHMENTS_TOTAL_BYTES (a cap against a flood, which
uploads racing on other sessions may pass by a file each); `sweep` removes the files of
conversations that handed in no case once they have been left ATTACHMENTS_UNUSED_S.

The bytes are written before their row and removed before it: a row makes a file found, and a row
whose bytes went is removed again by the next sweep, where bytes without a row would be kept forever."""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask import Flask
from pydantic import BaseModel, ConfigDict

from assistant.attachments.blobs import Blobs, Directory, open_blobs
from assistant.attachments.content import Kind, Limits, Refused, cleaned
from assistant.infra.config import SETTINGS, Settings, attachments_dir
from assistant.infra.database import DATABASE, Database, Params, Transaction
from assistant.infra.extensions import Slot
from assistant.language.invisible import visible

ATTACHMENT_ID = re.compile(r"[0-9a-f]{32}")
NAME_CHARS = 120  # of the sender's file name, kept as a label
COUNTED = "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM attachments"  # files and bytes
INSERT = "INSERT INTO attachments (id, session_id, body, size, created_at) VALUES (?, ?, ?, ?, ?)"


class Attachment(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    session_id: str
    kind: Kind
    mime: str
    size: int  # of the bytes kept (an image as encoded again)
    sha256: str
    name: str  # the sender's file name: a label, never a path
    created_at: datetime

    def public(self) -> dict[str, Any]:
        """What the uploader is told."""
        return self.model_dump(include={"id", "kind", "mime", "size"})


class AttachmentStore:
    def __init__(self, db: Database, blobs: Blobs, settings: Settings):
        self.db, self.blobs, self.max_bytes = db, blobs, settings.attachment_max_bytes
        decoding = threading.BoundedSemaphore(settings.image_decodes_at_once)  # this process's: one store per app
        self.limits = Limits(settings.image_max_decoded_bytes, settings.image_max_ratio, decoding)
        self.settings = settings

    def save(self, session_id: str, filename: str, data: bytes) -> Attachment:
        """Keeps the file's clean bytes, or raises `Refused` (and keeps nothing)."""
        if len(data) > self.max_bytes:
            raise Refused(413, "file_too_large", f"That file is larger than {self.max_bytes / 1024 / 1024:g} MB.")
        if not data:
            raise Refused(400, "empty_file", "That file is empty.")
        _canonical(session_id)
        kept = cleaned(data, self.limits)
        attachment = Attachment(
            id=secrets.token_hex(16),
            session_id=session_id,
            kind=kept.kind,
            mime=kept.mime,
            size=len(kept.data),
            sha256=hashlib.sha256(kept.data).hexdigest(),
            name=_label(filename),
            created_at=datetime.now(UTC),
        )
        self.blobs.put(_key(attachment), kept.data)
        try:
            with self.db.transaction() as tx:
                self._room(tx, session_id, attachment.size)
                tx.execute(INSERT, _row(attachment))
        except BaseException:
            self.blobs.delete(_key(attachment))
            raise
        return attachment

    def _room(self, tx: Transaction, session_id: str, size: int) -> None:
        """Refuses a file the conversation's or the store's quota has no room for."""
        settings = self.settings
        tx.lock(f"attachments:{session_id}")
        files, kept = tx.execute(f"{COUNTED} WHERE session_id = ?", (session_id,)).fetchone()
        if files >= settings.attachments_per_session or kept + size > settings.attachments_session_bytes:
            most = f"{settings.attachments_per_session} files or {settings.attachments_session_bytes / 1024**2:g} MB"
            raise Refused(413, "conversation_files_full", f"This conversation keeps {most} at most: no more files can be added.")
        files, kept = tx.execute(COUNTED).fetchone()  # per upload, not cached: exact across machines, and cheap beside decoding
        if files >= settings.attachments_total_files or kept + size > settings.attachments_total_bytes:
            raise Refused(503, "files_full", "We cannot take more files right now: please try again later.")

    def sweep(self, handed_in: Callable[[str], bool]) -> int:
        """Removes the files of conversations whose last file is ATTACHMENTS_UNUSED_S old and that
        `handed_in` no case; how many conversations' went. Those a conversation sends meanwhile stay."""
        left_before = time.time() - self.settings.attachments_unused_s
        left = self.db.rows(
            "SELECT session_id, MAX(created_at) FROM attachments GROUP BY session_id HAVING MAX(created_at) < ?", (left_before,)
        )
        removed = 0
        for session_id, last in left:
            if handed_in(session_id):
                continue
            for attachment in self._described("session_id = ? AND created_at <= ?", (session_id, last)):
                self.blobs.delete(_key(attachment))
            self.db.write("DELETE FROM attachments WHERE session_id = ? AND created_at <= ?", (session_id, last))
            removed += 1
        return removed

    def get(self, session_id: str, ids: Iterable[str]) -> list[Attachment]:
        """Those of `ids` kept for this session, in their order; an id of another session is not found."""
        _canonical(session_id)
        wanted = [i for i in ids if ATTACHMENT_ID.fullmatch(i)]
        if not wanted:
            return []
        marks = ", ".join("?" * len(wanted))
        found = {a.id: a for a in self._described(f"session_id = ? AND id IN ({marks})", (session_id, *wanted))}
        return [found[i] for i in wanted if i in found]

    def of_session(self, session_id: str) -> list[Attachment]:
        """Every file the session sent, oldest first."""
        _canonical(session_id)
        return self._described("session_id = ?", (session_id,))

    def count(self, session_id: str, kind: Kind | None = None) -> int:
        return sum(1 for a in self.of_session(session_id) if kind is None or a.kind == kind)

    def discard(self, attachment: Attachment) -> None:
        """Forgets a file kept with others that were refused."""
        self.blobs.delete(_key(attachment))
        self.db.write("DELETE FROM attachments WHERE id = ?", (attachment.id,))

    def read(self, attachment: Attachment) -> bytes:
        return self.blobs.get(_key(attachment))

    def adopt(self, folder: Path) -> int:
        """Descriptions kept as <session id>/<id>.json beside their files, as the store kept them
        before the database did, become rows (the files stay where they are); how many."""
        adopted = 0
        for described in folder.glob("*/*.json"):
            attachment = Attachment.model_validate_json(described.read_bytes())
            self.db.write(f"{INSERT} ON CONFLICT (id) DO NOTHING", _row(attachment))
            described.unlink()
            adopted += 1
        return adopted

    def _described(self, where: str, params: Params) -> list[Attachment]:
        """The rows that match `where` (our own SQL, never a caller's text), oldest first."""
        rows = self.db.rows(f"SELECT body FROM attachments WHERE {where} ORDER BY created_at", params)
        return [Attachment.model_validate_json(body) for (body,) in rows]


def _canonical(session_id: str) -> None:
    """Only a canonical UUID names a session, so no id reaches outside its own files."""
    try:
        canonical = str(uuid.UUID(session_id)) == session_id
    except ValueError:
        canonical = False
    if not canonical:
        raise Refused(400, "invalid_session_id", "Attachments belong to a conversation: send its session_id (a UUID).")


def _row(attachment: Attachment) -> tuple[object, ...]:
    """The attachment as INSERT takes it."""
    return attachment.id, attachment.session_id, attachment.model_dump_json(), attachment.size, attachment.created_at.timestamp()


def _key(attachment: Attachment) -> str:
    extension = {"application/pdf": "pdf", "image/png": "png"}.get(attachment.mime, "jpg")
    return f"{attachment.session_id}/{attachment.id}.{extension}"


def _label(filename: str) -> str:
    name = visible(Path(filename.replace("\\", "/")).name, lines=False).strip()
    return name[:NAME_CHARS] or "file"


ATTACHMENTS: Slot[AttachmentStore] = Slot("attachments")


def init_app(app: Flask) -> None:
    """The store over the app's durable database, its bytes where ATTACHMENTS_URL says (ATTACHMENTS_DIR by default)."""
    settings = SETTINGS.get(app)
    blobs = open_blobs(settings.attachments_url) if settings.attachments_url else Directory(attachments_dir(app))
    store = ATTACHMENTS.put(app, AttachmentStore(DATABASE.get(app), blobs, settings))
    if isinstance(blobs, Directory):
        store.adopt(blobs.folder)
