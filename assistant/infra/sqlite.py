"""The two ways the app opens SQLite: one connection shared by a store's threads (the small
stores: bookings, codes, reminders, preferences), or one per thread (sessions, their locks and
rate windows, touched by every turn).

A write waits for another worker's write lock at most the busy timeout, then fails with SQLite's
"database is locked" (which the API answers with 503 and Retry-After, see assistant/web/errors.py).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

Row = tuple[Any, ...]  # a row's columns, typed by the schema each store declares, not by sqlite3
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


class SharedSQLite:
    """One connection per store instance, shared by its threads behind a lock; WAL so other
    workers' readers never wait, and a busy timeout so their writers queue instead of failing."""

    def __init__(self, path: Path, schema: str):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=_busy_timeout_s, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(schema)

    def rows(self, sql: str, params: tuple[object, ...] = ()) -> list[Row]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def one(self, sql: str, params: tuple[object, ...] = ()) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def write(self, sql: str, params: tuple[object, ...] = ()) -> int:
        """One autocommitted statement; how many rows it changed."""
        with self._lock:
            return self._db.execute(sql, params).rowcount

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Several statements as one, atomic across workers (the write lock is taken at once)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")


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
