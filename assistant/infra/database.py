"""The one way the app opens its durable database: bookings, codes, reminders, preferences,
hand-overs, attachments' descriptions and what extensions keep.

SQLite (a file beside the sessions) is the embedded default: no configuration, one machine.
DATABASE_URL=postgresql://... puts every durable record in PostgreSQL, shared by every machine.
Stores write their SQL once, in the subset both understand, with `?` for parameters:

- upserts as `INSERT ... ON CONFLICT (...) DO UPDATE/NOTHING`;
- `FOR UPDATE` (and `SKIP LOCKED`) where a row read is about to be changed: PostgreSQL locks
  the rows; on SQLite, where a transaction holds the whole file's write lock from its BEGIN
  IMMEDIATE, the clause is dropped;
- `Transaction.lock(key)` where a decision rests on rows that may not exist yet (the bookings an
  hour already has): PostgreSQL takes an advisory lock for the transaction; SQLite needs none.

The schema is not here: Alembic's migrations make it (assistant/infra/migrations/). Each
statement sent is counted (`STATEMENTS`), so the load bench can say what a turn costs the database.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import psycopg
from flask import Flask
from prometheus_client import Counter

from assistant.infra.config import SETTINGS, durable_url
from assistant.infra.extensions import Slot

log = logging.getLogger(__name__)
Row = tuple[Any, ...]  # a row's columns, typed by the schema each store's migration declares
Params = Sequence[object]
ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, psycopg.Error)  # what either may raise
PROBE_WAIT_S = 0.25  # how long the readiness probe waits for SQLite's write lock, or a connection
POOL_SIZE = 8  # PostgreSQL connections per process: a worker's threads, and its scheduler's
STATEMENTS = Counter("assistant_db_statements", "Statements sent to a database", ["database"])  # durable, or sessions
_DURABLE = STATEMENTS.labels("durable")  # PostgreSQL keeps only durable records
_FOR_UPDATE = re.compile(r"\s+FOR\s+UPDATE(\s+SKIP\s+LOCKED)?", re.IGNORECASE)


class Cursor(Protocol):
    """What a statement in a transaction gives back: sqlite3's cursor and psycopg's both are one."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Transaction(Protocol):
    def execute(self, sql: str, params: Params = ()) -> Cursor: ...
    def lock(self, key: str) -> None:
        """Until this transaction ends, another transaction locking `key` waits."""


class Database(Protocol):
    url: str  # without its password: for logs and errors

    def rows(self, sql: str, params: Params = ()) -> list[Row]: ...
    def one(self, sql: str, params: Params = ()) -> Row | None: ...
    def write(self, sql: str, params: Params = ()) -> int:
        """One statement, committed on its own; how many rows it changed."""

    def transaction(self) -> AbstractContextManager[Transaction]:
        """`with db.transaction() as tx:` several statements as one, across every machine. Inside
        another transaction of this thread it joins that one (and so do `rows`, `one`, `write`):
        a caller makes several stores' steps one by opening the transaction around them."""

    def writable(self) -> bool:
        """Whether a write could start now (the readiness probe)."""

    def close(self) -> None: ...


def open_database(url: str, busy_timeout_s: float = 5.0) -> Database:
    """`sqlite:///path` or `postgresql://...` (with `+psycopg` or not)."""
    if url.startswith("sqlite:///"):
        return SQLite(Path(url.removeprefix("sqlite:///")), busy_timeout_s)
    if re.match(r"postgres(ql)?(\+psycopg)?://", url):
        return PostgreSQL(url, busy_timeout_s)
    raise ValueError(f"DATABASE_URL must start with sqlite:/// or postgresql://, not {url.split(':', 1)[0]}:")


def shown(url: str) -> str:
    """The URL without its password."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class _Local(threading.local):
    pid: int | None = None  # the process that opened this thread's connection
    db: sqlite3.Connection
    open: int = 0  # how deep in transactions this thread is


class _Open(threading.local):
    connection: Any = None  # this thread's connection while a transaction is open on it


class SQLite:
    """A connection per thread (opened again in a forked worker: SQLite connections must not cross
    a fork), in autocommit so that `transaction` alone begins one. WAL, so readers never wait for
    a writer; the busy timeout queues another worker's writer instead of failing it."""

    def __init__(self, path: Path, busy_timeout_s: float = 5.0, kind: str = "durable"):
        """`kind`: what it keeps, as /metrics counts its statements (durable, or sessions)."""
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self._statements = STATEMENTS.labels(kind)
        self._timeout_s = busy_timeout_s
        self._local = _Local()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection().execute("PRAGMA journal_mode=WAL")

    def _connection(self) -> sqlite3.Connection:
        if self._local.pid != os.getpid():
            self._local.db = sqlite3.connect(self.path, timeout=self._timeout_s, isolation_level=None, check_same_thread=False)
            self._local.db.execute("PRAGMA synchronous=NORMAL")
            self._local.pid = os.getpid()
        return self._local.db

    def _execute(self, sql: str, params: Params) -> sqlite3.Cursor:
        self._statements.inc()
        return self._connection().execute(_sqlite(sql), tuple(params))

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        return self._execute(sql, params).fetchall()

    def one(self, sql: str, params: Params = ()) -> Row | None:
        row: Row | None = self._execute(sql, params).fetchone()
        return row

    def write(self, sql: str, params: Params = ()) -> int:
        return self._execute(sql, params).rowcount

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """The write lock is taken at BEGIN, so whatever the transaction reads stays true until it
        ends. The thread's one connection carries `rows`, `one` and `write` into it too."""
        if self._local.pid == os.getpid() and self._local.open:
            self._local.open += 1
            try:
                yield _SQLiteTransaction(self)
            finally:
                self._local.open -= 1
            return
        self._execute("BEGIN IMMEDIATE", ())
        self._local.open = 1
        try:
            yield _SQLiteTransaction(self)
        except BaseException:
            self._execute("ROLLBACK", ())
            raise
        else:
            self._execute("COMMIT", ())
        finally:
            self._local.open = 0

    def script(self, sql: str) -> None:
        """Tables of the sessions' file, which keeps what Redis keeps on several machines and makes
        its own (the durable records' schema is the migrations')."""
        self._connection().executescript(sql)

    def writable(self) -> bool:
        """Takes the write lock (BEGIN IMMEDIATE) and lets it go, on a connection of its own so no
        store's transaction is touched."""
        try:
            db = sqlite3.connect(self.path, timeout=PROBE_WAIT_S, isolation_level=None)
            try:
                db.execute("BEGIN IMMEDIATE")
                db.execute("ROLLBACK")
            finally:
                db.close()
        except sqlite3.Error:
            return False
        return True

    def close(self) -> None:
        if self._local.pid == os.getpid():
            self._local.db.close()
            self._local.pid = None


class _SQLiteTransaction:
    def __init__(self, db: SQLite):
        self._db = db

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        return self._db._execute(sql, params)

    def lock(self, key: str) -> None:
        """The transaction holds the file's write lock already."""


class PostgreSQL:
    """A pool of connections per process, opened lazily (so not before gunicorn forks), each in
    autocommit so that `transaction` alone begins one (READ COMMITTED: what a transaction decides
    on, it locks with FOR UPDATE or `lock`)."""

    def __init__(self, url: str, lock_timeout_s: float = 5.0):
        """`lock_timeout_s`: how long a statement waits for another transaction's lock before it
        fails (and the API answers 503), as SQLite's busy timeout does."""
        self.url = shown(url)
        self._options, self._wait_s = f"-c lock_timeout={int(lock_timeout_s * 1000)}", lock_timeout_s
        self._conninfo = re.sub(r"^postgres(ql)?(\+psycopg)?://", "postgresql://", url)
        self._pool: Any = None
        self._pid: int | None = None
        self._opening = threading.Lock()
        self._open = _Open()

    def _connections(self) -> Any:
        if self._pid != os.getpid():
            from psycopg_pool import ConnectionPool

            with self._opening:
                if self._pid != os.getpid():
                    self._pool = ConnectionPool(
                        self._conninfo,
                        min_size=1,
                        max_size=POOL_SIZE,
                        kwargs={"autocommit": True, "options": self._options},
                        timeout=self._wait_s,  # for a connection: a pool spent or a server gone answers 503 then
                        open=True,
                        name="assistant",
                    )
                    self._pid = os.getpid()
        return self._pool

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """The thread's open transaction's connection, else one from the pool for a statement."""
        if self._open.connection is not None:
            yield self._open.connection
        else:
            with self._connections().connection() as db:
                yield db

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        with self._connection() as db:
            return _pg_execute(db, sql, params).fetchall()  # type: ignore[no-any-return]

    def one(self, sql: str, params: Params = ()) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def write(self, sql: str, params: Params = ()) -> int:
        with self._connection() as db:
            return _pg_execute(db, sql, params).rowcount  # type: ignore[no-any-return]

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        if self._open.connection is not None:
            yield _PostgreSQLTransaction(self._open.connection)
            return
        with self._connections().connection() as db, db.transaction():
            _DURABLE.inc(2)  # BEGIN and COMMIT, each a round trip
            self._open.connection = db
            try:
                yield _PostgreSQLTransaction(db)
            finally:
                self._open.connection = None

    def writable(self) -> bool:
        try:
            with self._connections().connection(timeout=PROBE_WAIT_S * 8) as db:
                return bool(db.execute("SELECT NOT pg_is_in_recovery()").fetchone()[0])
        except Exception:  # any failure to reach it means: not ready
            return False

    def close(self) -> None:
        if self._pool is not None and self._pid == os.getpid():
            self._pool.close()
            self._pid = None


class _PostgreSQLTransaction:
    def __init__(self, db: Any):
        self._db = db

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        return _pg_execute(self._db, sql, params)  # type: ignore[no-any-return]

    def lock(self, key: str) -> None:
        """A transaction-scoped advisory lock on the key's 64-bit hash."""
        number = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
        _pg_execute(self._db, "SELECT pg_advisory_xact_lock(?)", (number,))


def _pg_execute(db: Any, sql: str, params: Params) -> Any:
    """PostgreSQL's text holds no NUL character, which SQLite's does: a customer's text that has
    one keeps a visible U+FFFD in its place rather than failing the turn."""
    _DURABLE.inc()
    return db.execute(_postgresql(sql), tuple(p.replace("\x00", "\ufffd") if isinstance(p, str) else p for p in params))


@lru_cache(maxsize=512)
def _sqlite(sql: str) -> str:
    return _FOR_UPDATE.sub("", sql)


@lru_cache(maxsize=512)
def _postgresql(sql: str) -> str:
    """`?` placeholders as psycopg's `%s` (a literal `%` doubled first)."""
    return sql.replace("%", "%%").replace("?", "%s")


DATABASE: Slot[Database] = Slot("database")


def init_app(app: Flask) -> None:
    """The durable database, its schema current: an embedded SQLite file is brought up to date here
    (one machine owns it); a PostgreSQL database behind the code refuses to start, naming the
    command that migrates it (several machines must not race to)."""
    from assistant.infra import migrations

    settings = SETTINGS.get(app)
    url = durable_url(settings, Path(app.instance_path))
    if url.startswith("sqlite:///"):
        migrations.upgrade(url)
    else:
        migrations.check(url)
        if not settings.session_store:
            log.warning(
                "DATABASE_URL is shared, but sessions stay in this machine's SQLite: set SESSION_STORE for several machines"
            )
    DATABASE.put(app, open_database(url, settings.sqlite_busy_timeout_s))
