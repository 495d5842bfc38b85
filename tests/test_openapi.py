"""Schemathesis generates requests from /openapi.json against the real app: no 5xx anywhere,
and every response (errors included) matches the document."""

from __future__ import annotations

import json
import re
import tempfile
import uuid
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app import create_app

UNLIMITED = {"client_rate_per_min": 0, "session_rate_per_min": 0}  # a 429 would hide what the example tests
# A schema cannot say that a file's bytes must make a photo or a PDF: random ones are rightly refused (415).
FILES = "multipart/form-data"


def _app(domain: str):
    folder = Path(tempfile.mkdtemp(prefix=f"openapi-{domain}-"))
    settings = {"session_db": folder / "s.sqlite3", "notify_outbox": folder / "outbox.jsonl", "reminder_poll_s": 0}
    return create_app({"domain": domain, **settings, **UNLIMITED})


app = _app("bank")
schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
# The bank has no concierge (its /assistant is a 404): the restaurants' pack answers it for real.
concierge = schemathesis.openapi.from_wsgi("/openapi.json", _app("restaurants")).include(path=["/assistant", "/chat"])


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_matches_its_document(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance] if case.media_type == FILES else [])


@concierge.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_concierge_matches_its_document(case):
    if case.headers and "Idempotency-Key" in case.headers:  # a key sent again with another instruction is rightly a 422
        case.headers["Idempotency-Key"] = uuid.uuid4().hex
    case.call_and_validate(excluded_checks=[positive_data_acceptance] if case.media_type == FILES else [])


def test_every_route_is_documented():
    documented = {path.replace("{", "<").replace("}", ">") for path in app.test_client().get("/openapi.json").get_json()["paths"]}
    routes = {rule.rule for rule in app.url_map.iter_rules() if not rule.rule.startswith("/static")}
    assert routes - {"/", "/openapi.json"} == documented


def test_every_method_is_documented_with_its_credential_and_components():
    """Each web module declares its routes' contract beside them (openapi.describe): the assembled
    document has every method of every route, the operator's credential on the office's routes,
    and every component a fragment refers to."""
    document = app.test_client().get("/openapi.json").get_json()
    operations = {(path, method): op for path, ops in document["paths"].items() for method, op in ops.items()}
    documented = {(path.replace("{", "<").replace("}", ">"), method.upper()) for path, method in operations}
    routed = {
        (rule.rule, method)
        for rule in app.url_map.iter_rules()
        if not rule.rule.startswith("/static")
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    assert routed - {("/", "GET"), ("/openapi.json", "GET")} == documented
    office = [op for (path, _), op in operations.items() if path.startswith(("/cases", "/console/api"))]
    assert office and all(op["security"] == [{"operatorKey": []}] for op in office)
    referred = set(re.findall(r'"#/components/schemas/(\w+)"', json.dumps(document)))
    assert {"ChatRequest", "ChatResponse", "Error"} <= referred <= set(document["components"]["schemas"])
