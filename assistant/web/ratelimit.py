"""Rate limits per client (address) and per session, shared by every worker through the
counters kept beside the sessions (assistant/infra/counters.py), in one-minute windows; a
refused request gets 429 with Retry-After and changes nothing.
"""

from __future__ import annotations

import math

from flask import Flask

from assistant.infra.config import SETTINGS
from assistant.infra.counters import RateCounters, shared_counters
from assistant.infra.extensions import Slot
from assistant.web.errors import ApiError

WINDOW_S = 60


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
    LIMITER.put(app, RateLimiter(shared_counters(app), settings.client_rate_per_min, settings.session_rate_per_min))
