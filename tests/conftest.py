"""Shared fixtures: a real app (real SQLite, chromadb and embedding model) per test.

TEST_DATABASE=postgresql runs the same suite with every app's durable records in a real
PostgreSQL (a throw-away server from Debian's packages, a database per test folder); the
`database_url` fixture runs a store's tests on both, in every run."""

from __future__ import annotations

import os

os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"
os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ["CREWAI_TESTING"] = "true"

import atexit  # noqa: E402
import datetime as dt  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

import jwt  # noqa: E402
import pytest  # noqa: E402
from servers import Server, new_database, s3_server, start_postgres  # noqa: E402

from app import create_app  # noqa: E402
from assistant.infra import migrations  # noqa: E402
from assistant.infra.database import DATABASE, Database, open_database  # noqa: E402
from assistant.tools.filters import FilterRules  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
TOKEN_SECRET = "the-login-service-signs-customers-tokens-with-this"
OPERATOR_KEY = "operator-key-for-tests-0123456789abcdef"  # 32+ characters, as start-up requires


TEST_DATABASE = os.environ.get("TEST_DATABASE", "sqlite")
assert TEST_DATABASE in ("sqlite", "postgresql"), "TEST_DATABASE is sqlite or postgresql"
_postgres: list[Server] = []  # the one server of this run, started when first needed
_databases: dict[Path, str] = {}  # a test folder's PostgreSQL database
_opened: list[Database] = []  # this test's apps' databases and `durable`'s, closed when it ends


def postgres() -> Server:
    """This run's PostgreSQL, with a database at the code's schema to copy for each test."""
    if not _postgres:
        server = start_postgres()
        atexit.register(server.stop)
        migrations.upgrade(new_database(server.url, "migrated"))
        _postgres.append(server)
    return _postgres[0]


def postgres_database() -> str:
    """A new database at the code's schema, on this run's PostgreSQL."""
    return new_database(postgres().url, f"t{uuid.uuid4().hex}", template="migrated")


def app_for(tmp_path, domain: str = "bank", **settings):
    """A real app for one domain pack, with its own SQLite files and outbox, trusting the tests'
    login (TOKEN_SECRET) and operator key; under TEST_DATABASE=postgresql its durable records are
    in the test folder's own PostgreSQL database."""
    if TEST_DATABASE == "postgresql" and "database_url" not in settings:
        if Path(tmp_path) not in _databases:
            _databases[Path(tmp_path)] = postgres_database()
        settings["database_url"] = _databases[Path(tmp_path)]
    app = create_app(
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
    _opened.append(DATABASE.get(app))
    return app


@pytest.fixture(autouse=True)
def _close_databases():
    """A test's apps hold connections (a pool each, on PostgreSQL): closed when it ends."""
    yield
    while _opened:
        _opened.pop().close()


def durable(tmp_path) -> Database:
    """The durable database of the app `app_for` made for this folder, opened as one more worker would."""
    _opened.append(open_database(_databases.get(Path(tmp_path)) or f"sqlite:///{Path(tmp_path) / 'bookings.sqlite3'}"))
    return _opened[-1]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    """A durable database at the code's schema: a SQLite file, or a real PostgreSQL database."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'durable.sqlite3'}"
        migrations.upgrade(url)
        return url
    return postgres_database()


@pytest.fixture
def open_db(database_url):
    """Opens the database as one more worker would (each call a connection or pool of its own)."""

    def opening():
        _opened.append(open_database(database_url))
        return _opened[-1]

    return opening


@pytest.fixture(scope="session")
def s3_endpoint():
    """This run's S3 (moto's server), started when first needed."""
    with s3_server() as endpoint:
        yield endpoint


@pytest.fixture
def s3_url(s3_endpoint, monkeypatch):
    """ATTACHMENTS_URL for a new, empty bucket of this run's S3, with the dummy credentials and
    region boto3 signs with (moto takes any): `s3://<bucket>/files?endpoint_url=...`."""
    import boto3

    for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    bucket = f"t{uuid.uuid4().hex}"
    boto3.session.Session().client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket=bucket)
    return f"s3://{bucket}/files?endpoint_url={s3_endpoint}"


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
