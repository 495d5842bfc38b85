"""Slow clients against the real thing: gunicorn with gunicorn.conf.py and two threads, and
Debian's nginx with deploy/nginx.conf in front of it, as docker-compose.yml runs them.

A dozen connections that send their request head a line a second, and others that declare a
16 kB body and send a byte a second, take every gthread thread of a bare gunicorn: /health times
out. Through nginx it answers, the slow heads are cut off, and one address holds at most
`limit_conn` requests at once."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from test_deploy import ROOT, answering, free_port, gunicorn, gunicorn_env

from assistant.infra.config import Settings
from assistant.web.edge import body_limit

SITE = (ROOT / "deploy" / "nginx.conf").read_text()
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SLOW_ADDRESS = "127.0.0.2"  # the slow clients' own address, so limit_conn counts them apart from the checks
SLOW_HEADS, SLOW_BODIES = 12, 4
HEALTH_WAIT_S = 5


def directive(name: str) -> str:
    found = re.findall(rf"^\s*{name}\s+([^;]+);", SITE, re.MULTILINE)
    assert len(found) == 1, f"{name} should be set once in deploy/nginx.conf"
    return str(found[0])


def replaced_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"deploy/nginx.conf should say '{old}' once"
    return text.replace(old, new)


@contextlib.contextmanager
def nginx(folder: Path, upstream: int) -> Iterator[int]:
    """deploy/nginx.conf in Debian's nginx, run by this user in `folder` (its temporary files, pid
    and log there) and proxying to gunicorn on `upstream`; yields its port once /health answers."""
    assert Path(NGINX).exists(), "nginx is missing: install Debian's nginx (bash .ci/run does)"
    port = free_port()
    site = replaced_once(SITE, "server app:8000;", f"server 127.0.0.1:{upstream};")
    (folder / "site.conf").write_text(replaced_once(site, "listen 80;", f"listen 127.0.0.1:{port};"))
    temporary = " ".join(f"{kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    # as root, nginx's workers would otherwise run as nobody, who may not enter pytest's folders
    user = pwd.getpwuid(os.getuid()).pw_name
    main = f"user {user};\nevents {{ worker_connections 512; }}\nhttp {{ {temporary} include {folder / 'site.conf'}; }}\n"
    (folder / "nginx.conf").write_text(main)
    command = [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", str(folder / "error.log")]
    process = subprocess.Popen(
        [*command, "-g", f"daemon off; pid {folder / 'nginx.pid'};"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    with answering(process, port, 30, "nginx") as served:
        yield served


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    """gunicorn as deployed, with few threads (gunicorn_env: one worker, two threads)."""
    with gunicorn(gunicorn_env(tmp_path_factory.mktemp("gunicorn"))) as port:
        yield port


@pytest.fixture(scope="module")
def proxy(upstream, tmp_path_factory):
    with nginx(tmp_path_factory.mktemp("nginx"), upstream) as port:
        yield port


class SlowClients:
    """Connections from SLOW_ADDRESS that each send one request a line (heads) or a byte (bodies)
    a second, from one thread, until closed; a connection the server closes is left alone."""

    def __init__(self, port: int, heads: int, bodies: int):
        head = b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 16384\r\n\r\n{"
        self.heads = [self.connect(port, b"GET /health HTTP/1.1\r\nHost: x\r\n") for _ in range(heads)]
        self.bodies = [self.connect(port, head) for _ in range(bodies)]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.trickle, daemon=True)
        self.thread.start()

    @staticmethod
    def connect(port: int, start: bytes) -> socket.socket:
        connection = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(SLOW_ADDRESS, 0))
        connection.sendall(start)
        return connection

    def trickle(self) -> None:
        while not self.stop.wait(1):
            for connection, piece in [(c, b"X-Slow: a\r\n") for c in self.heads] + [(c, b" ") for c in self.bodies]:
                with contextlib.suppress(OSError):
                    connection.send(piece)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for connection in self.heads + self.bodies:
            connection.close()


@contextlib.contextmanager
def slow_clients(port: int, heads: int = SLOW_HEADS, bodies: int = SLOW_BODIES) -> Iterator[SlowClients]:
    clients = SlowClients(port, heads, bodies)
    try:
        time.sleep(2)  # the server has taken them in and they have sent more than once
        yield clients
    finally:
        clients.close()


def health(port: int, source: str = "127.0.0.1") -> int:
    """GET /health from `source`: its status, or 0 when no answer came within HEALTH_WAIT_S."""
    with socket.create_connection(("127.0.0.1", port), timeout=HEALTH_WAIT_S, source_address=(source, 0)) as connection:
        connection.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        try:
            return int(connection.recv(64).split()[1])
        except TimeoutError:
            return 0


def ended_within(connection: socket.socket, seconds: float) -> bool:
    """Whether the server closes `connection` within `seconds` (what it says before that is read and dropped)."""
    connection.settimeout(seconds)
    try:
        while connection.recv(1024):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    return True


def test_without_a_proxy_slow_clients_starve_gunicorn(upstream):
    """The control: straight to gunicorn, the slow clients hold both threads and /health waits."""
    with slow_clients(upstream):
        assert health(upstream) == 0
    assert health(upstream) == 200  # and it comes back once they are gone


def test_behind_nginx_health_answers_while_slow_clients_hang(proxy):
    with slow_clients(proxy) as clients:
        assert [health(proxy) for _ in range(3)] == [200, 200, 200]
        # nginx ends a request head that takes longer than client_header_timeout
        waited = int(directive("client_header_timeout").removesuffix("s")) + 5
        assert all(ended_within(connection, waited) for connection in clients.heads)


def test_one_address_holds_at_most_limit_conn_requests(proxy):
    """The slow bodies fill their address's share; another address is still answered."""
    held = int(directive("limit_conn per_client"))
    with slow_clients(proxy, heads=0, bodies=held):
        assert health(proxy, source=SLOW_ADDRESS) == 429
        assert health(proxy) == 200


def test_nginx_takes_a_chat_message_with_all_its_files_and_no_more():
    multipart = {"PATH_INFO": "/chat", "CONTENT_TYPE": "multipart/form-data; boundary=x"}
    assert int(directive("client_max_body_size")) == body_limit(multipart, Settings())


def test_compose_runs_the_app_behind_this_nginx_only():
    """Only the proxy is published, and the app believes X-Forwarded-For from the proxy alone, or
    every client would count as the proxy's one address in the rate limits."""
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    proxy, app = services["proxy"], services["app"]
    dockerfile = (ROOT / proxy["build"]["dockerfile"]).read_text()
    assert "COPY deploy/nginx.conf /etc/nginx/conf.d/" in dockerfile and "apt-get install" in dockerfile
    assert proxy["ports"] and "ports" not in app
    address = proxy["networks"]["default"]["ipv4_address"]
    environment = app["environment"]
    assert environment["PROXY_COUNT"] == "1" and environment["FORWARDED_ALLOW_IPS"] == address
    Settings(proxy_count=environment["PROXY_COUNT"], forwarded_allow_ips=environment["FORWARDED_ALLOW_IPS"])
