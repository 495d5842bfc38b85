"""What one asker may make the service do that costs someone else: messages sent to phones
(one-time codes) and tables held before anyone confirmed them. A cap per phone number stops one
number being flooded, not a client that gives a new number and a new session each time; so each
such act is also counted per client (its address, as the rate limiter sees it) and per session,
in the counters every worker shares (infra/counters.py), and refused over its cap.

The asker is the request's, set by the rate limiter when it counts the request (web/ratelimit.py),
so the code that sends or holds needs no web request to know it; outside a request (a chore, the
command line) nobody is asking and nothing is counted.
"""

from __future__ import annotations

import math
from contextvars import ContextVar
from dataclasses import dataclass

from flask import Flask

from assistant.infra.config import CODE_TTL, SETTINGS
from assistant.infra.counters import RateCounters, shared_counters
from assistant.infra.extensions import Slot

CODES = "code"  # a one-time code sent
HOLDS = "hold"  # a table held until a code confirms it


@dataclass(frozen=True)
class Asker:
    client: str  # the client's address
    session: str | None  # the session (or the concierge's user) the request is for


ASKER: ContextVar[Asker | None] = ContextVar("asker", default=None)


@dataclass(frozen=True)
class Cap:
    window_s: int
    per_client: int  # 0: no cap
    per_session: int


class OverAllowance(Exception):
    """The asker has done `kind` as often as they may for now: nothing was done."""

    def __init__(self, kind: str, retry_after_s: int):
        super().__init__(f"{kind} over its cap for {retry_after_s} s")
        self.kind = kind
        self.retry_after_s = retry_after_s


class Allowances:
    def __init__(self, counters: RateCounters, caps: dict[str, Cap]):
        self.counters = counters
        self.caps = caps

    def spend(self, *kinds: str) -> None:
        """Count one of each kind against the asker's client and session; OverAllowance, with
        when the window resets, once one is over its cap."""
        asker = ASKER.get()
        if asker is None:
            return
        for kind in kinds:
            cap = self.caps[kind]
            for who, key, limit in (("client", asker.client, cap.per_client), ("session", asker.session, cap.per_session)):
                if not limit or not key:
                    continue
                count, reset_in = self.counters.hit(f"{kind}:{who}:{key}", cap.window_s)
                if count > limit:
                    raise OverAllowance(kind, max(1, math.ceil(reset_in)))


ALLOWANCES: Slot[Allowances] = Slot("allowances")


def allowances(app: Flask) -> Allowances:
    """The app's one set of allowances, made by whichever component needs them first."""
    found = ALLOWANCES.find(app)
    if found is not None:
        return found
    settings = SETTINGS.get(app)
    caps = {
        CODES: Cap(3600, settings.codes_per_client_hour, settings.codes_per_session_hour),
        HOLDS: Cap(int(CODE_TTL.total_seconds()), settings.holds_per_client, 0),  # as long as a hold lives
    }
    return ALLOWANCES.put(app, Allowances(shared_counters(app), caps))
