"""The small SQLite stores (bookings, codes, reminders, preferences) share one way of opening a file."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class SharedSQLite:
    """One connection per store instance, shared by its threads behind a lock; WAL so other
    workers' readers never wait, and a busy timeout so their writers queue instead of failing."""

    def __init__(self, path: Path, schema: str):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=5, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(schema)

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def one(self, sql: str, params: tuple = ()) -> tuple | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def write(self, sql: str, params: tuple = ()) -> int:
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
