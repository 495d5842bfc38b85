"""Attachments kept per session: each file under ATTACHMENTS_DIR/<session id>/<id>.<ext>, its
description beside it in <id>.json. An id opens nothing outside its own session, whose id is the
bearer secret of the conversation already: a leaked attachment id alone shows nothing.

A conversation keeps ATTACHMENTS_PER_SESSION files and ATTACHMENTS_SESSION_BYTES at most, and
the whole store ATTACHMENTS_TOTAL_FILES and ATTACHMENTS_TOTAL_BYTES (counted across every
folder at most every USAGE_FRESH_S, this process's own files added meanwhile); `sweep` removes
the folders of conversations that handed in no case once they have been left ATTACHMENTS_UNUSED_S."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask import Flask
from pydantic import BaseModel, ConfigDict, ValidationError

from assistant.attachments.content import Kind, Limits, Refused, cleaned
from assistant.infra.config import SETTINGS, Settings, attachments_dir
from assistant.infra.extensions import Slot
from assistant.language.invisible import visible

ATTACHMENT_ID = re.compile(r"[0-9a-f]{32}")
NAME_CHARS = 120  # of the sender's file name, kept as a label
USAGE_FRESH_S = 30  # how old the store's total may be before an upload counts it again


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
    def __init__(self, folder: Path, settings: Settings):
        self.folder, self.max_bytes = folder, settings.attachment_max_bytes
        decoding = threading.BoundedSemaphore(settings.image_decodes_at_once)  # this process's: one store per app
        self.limits = Limits(settings.image_max_decoded_bytes, settings.image_max_ratio, decoding)
        self.settings = settings
        self._usage: tuple[float, int, int] = (-USAGE_FRESH_S, 0, 0)  # when counted; files; bytes
        self._counting = threading.Lock()

    def save(self, session_id: str, filename: str, data: bytes) -> Attachment:
        """Keeps the file's clean bytes, or raises `Refused` (and keeps nothing)."""
        if len(data) > self.max_bytes:
            raise Refused(413, "file_too_large", f"That file is larger than {self.max_bytes / 1024 / 1024:g} MB.")
        if not data:
            raise Refused(400, "empty_file", "That file is empty.")
        folder = self._session(session_id)
        kept = cleaned(data, self.limits)
        self._room(session_id, len(kept.data))
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
        folder.mkdir(parents=True, exist_ok=True)
        _write(folder / f"{attachment.id}.{kept.extension}", kept.data)
        _write(folder / f"{attachment.id}.json", attachment.model_dump_json().encode())  # last: it makes the file found
        with self._counting:
            at, files, size = self._usage
            self._usage = (at, files + 1, size + attachment.size)
        return attachment

    def _room(self, session_id: str, size: int) -> None:
        """Refuses a file the conversation's or the store's quota has no room for."""
        settings, mine = self.settings, self.of_session(session_id)
        if len(mine) >= settings.attachments_per_session or sum(a.size for a in mine) + size > settings.attachments_session_bytes:
            most = f"{settings.attachments_per_session} files or {settings.attachments_session_bytes / 1024**2:g} MB"
            raise Refused(413, "conversation_files_full", f"This conversation keeps {most} at most: no more files can be added.")
        files, kept = self.usage()
        if files >= settings.attachments_total_files or kept + size > settings.attachments_total_bytes:
            raise Refused(503, "files_full", "We cannot take more files right now: please try again later.")

    def usage(self) -> tuple[int, int]:
        """The files the store keeps, and their bytes."""
        with self._counting:
            at, files, size = self._usage
            if time.monotonic() - at >= USAGE_FRESH_S:
                kept = [p.stat().st_size for p in self.folder.glob("*/*") if p.suffix != ".json"] if self.folder.is_dir() else []
                at, files, size = time.monotonic(), len(kept), sum(kept)
                self._usage = (at, files, size)
            return files, size

    def sweep(self, handed_in: Callable[[str], bool]) -> int:
        """Removes the folders of conversations whose last file is ATTACHMENTS_UNUSED_S old and that
        `handed_in` no case; how many went."""
        left_before = time.time() - self.settings.attachments_unused_s
        removed = 0
        for folder in [f for f in self.folder.iterdir() if f.is_dir()] if self.folder.is_dir() else []:
            last = max((p.stat().st_mtime for p in folder.iterdir()), default=0.0)
            if last < left_before and not handed_in(folder.name):
                shutil.rmtree(folder, ignore_errors=True)
                removed += 1
        return removed

    def get(self, session_id: str, ids: Iterable[str]) -> list[Attachment]:
        """Those of `ids` kept for this session, in their order; an id of another session is not found."""
        folder = self._session(session_id)
        found = []
        for attachment_id in ids:
            described = folder / f"{attachment_id}.json"
            if ATTACHMENT_ID.fullmatch(attachment_id) and described.is_file():
                found.append(_read(described))
        return found

    def of_session(self, session_id: str) -> list[Attachment]:
        """Every file the session sent, oldest first."""
        folder = self._session(session_id)
        kept = [_read(path) for path in folder.glob("*.json")] if folder.is_dir() else []
        return sorted(kept, key=lambda a: a.created_at)

    def count(self, session_id: str, kind: Kind | None = None) -> int:
        return sum(1 for a in self.of_session(session_id) if kind is None or a.kind == kind)

    def discard(self, attachment: Attachment) -> None:
        """Forgets a file kept with others that were refused."""
        (self._session(attachment.session_id) / f"{attachment.id}.json").unlink(missing_ok=True)
        self.path(attachment).unlink(missing_ok=True)

    def path(self, attachment: Attachment) -> Path:
        extension = {"application/pdf": "pdf", "image/png": "png"}.get(attachment.mime, "jpg")
        return self._session(attachment.session_id) / f"{attachment.id}.{extension}"

    def read(self, attachment: Attachment) -> bytes:
        return self.path(attachment).read_bytes()

    def _session(self, session_id: str) -> Path:
        """The session's folder; only a canonical UUID names one, so no id reaches outside the store."""
        try:
            canonical = str(uuid.UUID(session_id)) == session_id
        except ValueError:
            canonical = False
        if not canonical:
            raise Refused(400, "invalid_session_id", "Attachments belong to a conversation: send its session_id (a UUID).")
        return self.folder / session_id


def _label(filename: str) -> str:
    name = visible(Path(filename.replace("\\", "/")).name, lines=False).strip()
    return name[:NAME_CHARS] or "file"


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a reader never sees half a file."""
    partial = path.with_suffix(path.suffix + ".part")
    partial.write_bytes(data)
    os.replace(partial, path)


def _read(described: Path) -> Attachment:
    try:
        return Attachment.model_validate_json(described.read_bytes())
    except ValidationError as exc:
        raise OSError(f"{described} is not an attachment's description") from exc


ATTACHMENTS: Slot[AttachmentStore] = Slot("attachments")


def init_app(app: Flask) -> None:
    ATTACHMENTS.put(app, AttachmentStore(attachments_dir(app), SETTINGS.get(app)))
