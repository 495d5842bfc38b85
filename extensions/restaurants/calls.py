"""One way to call the concierge's external services (search, reservation, message gateway),
with their failures handled the same way, whichever service it is:

- a server fault (5xx) is tried once more, then given up: a person takes over, the plan is kept;
- too many requests (429) backs off: a short Retry-After is waited out and the call tried once
  more, a longer one (or a second 429) is given up with the time the customer may try again;
- refused credentials (401, 403) are the operators' problem, not the customer's: logged at error
  level and counted (`assistant_service_auth_failures_total`, which ops alert on); the customer
  hears only that a person will help.

A service says how it failed by raising `ServiceFault` with the HTTP status it answered.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from prometheus_client import Counter

log = logging.getLogger("assistant.concierge")
T = TypeVar("T")
AUTH_FAILURES = Counter(
    "assistant_service_auth_failures_total", "Calls an external service refused for their credentials", ["service"]
)
DEFAULT_RETRY_AFTER_S = 60.0  # a 429 that says nothing of when: try again in a minute
Why = Literal["down", "busy", "unauthorised"]


class ServiceFault(Exception):
    """An external service's failure: the HTTP status it answered, and its Retry-After in seconds."""

    def __init__(self, status: int, retry_after: float | None = None, detail: str = ""):
        super().__init__(f"{status} {detail}".strip())
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class Unreachable:
    """A service given up on: why, and for "busy" how many seconds until the customer may try again."""

    service: str
    why: Why
    wait_s: float = 0.0


def call_service(service: str, call: Callable[[], T], backoff_max_s: float, tried: bool = False) -> T | Unreachable:
    """`call`'s answer, or why the service was given up on after at most one more try."""
    try:
        return call()
    except ServiceFault as fault:
        if fault.status in (401, 403):
            log.error("%s refused our credentials (%s): an operator must renew them", service, fault.status)
            AUTH_FAILURES.labels(service).inc()
            return Unreachable(service, "unauthorised")
        if fault.status == 429:
            wait = fault.retry_after if fault.retry_after is not None else DEFAULT_RETRY_AFTER_S
            if tried or wait > backoff_max_s:
                log.warning("%s is rate-limiting us for %.0f s", service, wait)
                return Unreachable(service, "busy", wait)
            time.sleep(wait)
        else:
            log.warning("%s failed: %s", service, fault)
            if tried or fault.status < 500:
                return Unreachable(service, "down")
        return call_service(service, call, backoff_max_s, tried=True)
