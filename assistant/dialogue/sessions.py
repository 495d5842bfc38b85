"""Session persistence: a store and its locks, each on SQLite (one machine) or Redis (several).

Every worker shares sessions through the store, never process memory. Two turns of the same
session never interleave: a per-session lock kept in the same backend (so it holds across
worker processes) serialises them, and each save is optimistic (written only if the version
is still the one that was read), so even a lock lost to a crash cannot lose an update. A lock
is a short lease that a heartbeat renews while its turn runs: a long turn keeps it, and the
lock of a killed worker frees itself within one lease.

The store also keeps answers for retries: a turn's answer is written with the session in one
write, so a client that sends the same message again (the same request id) gets that answer
instead of a second turn, even when the first answer never reached it.
Sessions idle longer than the configured time expire and are purged.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from assistant.dialogue.state import SessionState
from assistant.infra.config import SETTINGS, sessions_file
from assistant.infra.database import SQLite, Transaction
from assistant.infra.extensions import Slot
from assistant.infra.periodic import Periodic, start_chore
from assistant.infra.redis_client import connect_redis

if TYPE_CHECKING:
    from flask import Flask

LOCK_LEASE_S = 5.0  # a lock left by a killed worker frees itself after this; its holder renews it
LOCK_WAIT_S = 10.0
COMMIT_ATTEMPTS = 3  # saves of a session tried before its writers are told it is busy
_POLL_S = 0.005
log = logging.getLogger(__name__)


class VersionConflict(RuntimeError):
    """Another writer committed this session since it was loaded."""


class SessionBusy(RuntimeError):
    """Another turn of this session held its lock for longer than a client should wait."""


class Answers(Protocol):
    """Answers kept REPLAY_TTL_S for retries, so a request sent twice is acted on once. A scope is a
    namespace: a session's answers are under its session id; other callers pick their own."""

    def remember(self, scope: str, key: str, answer: str) -> None:
        """Keep `answer` (JSON text) as the answer to `key` (a client's request id or idempotency key)."""

    def recall(self, scope: str, key: str) -> str | None:
        """The answer remembered for `key`, if it is not older than REPLAY_TTL_S."""


class SessionStore(Answers, Protocol):
    def load(self, session_id: str) -> SessionState | None: ...

    def save(self, state: SessionState, answer: tuple[str, str] | None = None) -> None:
        """Persist `state` if its version is still current, then bump `state.version`. `answer`, a
        key and its answer, is remembered in the session's scope in the same write: a turn is never
        saved without the answer a retry gets."""

    def purge_expired(self) -> int: ...

    def ping(self) -> bool: ...


class SessionLocks(Protocol):
    def lock(self, key: str) -> AbstractContextManager[None]:
        """Hold `key` (a session, an extension's user) against every thread and worker that shares the backend."""


class StripedLocks:
    """A fixed pool of thread locks: bounded memory however many sessions there are. Keys share
    stripes, so a thread holding one key may take another on the same stripe (re-entrant: an
    Idempotency-Key held around an extension's plan), and a stripe another thread holds is
    waited for no longer than a lock is: then the key is busy, never a thread stuck for good."""

    def __init__(self, stripes: int = 64):
        self._locks = [threading.RLock() for _ in range(stripes)]

    @contextmanager
    def __call__(self, key: str) -> Iterator[None]:
        stripe = self._locks[zlib.crc32(key.encode()) % len(self._locks)]
        if not stripe.acquire(timeout=LOCK_WAIT_S):
            raise SessionBusy(key)
        try:
            yield
        finally:
            stripe.release()


def _wait_for(acquire: Callable[[], bool], key: str) -> None:
    deadline = time.monotonic() + LOCK_WAIT_S
    while not acquire():
        if time.monotonic() > deadline:
            raise SessionBusy(key)
        time.sleep(_POLL_S)


@contextmanager
def _leased(key: str, acquire: Callable[[], bool], renew: Callable[[], object], release: Callable[[], object]) -> Iterator[None]:
    """Hold `key` while the block runs: a lease taken by `acquire` and renewed every third of
    LOCK_LEASE_S by a heartbeat thread, which dies with its worker. A renewal that comes after
    `release` extends nothing: it extends only a lease its owner still holds."""
    _wait_for(acquire, key)
    done = threading.Event()

    def beat() -> None:
        while not done.wait(LOCK_LEASE_S / 3):
            try:
                renew()
            except Exception:  # the lease may lapse; the save's version check still guards the session
                log.warning("could not renew a session lock's lease", exc_info=True)

    threading.Thread(target=beat, daemon=True, name="lock-lease").start()
    try:
        yield
    finally:
        done.set()
        release()


class SQLiteSessionStore:
    """One row per session (JSON state, version, last update) and per remembered answer; WAL lets
    readers run freely."""

    def __init__(self, path: Path, ttl_s: float, replay_ttl_s: float, busy_timeout_s: float = 5.0):
        self._db = SQLite(path, busy_timeout_s, kind="sessions")
        self._db.script(
            "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY,"
            " version INTEGER NOT NULL, data TEXT NOT NULL, updated_at REAL NOT NULL);"
            "CREATE TABLE IF NOT EXISTS answers (scope TEXT NOT NULL, key TEXT NOT NULL,"
            " answer TEXT NOT NULL, saved_at REAL NOT NULL, PRIMARY KEY (scope, key))",
        )
        self.path = self._db.path
        self.ttl_s, self.replay_ttl_s = ttl_s, replay_ttl_s

    def load(self, session_id: str) -> SessionState | None:
        row = self._db.one(
            "SELECT version, data FROM sessions WHERE id = ? AND updated_at >= ?", (session_id, time.time() - self.ttl_s)
        )
        if row is None:
            return None
        state = SessionState.model_validate_json(row[1])
        state.version = row[0]
        return state

    def save(self, state: SessionState, answer: tuple[str, str] | None = None) -> None:
        new_version = state.version + 1
        data = state.model_copy(update={"version": new_version}).model_dump_json()
        now = time.time()
        with self._db.transaction() as db:  # one transaction: the session and its answer, or neither
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
            if cursor.rowcount == 1 and answer:
                self._remember(db, state.session_id, *answer)
        if cursor.rowcount != 1:
            raise VersionConflict(state.session_id)
        state.version = new_version

    def remember(self, scope: str, key: str, answer: str) -> None:
        with self._db.transaction() as db:
            self._remember(db, scope, key, answer)

    @staticmethod
    def _remember(db: Transaction, scope: str, key: str, answer: str) -> None:
        db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", (scope, key, answer, time.time()))

    def recall(self, scope: str, key: str) -> str | None:
        row = self._db.one(
            "SELECT answer FROM answers WHERE scope = ? AND key = ? AND saved_at >= ?",
            (scope, key, time.time() - self.replay_ttl_s),
        )
        return None if row is None else str(row[0])

    def purge_expired(self) -> int:
        now = time.time()
        with self._db.transaction() as db:
            db.execute("DELETE FROM answers WHERE saved_at < ?", (now - self.replay_ttl_s,))
            return db.execute("DELETE FROM sessions WHERE updated_at < ?", (now - self.ttl_s,)).rowcount

    def ping(self) -> bool:
        """Whether a turn could be saved now: a database write-locked by another process is not ready."""
        return self._db.writable()


class SQLiteLocks:
    """A row per held key and its lease's end, in the sessions' file, so the lock holds across
    worker processes; a key's threads in this process queue on a thread lock first, not on the database."""

    def __init__(self, path: Path, busy_timeout_s: float = 5.0):
        self._db = SQLite(path, busy_timeout_s, kind="sessions")
        self._db.script(
            "CREATE TABLE IF NOT EXISTS session_locks (id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at REAL NOT NULL)"
        )
        self._threads = StripedLocks()

    @contextmanager
    def lock(self, key: str) -> Iterator[None]:
        owner = secrets.token_hex(8)

        def acquire() -> bool:
            now = time.time()
            with self._db.transaction() as db:
                db.execute("DELETE FROM session_locks WHERE id = ? AND expires_at < ?", (key, now))
                return (
                    db.execute("INSERT OR IGNORE INTO session_locks VALUES (?, ?, ?)", (key, owner, now + LOCK_LEASE_S)).rowcount
                    == 1
                )

        def renew() -> None:
            with self._db.transaction() as db:
                db.execute(
                    "UPDATE session_locks SET expires_at = ? WHERE id = ? AND owner = ?", (time.time() + LOCK_LEASE_S, key, owner)
                )

        def release() -> None:
            with self._db.transaction() as db:
                db.execute("DELETE FROM session_locks WHERE id = ? AND owner = ?", (key, owner))

        with self._threads(key), _leased(key, acquire, renew, release):
            yield


class RedisSessionStore:
    """A key per session holding its JSON and version, and one per remembered answer, each
    expiring by itself (the session after the idle time, the answer after REPLAY_TTL_S)."""

    _SAVE = """
    local current = redis.call('HGET', KEYS[1], 'version')
    if (current or '0') ~= ARGV[1] then return 0 end
    redis.call('HSET', KEYS[1], 'version', ARGV[2], 'data', ARGV[3])
    redis.call('PEXPIRE', KEYS[1], ARGV[4])
    if KEYS[2] then redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[6]) end
    return 1
    """

    def __init__(self, url: str, ttl_s: float, replay_ttl_s: float, prefix: str = "assistant"):
        self.redis = connect_redis(url)
        self.ttl_ms, self.replay_ttl_ms = int(ttl_s * 1000), int(replay_ttl_s * 1000)
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

    def save(self, state: SessionState, answer: tuple[str, str] | None = None) -> None:
        new_version = state.version + 1
        data = state.model_copy(update={"version": new_version}).model_dump_json()
        keys = [f"{self.prefix}:session:{state.session_id}"]
        args: list[str | int] = [str(state.version), str(new_version), data, self.ttl_ms]
        if answer:
            keys.append(self._answer_key(state.session_id, answer[0]))
            args += [answer[1], self.replay_ttl_ms]
        if self._save(keys=keys, args=args) != 1:
            raise VersionConflict(state.session_id)
        state.version = new_version

    def _answer_key(self, scope: str, key: str) -> str:
        """Unambiguous whatever the scope and key contain: the scope's length says where it ends."""
        return f"{self.prefix}:answer:{len(scope)}:{scope}:{key}"

    def remember(self, scope: str, key: str, answer: str) -> None:
        self.redis.set(self._answer_key(scope, key), answer, px=self.replay_ttl_ms)

    def recall(self, scope: str, key: str) -> str | None:
        found = self.redis.get(self._answer_key(scope, key))
        return found.decode() if isinstance(found, bytes) else found

    def purge_expired(self) -> int:
        return 0  # Redis expires idle sessions by itself

    def ping(self) -> bool:
        return bool(self.redis.ping())


class RedisLocks:
    """A key per held key, set only if absent and leased, so a killed holder's lock frees itself."""

    _RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0"
    _RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

    def __init__(self, url: str, prefix: str = "assistant"):
        self.redis = connect_redis(url)
        self.prefix = prefix
        self._renew = self.redis.register_script(self._RENEW)
        self._release = self.redis.register_script(self._RELEASE)

    @contextmanager
    def lock(self, key: str) -> Iterator[None]:
        name, owner = f"{self.prefix}:lock:{key}", secrets.token_hex(8)
        with _leased(
            key,
            lambda: bool(self.redis.set(name, owner, nx=True, px=int(LOCK_LEASE_S * 1000))),
            lambda: self._renew(keys=[name], args=[owner, int(LOCK_LEASE_S * 1000)]),
            lambda: self._release(keys=[name], args=[owner]),
        ):
            yield


def amend(store: SessionStore, locks: SessionLocks, session_id: str, change: Callable[[SessionState], None]) -> SessionState | None:
    """`change` made to a saved session as a turn makes one: under its lock, and again on a fresh
    copy if another writer committed first. None: there is no such session."""
    for _ in range(COMMIT_ATTEMPTS):
        with locks.lock(session_id):
            state = store.load(session_id)
            if state is None:
                return None
            change(state)
            try:
                store.save(state)
            except VersionConflict:
                continue
            return state
    raise VersionConflict(session_id)


STORE: Slot[SessionStore] = Slot("session_store")
LOCKS: Slot[SessionLocks] = Slot("session_locks")


def init_app(app: Flask) -> None:
    """Sessions and their locks in Redis when SESSION_STORE names one (several machines), else in
    SQLite (one machine); expired sessions are purged hourly. Sessions open the app's first
    database."""
    settings = SETTINGS.get(app)
    busy_s = settings.sqlite_busy_timeout_s
    url, ttl_s, replay_ttl_s = settings.session_store, settings.session_ttl_s, settings.replay_ttl_s
    if url:
        store: SessionStore = RedisSessionStore(url, ttl_s, replay_ttl_s)
        locks: SessionLocks = RedisLocks(url)
    else:
        store = SQLiteSessionStore(sessions_file(app), ttl_s, replay_ttl_s, busy_s)
        locks = SQLiteLocks(sessions_file(app), busy_s)
    STORE.put(app, store)
    LOCKS.put(app, locks)
    start_chore(app, Periodic("session-purge", 3600, store.purge_expired))
