"""Rate limits per client (address) and per session, shared by every worker through counters
kept beside the sessions (the same SQLite file, or the same Redis).

Fixed one-minute windows: cheap (one counter update per request) and good enough to stop a
flood; a refused request gets 429 with Retry-After and changes nothing.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Protocol

from flask import Flask

from assistant.booking.periodic import Periodic, start_chore
from assistant.dialogue.sessions import connect_redis
from assistant.infra.config import SETTINGS, sessions_file
from assistant.infra.extensions import Slot
from assistant.infra.sqlite import ThreadSQLite
from assistant.web.errors import ApiError

WINDOW_S = 60


class RateCounters(Protocol):
    def hit(self, key: str, window_s: int) -> tuple[int, float]:
        """Count one request against `key` in the current fixed window: (count so far, seconds
        until the window resets)."""

    def purge_expired(self) -> int: ...


class SQLiteRateCounters:
    """A row per key: its window's start and count, restarted by the first hit of a new window."""

    def __init__(self, path: Path):
        self._db = ThreadSQLite(
            path,
            "CREATE TABLE IF NOT EXISTS rate_windows (key TEXT PRIMARY KEY, window_start REAL NOT NULL, count INTEGER NOT NULL)",
        )

    def hit(self, key: str, window_s: int) -> tuple[int, float]:
        now = time.time()
        start = now - now % window_s
        with self._db.connect() as db:
            (count,) = db.execute(
                "INSERT INTO rate_windows VALUES (?, ?, 1) ON CONFLICT (key) DO UPDATE SET"
                " count = CASE WHEN window_start = excluded.window_start THEN count + 1 ELSE 1 END,"
                " window_start = excluded.window_start RETURNING count",
                (key, start),
            ).fetchone()
        return int(count), start + window_s - now

    def purge_expired(self) -> int:
        """Rows of keys not seen for a day (a client or session that went away)."""
        with self._db.connect() as db:
            return db.execute("DELETE FROM rate_windows WHERE window_start < ?", (time.time() - 86400,)).rowcount


class RedisRateCounters:
    """A key per key and window, expiring by itself once its window is over."""

    def __init__(self, url: str, prefix: str = "assistant"):
        self.redis = connect_redis(url)
        self.prefix = prefix

    def hit(self, key: str, window_s: int) -> tuple[int, float]:
        now = time.time()
        start = int(now - now % window_s)
        counter = f"{self.prefix}:rate:{key}:{start}"
        # redis types a pipeline's commands as returning their results, not the pipeline they chain on
        count, _ = self.redis.pipeline().incr(counter).expire(counter, window_s * 2).execute()  # type: ignore[attr-defined]
        return int(count), start + window_s - now

    def purge_expired(self) -> int:
        return 0  # Redis expires the windows by itself


class RateLimiter:
    def __init__(self, counters: RateCounters, per_client: int, per_session: int):
        self.counters = counters
        self.limits = {"client": per_client, "session": per_session}  # 0: no limit

    def check(self, client: str, session_id: str | None) -> None:
        for kind, key in (("client", client), ("session", session_id)):
            limit = self.limits[kind]
            if not limit or not key:
                continue
            count, reset_in = self.counters.hit(f"{kind}:{key}", WINDOW_S)
            if count > limit:
                raise ApiError(
                    429,
                    "rate_limited",
                    f"Too many messages from this {kind}; please wait a moment.",
                    headers={"Retry-After": str(max(1, math.ceil(reset_in)))},
                )


LIMITER: Slot[RateLimiter] = Slot("rate_limiter")


def init_app(app: Flask) -> None:
    """The limits, counted where the sessions are kept (SESSION_STORE or the sessions' SQLite file)."""
    settings = SETTINGS.get(app)
    url = settings.session_store
    counters: RateCounters = RedisRateCounters(url) if url else SQLiteRateCounters(sessions_file(app))
    LIMITER.put(app, RateLimiter(counters, settings.client_rate_per_min, settings.session_rate_per_min))
    start_chore(app, Periodic("rate-window-purge", 3600, counters.purge_expired))
