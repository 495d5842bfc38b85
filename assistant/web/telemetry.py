"""What the service is doing: a request id and a JSON log line per request and per turn, and
Prometheus metrics at /metrics (summed over gunicorn's workers when PROMETHEUS_MULTIPROC_DIR
is set, as gunicorn.conf.py does)."""

from __future__ import annotations

import logging
import os
import re
import time
import uuid

from flask import Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

from assistant.dialogue.turns import ChatResponse
from assistant.infra.collectors import collectors
from assistant.pack.model import NEEDS_PRODUCTS, Catalog
from assistant.web.openapi import Fragment, describe

http_log = logging.getLogger("assistant.http")
turn_log = logging.getLogger("assistant.turn")
security_log = logging.getLogger("assistant.security")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")

REQUESTS = Counter("assistant_requests_total", "HTTP requests", ["endpoint", "method", "status"])
LATENCY = Histogram(
    "assistant_request_seconds",
    "HTTP request duration",
    ["endpoint"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
ERRORS = Counter("assistant_errors_total", "Responses with a 4xx or 5xx status", ["status"])
TURNS = Counter("assistant_turns_total", "Chat turns answered", ["intent", "mode"])
AGENT_RUNS = Counter("assistant_agent_runs_total", "Agents run", ["agent"])
PRODUCT_SOURCE = Counter(
    "assistant_product_lookups_total", "Turns about products: answered from the session cache or by a new retrieval", ["source"]
)
LLM_CALLS = Counter("assistant_llm_calls_total", "LLM calls made")
LLM_FALLBACKS = Counter("assistant_llm_fallbacks_total", "Turns where the LLM's reply was not used", ["reason"])
SECURITY_EVENTS = Counter("assistant_security_events_total", "Refused attempts to misuse the assistant", ["kind"])


def init_app(app: Flask) -> None:
    """A request id and a log line for every request, and GET /metrics."""

    @app.before_request
    def start() -> None:
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.after_request
    def finish(response: Response) -> Response:
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        endpoint = request.url_rule.rule if request.url_rule else "unmatched"
        REQUESTS.labels(endpoint, request.method, str(response.status_code)).inc()
        LATENCY.labels(endpoint).observe(elapsed)
        if response.status_code >= 400:
            ERRORS.labels(str(response.status_code)).inc()
        response.headers["X-Request-ID"] = g.get("request_id", "")
        http_log.info(
            "request",
            extra={
                "request_id": g.get("request_id"),
                "method": request.method,
                "endpoint": endpoint,
                "status": response.status_code,
                "duration_ms": round(elapsed * 1000, 2),
            },
        )
        return response

    @app.get("/metrics")
    def metrics() -> Response:
        registry = REGISTRY
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # prometheus_client leaves it unannotated
        shared = CollectorRegistry()  # this app's own, read from its stores at each scrape
        for collector in collectors(app):
            shared.register(collector)
        return Response(generate_latest(registry) + generate_latest(shared), mimetype=CONTENT_TYPE_LATEST)

    describe(app, _contract)


def _contract(catalog: Catalog) -> Fragment:
    """GET /metrics' part of /openapi.json."""
    return Fragment(
        {
            "/metrics": {
                "get": {
                    "summary": "Prometheus metrics",
                    "responses": {
                        "200": {"description": "Text exposition format", "content": {"text/plain": {"schema": {"type": "string"}}}}
                    },
                }
            }
        }
    )


def record_turn(response: ChatResponse, started: float, request_id: str | None) -> None:
    """The turn's facts (never the customer's words) as metrics and one log line."""
    intent = response.intent["type"]
    TURNS.labels(intent, response.mode).inc()
    for agent in response.agents:
        AGENT_RUNS.labels(agent).inc()
    if intent in NEEDS_PRODUCTS and response.products:
        PRODUCT_SOURCE.labels("retrieval" if "retriever" in response.agents else "cache").inc()
    LLM_CALLS.inc(response.llm_calls)
    if response.mode == "offline-fallback":
        LLM_FALLBACKS.labels("fault").inc()
    elif response.grounding == "fallback":
        LLM_FALLBACKS.labels("ungrounded").inc()
    turn_log.info(
        "turn",
        extra={
            "request_id": request_id,
            "session": response.session_id,  # written as its tag (assistant/language/privacy.py)
            "intent": intent,
            "agents": response.agents,
            "mode": response.mode,
            "llm_calls": response.llm_calls,
            "grounding": response.grounding,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )


def security_event(kind: str, session_id: str | None, request_id: str | None) -> None:
    SECURITY_EVENTS.labels(kind).inc()
    security_log.warning("security event", extra={"kind": kind, "session": session_id, "request_id": request_id})
