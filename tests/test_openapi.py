"""Schemathesis generates requests from /openapi.json against the real app: no 5xx anywhere,
and every response (errors included) matches the document."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings

from app import create_app

_folder = Path(tempfile.mkdtemp(prefix="openapi-"))
app = create_app({"session_db": _folder / "s.sqlite3", "notify_outbox": _folder / "outbox.jsonl", "reminder_poll_s": 0})
schema = schemathesis.openapi.from_wsgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_matches_its_document(case):
    case.call_and_validate()


def test_every_route_is_documented():
    documented = {path.replace("{", "<").replace("}", ">") for path in app.test_client().get("/openapi.json").get_json()["paths"]}
    routes = {rule.rule for rule in app.url_map.iter_rules() if not rule.rule.startswith("/static")}
    assert routes - {"/", "/openapi.json"} == documented
