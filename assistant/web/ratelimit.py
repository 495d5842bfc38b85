"""Rate limits per client (address) and per session, shared by every worker through the
counters kept beside the sessions (assistant/infra/counters.py), in one-minute windows; a
refused request gets 429 with Retry-After and changes nothing. A client whose credentials were
refused too often in a window is refused until it ends, so keys and tokens cannot be guessed by trying.
The client and session checked are the request's asker, whose codes and holds the allowances
count too (infra/allowance.py).
"""

from __future__ import annotations

import math

from flask import Flask

from assistant.infra.allowance import ASKER, Asker
from assistant.infra.config import SETTINGS
from assistant.infra.counters import RateCounters, shared_counters
from assistant.infra.extensions import Slot
from assistant.web.errors import ApiError

WINDOW_S = 60


class RateLimiter:
    def __init__(self, counters: RateCounters, per_client: int, per_session: int, failures_per_client: int):
        self.counters = counters
        self.limits = {"client": per_client, "session": per_session}  # 0: no limit
        self.failures_per_client = failures_per_client  # 0: no limit

    def check(self, client: str, session_id: str | None) -> None:
        ASKER.set(Asker(client, session_id))
        for kind, key in (("client", client), ("session", session_id)):
            limit = self.limits[kind]
            if not limit or not key:
                continue
            count, reset_in = self.counters.hit(f"{kind}:{key}", WINDOW_S)
            if count > limit:
                raise _too_many(f"Too many messages from this {kind}; please wait a moment.", reset_in)

    def check_credentials(self, client: str) -> None:
        """Before a client's credential is checked: refused while its failures have it shut out."""
        if shut_for := self.counters.marked(f"credentials-refused:{client}"):
            raise _too_many("Too many refused keys or tokens from this address; please wait.", shut_for)

    def credential_refused(self, client: str) -> None:
        """A refused credential; the last one the window allows shuts the client out until the window ends."""
        if not self.failures_per_client:
            return
        count, reset_in = self.counters.hit(f"credential-failures:{client}", WINDOW_S)
        if count >= self.failures_per_client:
            self.counters.mark(f"credentials-refused:{client}", reset_in)


def _too_many(message: str, wait_s: float) -> ApiError:
    return ApiError(429, "rate_limited", message, headers={"Retry-After": str(max(1, math.ceil(wait_s)))})


LIMITER: Slot[RateLimiter] = Slot("rate_limiter")


def init_app(app: Flask) -> None:
    """The limits, counted where the sessions are kept (SESSION_STORE or the sessions' SQLite file)."""
    settings = SETTINGS.get(app)

    @app.teardown_request
    def _forget_asker(_error: BaseException | None) -> None:
        ASKER.set(None)  # a thread's next request is asked anew

    LIMITER.put(
        app,
        RateLimiter(
            shared_counters(app), settings.client_rate_per_min, settings.session_rate_per_min, settings.credential_failures_per_min
        ),
    )
