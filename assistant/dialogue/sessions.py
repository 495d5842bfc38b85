"""Session persistence: one store interface, SQLite (one machine) and Redis (several machines).

Every worker shares sessions through the store, never process memory. Two turns of the same
session never interleave: a per-session lock held in the store itself (so it holds across
worker processes) serialises them, and each save is optimistic (written only if the version
is still the one that was read), so even a lock lost to a crash cannot lose an update.
Sessions idle longer than the configured time expire and are purged.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Protocol

from assistant.dialogue.state import SessionState

LOCK_LEASE_S = 30.0  # a lock left by a crashed worker frees itself after this
LOCK_WAIT_S = 10.0
_POLL_S = 0.005


class VersionConflict(RuntimeError):
    """Another writer committed this session since it was loaded."""


class SessionBusy(RuntimeError):
    """Another turn of this session held its lock for longer than a client should wait."""


class SessionStore(Protocol):
    def load(self, session_id: str) -> SessionState | None: ...

    def save(self, state: SessionState) -> None:
        """Persist `state` if its version is still current, then bump `state.version`."""

    def lock(self, session_id: str) -> AbstractContextManager: ...

    def purge_expired(self) -> int: ...

    def ping(self) -> bool: ...

    def hit(self, key: str, window_s: int) -> tuple[int, float]:
        """Count one request against `key` in the current fixed window: (count so far, seconds
        until the window resets). Rate-limit counters live beside the sessions, shared by every worker."""


class StripedLocks:
    """A fixed pool of thread locks: bounded memory however many sessions there are."""

    def __init__(self, stripes: int = 64):
        self._locks = [threading.Lock() for _ in range(stripes)]

    def __call__(self, key: str) -> threading.Lock:
        return self._locks[zlib.crc32(key.encode()) % len(self._locks)]


def _wait_for(acquire, session_id: str) -> None:
    deadline = time.monotonic() + LOCK_WAIT_S
    while not acquire():
        if time.monotonic() > deadline:
            raise SessionBusy(session_id)
        time.sleep(_POLL_S)


class SQLiteSessionStore:
    """One row per session (JSON state, version, last update); WAL lets readers run freely."""

    def __init__(self, path: Path, ttl_s: float):
        self.path = Path(path)
        self.ttl_s = ttl_s
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._threads = StripedLocks()
        self._local = threading.local()
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL,"
                       " data TEXT NOT NULL, updated_at REAL NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS session_locks (id TEXT PRIMARY KEY, owner TEXT NOT NULL,"
                       " expires_at REAL NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS rate_windows (key TEXT PRIMARY KEY, window_start REAL NOT NULL,"
                       " count INTEGER NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection (a forked worker opens its own: SQLite connections must not
        cross a fork). NORMAL sync in WAL mode survives a crash of the app, not of the machine's
        power, and spares an fsync per commit."""
        if getattr(self._local, "pid", None) != os.getpid():
            self._local.db = sqlite3.connect(self.path, timeout=10)
            self._local.db.execute("PRAGMA synchronous=NORMAL")
            self._local.pid = os.getpid()
        return self._local.db

    @contextmanager
    def lock(self, session_id: str) -> Iterator[None]:
        owner = secrets.token_hex(8)

        def acquire() -> bool:
            now = time.time()
            with self._connect() as db:
                db.execute("DELETE FROM session_locks WHERE id = ? AND expires_at < ?", (session_id, now))
                return db.execute("INSERT OR IGNORE INTO session_locks VALUES (?, ?, ?)",
                                  (session_id, owner, now + LOCK_LEASE_S)).rowcount == 1

        with self._threads(session_id):  # threads of this process queue here, not on the database
            _wait_for(acquire, session_id)
            try:
                yield
            finally:
                with self._connect() as db:
                    db.execute("DELETE FROM session_locks WHERE id = ? AND owner = ?", (session_id, owner))

    def load(self, session_id: str) -> SessionState | None:
        row = self._connect().execute("SELECT version, data FROM sessions WHERE id = ? AND updated_at >= ?",
                                      (session_id, time.time() - self.ttl_s)).fetchone()
        if row is None:
            return None
        state = SessionState.model_validate_json(row[1])
        state.version = row[0]
        return state

    def save(self, state: SessionState) -> None:
        new_version = state.version + 1
        data = state.model_copy(update={"version": new_version}).model_dump_json()
        now = time.time()
        with self._connect() as db:
            if state.version == 0:  # new, or replacing an expired session of the same id
                cursor = db.execute(
                    "INSERT INTO sessions (id, version, data, updated_at) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET version = excluded.version, data = excluded.data,"
                    " updated_at = excluded.updated_at WHERE sessions.updated_at < ?",
                    (state.session_id, new_version, data, now, now - self.ttl_s),
                )
            else:
                cursor = db.execute(
                    "UPDATE sessions SET version = ?, data = ?, updated_at = ? WHERE id = ? AND version = ?",
                    (new_version, data, now, state.session_id, state.version),
                )
        if cursor.rowcount != 1:
            raise VersionConflict(state.session_id)
        state.version = new_version

    def purge_expired(self) -> int:
        with self._connect() as db:
            db.execute("DELETE FROM rate_windows WHERE window_start < ?", (time.time() - 86400,))
            return db.execute("DELETE FROM sessions WHERE updated_at < ?", (time.time() - self.ttl_s,)).rowcount

    def hit(self, key: str, window_s: int) -> tuple[int, float]:
        now = time.time()
        start = now - now % window_s
        with self._connect() as db:
            (count,) = db.execute(
                "INSERT INTO rate_windows VALUES (?, ?, 1) ON CONFLICT (key) DO UPDATE SET"
                " count = CASE WHEN window_start = excluded.window_start THEN count + 1 ELSE 1 END,"
                " window_start = excluded.window_start RETURNING count", (key, start)).fetchone()
        return count, start + window_s - now

    def ping(self) -> bool:
        return self._connect().execute("SELECT 1").fetchone() == (1,)


class RedisSessionStore:
    """A key per session holding its JSON and version, expiring after the idle time by itself."""

    _SAVE = """
    local current = redis.call('HGET', KEYS[1], 'version')
    if (current or '0') ~= ARGV[1] then return 0 end
    redis.call('HSET', KEYS[1], 'version', ARGV[2], 'data', ARGV[3])
    redis.call('PEXPIRE', KEYS[1], ARGV[4])
    return 1
    """
    _RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

    def __init__(self, url: str, ttl_s: float, prefix: str = "assistant"):
        import redis  # only deployments that use Redis need the client

        self.redis = redis.Redis.from_url(url, socket_timeout=5, health_check_interval=30)
        self.ttl_ms = int(ttl_s * 1000)
        self.prefix = prefix
        self._save = self.redis.register_script(self._SAVE)
        self._release = self.redis.register_script(self._RELEASE)

    def _key(self, kind: str, session_id: str) -> str:
        return f"{self.prefix}:{kind}:{session_id}"

    @contextmanager
    def lock(self, session_id: str) -> Iterator[None]:
        key, owner = self._key("lock", session_id), secrets.token_hex(8)
        _wait_for(lambda: bool(self.redis.set(key, owner, nx=True, px=int(LOCK_LEASE_S * 1000))), session_id)
        try:
            yield
        finally:
            self._release(keys=[key], args=[owner])

    def load(self, session_id: str) -> SessionState | None:
        version, data = self.redis.hmget(self._key("session", session_id), "version", "data")
        if data is None:
            return None
        assert version is not None, "the save script writes the version and the data together"
        state = SessionState.model_validate_json(data)
        state.version = int(version)
        return state

    def save(self, state: SessionState) -> None:
        new_version = state.version + 1
        data = state.model_copy(update={"version": new_version}).model_dump_json()
        saved = self._save(keys=[self._key("session", state.session_id)],
                           args=[str(state.version), str(new_version), data, self.ttl_ms])
        if saved != 1:
            raise VersionConflict(state.session_id)
        state.version = new_version

    def purge_expired(self) -> int:
        return 0  # Redis expires idle sessions (and rate windows) by itself

    def hit(self, key: str, window_s: int) -> tuple[int, float]:
        now = time.time()
        start = int(now - now % window_s)
        counter = self._key("rate", f"{key}:{start}")
        # redis types a pipeline's commands as returning their results, not the pipeline they chain on
        count, _ = self.redis.pipeline().incr(counter).expire(counter, window_s * 2).execute()  # type: ignore[attr-defined]
        return int(count), start + window_s - now

    def ping(self) -> bool:
        return bool(self.redis.ping())


def open_store(redis_url: str | None, sqlite_path: Path, ttl_s: float) -> SessionStore:
    """Redis when a URL is configured (several machines); otherwise SQLite (one machine)."""
    return RedisSessionStore(redis_url, ttl_s) if redis_url else SQLiteSessionStore(sqlite_path, ttl_s)
