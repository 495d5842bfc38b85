"""Shared fixtures: a real app (real SQLite, chromadb and embedding model) per test."""

from __future__ import annotations

import os

os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"
os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ["CREWAI_TESTING"] = "true"

import datetime as dt  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

import jwt  # noqa: E402
import pytest  # noqa: E402

from app import create_app  # noqa: E402
from assistant.tools.filters import FilterRules  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
TOKEN_SECRET = "the-login-service-signs-customers-tokens-with-this"
OPERATOR_KEY = "operator-key-for-tests-0123456789abcdef"  # 32+ characters, as start-up requires


def app_for(tmp_path, domain: str = "bank", **settings):
    """A real app for one domain pack, with its own SQLite files and outbox, trusting the tests'
    login (TOKEN_SECRET) and operator key."""
    return create_app(
        {
            "domain": domain,
            "session_db": tmp_path / "sessions.sqlite3",
            "bookings_db": tmp_path / "bookings.sqlite3",
            "notify_outbox": tmp_path / "outbox.jsonl",
            "reminder_poll_s": 0,
            "auth_jwt_secret": TOKEN_SECRET,
            "operator_api_keys": [OPERATOR_KEY],
            **settings,
        }
    )


def signed_in(customer_id: str, secret: str = TOKEN_SECRET, **claims) -> dict[str, str]:
    """The header a client signed in as `customer_id` sends: a token as the business's login mints it."""
    token = jwt.encode({"sub": customer_id, "exp": int(time.time()) + 600, **claims}, secret, algorithm="HS256")
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, headless, driven by Playwright: the browser tests' (bash .ci/run installs it)."""
    from playwright.sync_api import sync_playwright  # only the browser tests need it

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: install Debian's chromium (bash .ci/run does)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def app(request, tmp_path):
    """The bank's app, or the pack a test module names in its DOMAIN."""
    return app_for(tmp_path, getattr(request.module, "DOMAIN", "bank"))


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def session():
    """A new conversation's id, as a client makes one."""
    return str(uuid.uuid4())


@pytest.fixture
def pipeline(app):
    return app.extensions["pipeline"]


@pytest.fixture
def catalog(pipeline):
    return pipeline.catalog


@pytest.fixture
def searches(pipeline, monkeypatch):
    """Counts catalog searches, to prove follow-ups reuse the session's cached products."""
    calls = []
    original = pipeline.index.search_products

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(pipeline.index, "search_products", counting)
    return calls


class Clock:
    """A settable 'now' for the booking desk and the concierge, so dates in tests never drift."""

    def __init__(self, now: dt.datetime):
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


class Conversation:
    """One chat session as a JSON client holds it: a UUID and the same profile every turn."""

    def __init__(self, client, employment: str | None = None):
        self.client = client
        self.session_id = str(uuid.uuid4())
        self.employment = employment

    def say(self, query: str) -> dict:
        body = {"query": query, "session_id": self.session_id}
        if self.employment:  # the page fact's value, under whatever name the pack gives that fact
            body["facts"] = {self.client.application.extensions["pipeline"].catalog.pack.page_fact: self.employment}
        response = self.client.post("/chat", json=body)
        assert response.status_code == 200, response.get_json()
        data = response.get_json()
        assert data["session_id"] == self.session_id
        assert data["agents"][-1] == "formatter"
        return data


@pytest.fixture
def chat(client):
    return Conversation(client)


@pytest.fixture
def conversation(client):
    return lambda employment=None: Conversation(client, employment)


def assert_products_match(data: dict, catalog) -> None:
    """Every product in a reply exists in the catalog and matches the filters in effect."""
    for shown in data["products"]:
        product = catalog.product(shown["id"])
        assert product is not None
        assert FilterRules(catalog).matches(product, data["state"]["filters"]), (shown["id"], data["state"]["filters"])
