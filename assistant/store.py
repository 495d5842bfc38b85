"""Session persistence: a small store interface and its SQLite implementation.

Updates are optimistic (a row is written only if its version is still the one that was
read), and turns of the same session are serialised by a striped lock, so concurrent
requests never lose an update and different sessions never wait on each other for long.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import zlib
from contextlib import AbstractContextManager, closing
from pathlib import Path
from typing import Protocol

from assistant.state import SessionState


class VersionConflict(RuntimeError):
    """Another writer committed this session since it was loaded."""


class SessionStore(Protocol):
    def load(self, session_id: str) -> SessionState | None: ...

    def save(self, state: SessionState) -> None:
        """Persist `state` if its version is still current, then bump `state.version`."""

    def lock(self, session_id: str) -> AbstractContextManager: ...


class StripedLocks:
    """A fixed pool of locks: bounded memory however many sessions there are."""

    def __init__(self, stripes: int = 64):
        self._locks = [threading.Lock() for _ in range(stripes)]

    def __call__(self, key: str) -> threading.Lock:
        return self._locks[zlib.crc32(key.encode()) % len(self._locks)]


class SQLiteSessionStore:
    """One row per session: its JSON state and a version number. WAL lets readers run freely."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = StripedLocks()
        with closing(self._connect()) as db, db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS sessions ("
                " id TEXT PRIMARY KEY, version INTEGER NOT NULL,"
                " data TEXT NOT NULL, updated_at REAL NOT NULL)"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def load(self, session_id: str) -> SessionState | None:
        with closing(self._connect()) as db:
            row = db.execute(
                "SELECT version, data FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        if row is None:
            return None
        state = SessionState.model_validate_json(row[1])
        state.version = row[0]
        return state

    def save(self, state: SessionState) -> None:
        new_version = state.version + 1
        data = state.model_copy(update={"version": new_version}).model_dump_json()
        with closing(self._connect()) as db, db:
            if state.version == 0:
                cursor = db.execute(
                    "INSERT INTO sessions (id, version, data, updated_at) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (id) DO NOTHING",
                    (state.session_id, new_version, data, time.time()),
                )
            else:
                cursor = db.execute(
                    "UPDATE sessions SET version = ?, data = ?, updated_at = ?"
                    " WHERE id = ? AND version = ?",
                    (new_version, data, time.time(), state.session_id, state.version),
                )
        if cursor.rowcount != 1:
            raise VersionConflict(state.session_id)
        state.version = new_version
