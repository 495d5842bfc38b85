"""Session persistence: a store and its locks, each on SQLite (one machine) or Redis (several).

Every worker shares sessions through the store, never process memory. Two turns of the same
session never interleave: a per-session lock kept in the same backend (so it holds across
worker processes) serialises them, and each save is optimistic (written only if the version
is still the one that was read), so even a lock lost to a crash cannot lose an update.
Sessions idle longer than the configured time expire and are purged.
"""

from __future__ import annotations

import secrets
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from assistant.booking.periodic import Periodic, start_chore
from assistant.dialogue.state import SessionState
from assistant.infra.config import SETTINGS, sessions_file
from assistant.infra.extensions import Slot
from assistant.infra.sqlite import ThreadSQLite

if TYPE_CHECKING:
    from flask import Flask
    from redis import Redis

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

    def purge_expired(self) -> int: ...

    def ping(self) -> bool: ...


class SessionLocks(Protocol):
    def lock(self, key: str) -> AbstractContextManager[None]:
        """Hold `key` (a session, a concierge user) against every thread and worker that shares the backend."""


class StripedLocks:
    """A fixed pool of thread locks: bounded memory however many sessions there are."""

    def __init__(self, stripes: int = 64):
        self._locks = [threading.Lock() for _ in range(stripes)]

    def __call__(self, key: str) -> threading.Lock:
        return self._locks[zlib.crc32(key.encode()) % len(self._locks)]


def _wait_for(acquire: Callable[[], bool], key: str) -> None:
    deadline = time.monotonic() + LOCK_WAIT_S
    while not acquire():
        if time.monotonic() > deadline:
            raise SessionBusy(key)
        time.sleep(_POLL_S)


class SQLiteSessionStore:
    """One row per session (JSON state, version, last update); WAL lets readers run freely."""

    def __init__(self, path: Path, ttl_s: float):
        self._db = ThreadSQLite(
            path,
            "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY,"
            " version INTEGER NOT NULL, data TEXT NOT NULL, updated_at REAL NOT NULL)",
        )
        self.path = self._db.path
        self.ttl_s = ttl_s

    def load(self, session_id: str) -> SessionState | None:
        row = (
            self._db.connect()
            .execute("SELECT version, data FROM sessions WHERE id = ? AND updated_at >= ?", (session_id, time.time() - self.ttl_s))
            .fetchone()
        )
        if row is None:
            return None
        state = SessionState.model_validate_json(row[1])
        state.version = row[0]
        return state

    def save(self, state: SessionState) -> None:
        new_version = state.version + 1
        data = state.model_copy(update={"version": new_version}).model_dump_json()
        now = time.time()
        with self._db.connect() as db:
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
        with self._db.connect() as db:
            return db.execute("DELETE FROM sessions WHERE updated_at < ?", (time.time() - self.ttl_s,)).rowcount

    def ping(self) -> bool:
        return bool(self._db.connect().execute("SELECT 1").fetchone() == (1,))


class SQLiteLocks:
    """A row per held key, in the sessions' file, so the lock holds across worker processes; a
    key's threads in this process queue on a thread lock first, not on the database."""

    def __init__(self, path: Path):
        self._db = ThreadSQLite(
            path, "CREATE TABLE IF NOT EXISTS session_locks (id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at REAL NOT NULL)"
        )
        self._threads = StripedLocks()

    @contextmanager
    def lock(self, key: str) -> Iterator[None]:
        owner = secrets.token_hex(8)

        def acquire() -> bool:
            now = time.time()
            with self._db.connect() as db:
                db.execute("DELETE FROM session_locks WHERE id = ? AND expires_at < ?", (key, now))
                return (
                    db.execute("INSERT OR IGNORE INTO session_locks VALUES (?, ?, ?)", (key, owner, now + LOCK_LEASE_S)).rowcount
                    == 1
                )

        with self._threads(key):
            _wait_for(acquire, key)
            try:
                yield
            finally:
                with self._db.connect() as db:
                    db.execute("DELETE FROM session_locks WHERE id = ? AND owner = ?", (key, owner))


def connect_redis(url: str) -> Redis:
    """A client with timeouts, so an unreachable Redis fails a request instead of hanging it."""
    import redis  # only deployments that use Redis need the client

    return redis.Redis.from_url(url, socket_timeout=5, health_check_interval=30)


class RedisSessionStore:
    """A key per session holding its JSON and version, expiring after the idle time by itself."""

    _SAVE = """
    local current = redis.call('HGET', KEYS[1], 'version')
    if (current or '0') ~= ARGV[1] then return 0 end
    redis.call('HSET', KEYS[1], 'version', ARGV[2], 'data', ARGV[3])
    redis.call('PEXPIRE', KEYS[1], ARGV[4])
    return 1
    """

    def __init__(self, url: str, ttl_s: float, prefix: str = "assistant"):
        self.redis = connect_redis(url)
        self.ttl_ms = int(ttl_s * 1000)
        self.prefix = prefix
        self._save = self.redis.register_script(self._SAVE)

    def load(self, session_id: str) -> SessionState | None:
        version, data = self.redis.hmget(f"{self.prefix}:session:{session_id}", "version", "data")
        if data is None:
            return None
        assert version is not None, "the save script writes the version and the data together"
        state = SessionState.model_validate_json(data)
        state.version = int(version)
        return state

    def save(self, state: SessionState) -> None:
        new_version = state.version + 1
        data = state.model_copy(update={"version": new_version}).model_dump_json()
        saved = self._save(
            keys=[f"{self.prefix}:session:{state.session_id}"], args=[str(state.version), str(new_version), data, self.ttl_ms]
        )
        if saved != 1:
            raise VersionConflict(state.session_id)
        state.version = new_version

    def purge_expired(self) -> int:
        return 0  # Redis expires idle sessions by itself

    def ping(self) -> bool:
        return bool(self.redis.ping())


class RedisLocks:
    """A key per held key, set only if absent and leased, so a crashed holder's lock frees itself."""

    _RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

    def __init__(self, url: str, prefix: str = "assistant"):
        self.redis = connect_redis(url)
        self.prefix = prefix
        self._release = self.redis.register_script(self._RELEASE)

    @contextmanager
    def lock(self, key: str) -> Iterator[None]:
        name, owner = f"{self.prefix}:lock:{key}", secrets.token_hex(8)
        _wait_for(lambda: bool(self.redis.set(name, owner, nx=True, px=int(LOCK_LEASE_S * 1000))), key)
        try:
            yield
        finally:
            self._release(keys=[name], args=[owner])


STORE: Slot[SessionStore] = Slot("session_store")
LOCKS: Slot[SessionLocks] = Slot("session_locks")


def init_app(app: Flask) -> None:
    """Sessions and their locks in Redis when SESSION_STORE names one (several machines), else in
    SQLite (one machine); expired sessions are purged hourly."""
    url, ttl_s = SETTINGS.get(app).session_store, SETTINGS.get(app).session_ttl_s
    if url:
        store: SessionStore = RedisSessionStore(url, ttl_s)
        locks: SessionLocks = RedisLocks(url)
    else:
        store, locks = SQLiteSessionStore(sessions_file(app), ttl_s), SQLiteLocks(sessions_file(app))
    STORE.put(app, store)
    LOCKS.put(app, locks)
    start_chore(app, Periodic("session-purge", 3600, store.purge_expired))
