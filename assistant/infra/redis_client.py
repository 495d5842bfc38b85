"""The one way the app connects to Redis (sessions, shared counters): infrastructure both use,
so neither reaches into the other's package for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only deployments that use Redis need the client
    from redis import Redis


def connect_redis(url: str) -> Redis:
    """A client with timeouts, so an unreachable Redis fails a request instead of hanging it."""
    import redis

    return redis.Redis.from_url(url, socket_timeout=5, health_check_interval=30)
