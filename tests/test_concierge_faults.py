"""The concierge's external services fail as any HTTP service may (500, 429, 401), and each
failure is handled the same way whichever service it is (extensions/restaurants/calls.py): a 500 is
tried once more, then a person takes over and the plan is kept; a 429 backs off and tells the
customer when to try again; a 401 is logged at error level and counted for the operators, and the
customer hears only that a person will help. Search and reservation run in-process, so they are
faked by raising what their HTTP client would; the message gateway is a real HTTP server here."""

from __future__ import annotations

import http.server
import logging
import threading
from collections.abc import Iterator

import pytest
import test_concierge
from prometheus_client import REGISTRY
from test_concierge import DOMAIN, SEED_INSTRUCTION

from assistant.booking.notifications import WebhookNotifier
from extensions.restaurants import calls
from extensions.restaurants.calls import ServiceFault

assert DOMAIN == "restaurants"
ask, clock = test_concierge.ask, test_concierge.clock  # the concierge's fixtures: a signed-in user, a Monday
HANDED_OVER = "a person from our team will help you"


def failing(real, *statuses: int, retry_after: float | None = None):
    """The service answering each of `statuses` in turn, then as itself."""
    left = list(statuses)

    def call(*args, **kwargs):
        if left:
            raise ServiceFault(left.pop(0), retry_after)
        return real(*args, **kwargs)

    call.left = left  # type: ignore[attr-defined]
    return call


def auth_failures(service: str) -> float:
    return REGISTRY.get_sample_value("assistant_service_auth_failures_total", {"service": service}) or 0.0


@pytest.fixture
def services(app):
    return app.extensions["concierge"].services


def test_a_search_answering_500_once_is_tried_again(ask, services, monkeypatch):
    monkeypatch.setattr(services, "search_restaurant", failing(services.search_restaurant, 500))
    assert ask(SEED_INSTRUCTION)["reservation"]["status"] == "confirmed"


def test_a_search_still_failing_hands_over_and_keeps_the_plan(ask, services, monkeypatch):
    search = failing(services.search_restaurant, 500, 500)
    monkeypatch.setattr(services, "search_restaurant", search)
    result = ask(SEED_INSTRUCTION)
    assert result["error"] == "search_down" and HANDED_OVER in result["details"] and "500" not in result["details"]
    assert not search.left, "tried twice, not more"
    again = ask("please try again")  # the plan was kept: nothing said before is asked again
    assert again["reservation"]["date"] == "2026-11-28" and again["reservation"]["time"] == "20:00"


def test_a_reservation_answering_429_says_when_to_try_again(ask, services, monkeypatch):
    reserve = failing(services.reserve_table, 429, retry_after=120)
    monkeypatch.setattr(services, "reserve_table", reserve)
    result = ask(SEED_INSTRUCTION)
    assert result["error"] == "reservation_failed" and "try again in 2 min (after 10:02)" in result["details"]
    assert not reserve.left and ask("try again")["reservation"]["status"] == "confirmed"


def test_a_short_retry_after_is_waited_out_and_tried_once_more(ask, services, monkeypatch):
    waited: list[float] = []
    monkeypatch.setattr(calls.time, "sleep", waited.append)
    monkeypatch.setattr(services, "reserve_table", failing(services.reserve_table, 429, retry_after=1))
    assert ask(SEED_INSTRUCTION)["reservation"]["status"] == "confirmed" and waited == [1]


def test_a_401_is_the_operators_problem_never_the_customers(ask, services, monkeypatch, caplog):
    before = auth_failures("search")
    monkeypatch.setattr(services, "search_restaurant", failing(services.search_restaurant, 401))
    with caplog.at_level(logging.ERROR, logger="assistant.concierge"):
        result = ask(SEED_INSTRUCTION)
    assert HANDED_OVER in result["details"] and "401" not in str(result) and "credential" not in str(result)
    assert auth_failures("search") == before + 1
    assert any(r.levelno == logging.ERROR and "search" in r.getMessage() for r in caplog.records)


class Gateway(http.server.BaseHTTPRequestHandler):
    """A fake message gateway: answers the statuses queued on the server, then 200."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        status = self.server.statuses.pop(0) if self.server.statuses else 200  # type: ignore[attr-defined]
        self.send_response(status)
        if status == 429:
            self.send_header("Retry-After", "300")
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.server.calls += 1  # type: ignore[attr-defined]

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def gateway(services, monkeypatch) -> Iterator[http.server.HTTPServer]:
    server = http.server.HTTPServer(("127.0.0.1", 0), Gateway)
    server.statuses, server.calls = [], 0  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(services, "notifier", WebhookNotifier(f"http://127.0.0.1:{server.server_port}/send"))
    yield server
    server.shutdown()


@pytest.mark.parametrize(
    "statuses, calls_made, told",
    [
        ([500], 2, None),  # retried once, then sent
        ([500, 500], 2, "could not be sent"),
        ([429], 1, "trouble sending"),  # Retry-After 300: backed off, not hammered
        ([401], 1, "trouble sending"),
    ],
)
def test_the_message_gateway_over_http(ask, gateway, statuses, calls_made, told):
    gateway.statuses = list(statuses)
    before = auth_failures("gateway")
    result = ask(SEED_INSTRUCTION)
    assert gateway.calls == calls_made
    if told is None:
        assert result["notification"]["status"] == "sent"
    else:
        assert told in result["details"] and "rev_" in result["details"] and str(statuses[0]) not in result["details"]
    assert auth_failures("gateway") == before + (401 in statuses)
