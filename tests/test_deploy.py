"""The deployment files say only what the app understands: every variable they set is a setting;
and under a real gunicorn, what it answers itself is JSON too."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError
from servers import free_port

from app import create_app
from assistant.infra.config import Settings

ROOT = Path(__file__).resolve().parent.parent
NOT_OURS = re.compile(r"^(PYTHON|PIP_|CREWAI_)")


def known(name: str) -> bool:
    return name.lower() in Settings.model_fields or name == "OPENAI_API_KEY"


def test_dockerfile_variables_are_settings():
    text = (ROOT / "Dockerfile").read_text()
    names = re.findall(r"\b([A-Z][A-Z0-9_]+)=", text.split("ENV", 1)[1].split("WORKDIR")[0])
    assert names and all(known(n) for n in names if not NOT_OURS.match(n)), names


def test_compose_variables_are_settings_sessions_go_to_redis_and_records_to_migrated_postgresql():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    environment = services["app"]["environment"]
    assert all(known(n) for n in environment), environment
    assert environment["SESSION_STORE"].startswith("redis://redis:")
    assert environment["DATABASE_URL"].startswith("postgresql://") and "@db:5432/" in environment["DATABASE_URL"]
    Settings(session_store=environment["SESSION_STORE"], database_url=environment["DATABASE_URL"])  # values the app accepts
    migrate = services["migrate"]
    assert migrate["command"] == ["python", "-m", "assistant", "migrate"]
    assert migrate["environment"]["DATABASE_URL"] == environment["DATABASE_URL"]
    assert services["app"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert migrate["depends_on"]["db"] == {"condition": "service_healthy"} and services["db"]["healthcheck"]
    db = services["db"]["environment"]
    assert (
        environment["DATABASE_URL"] == f"postgresql://{db['POSTGRES_USER']}:{db['POSTGRES_PASSWORD']}@db:5432/{db['POSTGRES_DB']}"
    )


def test_gunicorn_config_reads_the_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))  # the config must not leak it into this process
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.setenv("WORKERS", "3")
    config: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), config)
    assert config["bind"].endswith(":8123") and config["workers"] == 3 and config["preload_app"] is False


def gunicorn_env(tmp_path, **variables: str) -> dict[str, str]:
    """The environment gunicorn.conf.py reads, with this test's own files and port."""
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    return env | {
        "PORT": str(free_port()),
        "WORKERS": "1",
        "THREADS": "2",
        "SESSION_DB": str(tmp_path / "s.sqlite3"),
        "NOTIFY_OUTBOX": str(tmp_path / "outbox.jsonl"),
        "REMINDER_POLL_S": "0",
        **variables,
    }


@contextlib.contextmanager
def gunicorn(env: dict[str, str]) -> Iterator[int]:
    """The app under gunicorn with gunicorn.conf.py, as it is deployed, in `env`; yields its port
    once /health answers."""
    command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "app:create_app()"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with answering(process, int(env["PORT"]), 90, "gunicorn") as port:
        yield port


@contextlib.contextmanager
def answering(process: subprocess.Popen, port: int, within_s: float, what: str) -> Iterator[int]:
    """`port` once /health answers there (`process` started it, within `within_s`); the process
    stopped afterwards."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
            break
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, f"{what} did not start"
            time.sleep(0.25)
    try:
        yield port
    finally:
        process.terminate()
        process.wait(30)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with gunicorn(gunicorn_env(tmp_path_factory.mktemp("gunicorn"))) as port:
        yield port


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read the answer to the end: its status, headers and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(raw)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def chunked(body: bytes, size: int = 1000) -> bytes:
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


POST_CHUNKED = (
    b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
)
GET = b"GET /health HTTP/1.1\r\nHost: x\r\n"
HEADERS_TOO_LARGE = "request_header_fields_too_large"
GUNICORNS_OWN = [
    ("request line too long", b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
    ("too many headers", GET + b"".join(b"X-Filler-%d: a\r\n" % n for n in range(101)) + b"\r\n", 431, HEADERS_TOO_LARGE),
    ("a header too large", GET + b"X-Big: " + b"a" * 9000 + b"\r\n\r\n", 431, HEADERS_TOO_LARGE),
    ("not HTTP", b"GARBAGE\r\n\r\n", 400, "bad_request"),
]


@pytest.mark.parametrize("name,raw,status,error", GUNICORNS_OWN, ids=[case[0] for case in GUNICORNS_OWN])
def test_gunicorns_own_errors_are_json(server, name, raw, status, error):
    """gunicorn answers these before the app sees the request; they come back in the app's shape."""
    got, headers, body = exchange(server, raw)
    assert got == status and headers["content-type"] == "application/json"
    answer = json.loads(body)
    assert answer["error"] == error and answer["message"]


def test_a_chunked_body_over_the_limit_is_413_and_one_under_it_is_read_whole(server):
    """A chunked body has no Content-Length: it was cut at MAX_REQUEST_BYTES and refused as broken JSON (400)."""
    large = json.dumps({"query": "a" * 40_000}).encode()
    status, headers, body = exchange(server, POST_CHUNKED + chunked(large))
    assert status == 413 and headers["content-type"] == "application/json"
    assert json.loads(body)["error"] == "request_entity_too_large"
    small = json.dumps({"query": "I want a platinum credit card " + " " * 12_000}).encode()
    status, _, body = exchange(server, POST_CHUNKED + chunked(small))
    assert status == 200 and json.loads(body)["products"]


def test_the_openapi_document_states_gunicorns_limits(monkeypatch, tmp_path):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))  # the config must not leak it into this process
    config: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), config)
    described = (
        create_app({"session_db": tmp_path / "s.sqlite3", "reminder_poll_s": 0})
        .test_client()
        .get("/openapi.json")
        .get_json()["info"]["description"]
    )
    for limit in ("limit_request_line", "limit_request_fields", "limit_request_field_size"):
        assert f"{config[limit]}" in described, limit


@pytest.mark.parametrize("allowed", [None, "", " , ", "*", "10.0.0.1,*", "0.0.0.0/0", "::/0"])
def test_a_proxy_count_without_the_proxies_named_refuses_to_start(tmp_path, allowed):
    """X-Forwarded-For is written by whoever sends the request: believing it from anyone lets a
    client pick its own address, and so its own rate limit."""
    settings = {"proxy_count": 1, "session_db": tmp_path / "s.sqlite3"}
    with pytest.raises(ValidationError, match="FORWARDED_ALLOW_IPS"):
        create_app(settings if allowed is None else settings | {"forwarded_allow_ips": allowed})


def test_gunicorn_refuses_to_start_with_a_proxy_count_and_no_proxy_named(tmp_path):
    env = gunicorn_env(tmp_path, PROXY_COUNT="1")
    env.pop("FORWARDED_ALLOW_IPS", None)
    command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "app:create_app()"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "FORWARDED_ALLOW_IPS" in done.stderr


def test_x_forwarded_for_is_believed_from_the_named_proxy_only(tmp_path):
    client = create_app(
        {
            "session_db": tmp_path / "s.sqlite3",
            "reminder_poll_s": 0,
            "client_rate_per_min": 1,
            "session_rate_per_min": 0,
            "proxy_count": 1,
            "forwarded_allow_ips": "10.0.0.1, 192.168.7.0/24",
        }
    ).test_client()

    def status(peer: str, forwarded: str) -> int:
        response = client.post(
            "/chat", json={"query": "hi"}, headers={"X-Forwarded-For": forwarded}, environ_base={"REMOTE_ADDR": peer}
        )
        return response.status_code

    # through the proxies: two clients, each with its own limit
    assert [status("10.0.0.1", "203.0.113.5"), status("192.168.7.9", "203.0.113.6")] == [200, 200]
    # straight to the app: a made-up X-Forwarded-For does not buy a fresh limit
    assert [status("198.51.100.7", "203.0.113.7"), status("198.51.100.7", "203.0.113.8")] == [200, 429]
