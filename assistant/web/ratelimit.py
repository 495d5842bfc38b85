"""Rate limits per client (address) and per session, shared by every worker through the store.

Fixed one-minute windows: cheap (one counter update per request) and good enough to stop a
flood; a refused request gets 429 with Retry-After and changes nothing.
"""

from __future__ import annotations

import math

from assistant.dialogue.sessions import SessionStore
from assistant.web.errors import ApiError

WINDOW_S = 60


class RateLimiter:
    def __init__(self, store: SessionStore, per_client: int, per_session: int):
        self.store = store
        self.limits = {"client": per_client, "session": per_session}  # 0: no limit

    def check(self, client: str, session_id: str | None) -> None:
        for kind, key in (("client", client), ("session", session_id)):
            limit = self.limits[kind]
            if not limit or not key:
                continue
            count, reset_in = self.store.hit(f"{kind}:{key}", WINDOW_S)
            if count > limit:
                raise ApiError(429, "rate_limited", f"Too many messages from this {kind}; please wait a moment.",
                               headers={"Retry-After": str(max(1, math.ceil(reset_in)))})
