"""SQLite for the sessions, their locks and rate windows (touched by every turn): a connection per
thread. The durable records open theirs through assistant/infra/database.py.

A write waits for another worker's write lock at most the busy timeout, then fails with SQLite's
"database is locked" (which the API answers with 503 and Retry-After, see assistant/web/errors.py).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

PROBE_WAIT_S = 0.25  # how long the readiness probe waits for the write lock
_busy_timeout_s = 5.0  # SQLITE_BUSY_TIMEOUT_S once an app set it; stores opened outside an app wait this


def set_busy_timeout(seconds: float) -> None:
    """SQLITE_BUSY_TIMEOUT_S for every database opened from now on. Process-wide, because every
    store opens its file through this module: the app sets it at start-up, before any store opens."""
    global _busy_timeout_s
    _busy_timeout_s = seconds


def writable(path: Path) -> bool:
    """Whether a write could start now: takes the write lock (BEGIN IMMEDIATE) and lets it go, on a
    connection of its own so no store's transaction is touched."""
    try:
        db = sqlite3.connect(path, timeout=PROBE_WAIT_S, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
        finally:
            db.close()
    except sqlite3.Error:
        return False
    return True


class _Connections(threading.local):
    pid: int | None = None  # the process that opened this thread's connection
    db: sqlite3.Connection


class ThreadSQLite:
    """A connection per thread, so a turn never queues behind another thread's, opened again in
    a forked worker (SQLite connections must not cross a fork). NORMAL sync in WAL mode survives
    a crash of the app, not of the machine's power, and spares an fsync per commit."""

    def __init__(self, path: Path, schema: str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._timeout_s = _busy_timeout_s
        self._local = _Connections()
        with self.connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(schema)

    def connect(self) -> sqlite3.Connection:
        """This thread's connection; `with` it for a transaction."""
        if self._local.pid != os.getpid():
            self._local.db = sqlite3.connect(self.path, timeout=self._timeout_s)
            self._local.db.execute("PRAGMA synchronous=NORMAL")
            self._local.pid = os.getpid()
        return self._local.db
