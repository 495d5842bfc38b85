"""Fixed-window counters every worker shares, kept beside the sessions (the same SQLite file, or
the same Redis): the rate limits per client and session, the messages per phone number, and the
LLM's faults; and marks that last a while (the LLM's circuit breaker, open for a cool-down).

Fixed windows are cheap (one counter update per event) and good enough to stop a flood.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

from flask import Flask

from assistant.infra.config import SETTINGS, sessions_file
from assistant.infra.database import SQLite
from assistant.infra.extensions import Slot
from assistant.infra.periodic import Periodic, start_chore
from assistant.infra.redis_client import connect_redis

LONGEST_WINDOW_S = 86400  # a day: no counter needs a window longer than this


class RateCounters(Protocol):
    def hit(self, key: str, window_s: int) -> tuple[int, float]:
        """Count one event against `key` in the current fixed window: (count so far, seconds
        until the window resets)."""

    def mark(self, key: str, for_s: float) -> None:
        """Set `key` for `for_s` seconds from now."""

    def marked(self, key: str) -> float:
        """The seconds `key` stays set; 0 when it is not."""

    def purge_expired(self) -> int: ...


class SQLiteRateCounters:
    """A row per key: its window's start and count, restarted by the first hit of a new window."""

    def __init__(self, path: Path, busy_timeout_s: float = 5.0):
        self._db = SQLite(path, busy_timeout_s, kind="sessions")
        self._db.script(
            "CREATE TABLE IF NOT EXISTS rate_windows (key TEXT PRIMARY KEY, window_start REAL NOT NULL, count INTEGER NOT NULL);"
            "CREATE TABLE IF NOT EXISTS marks (key TEXT PRIMARY KEY, until REAL NOT NULL)",
        )

    def hit(self, key: str, window_s: int) -> tuple[int, float]:
        now = time.time()
        start = now - now % window_s
        with self._db.transaction() as db:
            (count,) = db.execute(
                "INSERT INTO rate_windows VALUES (?, ?, 1) ON CONFLICT (key) DO UPDATE SET"
                " count = CASE WHEN window_start = excluded.window_start THEN count + 1 ELSE 1 END,"
                " window_start = excluded.window_start RETURNING count",
                (key, start),
            ).fetchone()
        return int(count), start + window_s - now

    def mark(self, key: str, for_s: float) -> None:
        with self._db.transaction() as db:
            db.execute("INSERT OR REPLACE INTO marks VALUES (?, ?)", (key, time.time() + for_s))

    def marked(self, key: str) -> float:
        row = self._db.one("SELECT until FROM marks WHERE key = ?", (key,))
        return max(0.0, float(row[0]) - time.time()) if row else 0.0

    def purge_expired(self) -> int:
        """Rows whose window ended (a client, session or number that went quiet), and marks gone by."""
        now = time.time()
        with self._db.transaction() as db:
            db.execute("DELETE FROM marks WHERE until < ?", (now,))
            return db.execute("DELETE FROM rate_windows WHERE window_start < ?", (now - LONGEST_WINDOW_S,)).rowcount


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

    def mark(self, key: str, for_s: float) -> None:
        self.redis.set(f"{self.prefix}:mark:{key}", 1, px=max(1, int(for_s * 1000)))

    def marked(self, key: str) -> float:
        left = int(self.redis.pttl(f"{self.prefix}:mark:{key}"))
        return left / 1000 if left > 0 else 0.0

    def purge_expired(self) -> int:
        return 0  # Redis expires the windows and marks by itself


COUNTERS: Slot[RateCounters] = Slot("rate_counters")


def shared_counters(app: Flask) -> RateCounters:
    """The app's one set of counters, opened by whichever component needs them first: in Redis
    when SESSION_STORE names one, else in the sessions' SQLite file; ended windows purged hourly."""
    found = COUNTERS.find(app)
    if found is not None:
        return found
    url = SETTINGS.get(app).session_store
    counters = COUNTERS.put(
        app, RedisRateCounters(url) if url else SQLiteRateCounters(sessions_file(app), SETTINGS.get(app).sqlite_busy_timeout_s)
    )
    start_chore(app, Periodic("rate-window-purge", 3600, counters.purge_expired))
    return counters
