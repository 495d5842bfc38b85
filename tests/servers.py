"""Throw-away servers from Debian's packages, for the tests and the load bench: a redis-server and
a PostgreSQL cluster on free loopback ports, keeping their data in a temporary folder, stopped
(and the folder removed) by `stop`. Real servers, never mocks (bash .ci/run installs both).
S3 is moto's server (requirements-dev.txt), answering S3's HTTP API from a thread of this process."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(port: int, what: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            assert process.poll() is None, f"{what} exited with {process.returncode}"
            assert time.monotonic() < deadline, f"{what} did not start"
            time.sleep(0.05)


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    folder: Path
    extra: dict[str, str] = field(default_factory=dict)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_redis() -> Server:
    """redis-server keeping nothing on disk."""
    server = shutil.which("redis-server")
    assert server, "redis-server is missing: install Debian's redis-server (bash .ci/run does)"
    folder, port = Path(tempfile.mkdtemp(prefix="redis-")), free_port()
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    _wait_for(port, "redis-server", process)
    return Server(f"redis://127.0.0.1:{port}/0", process, folder)


def _postgres_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    assert found, f"{name} is missing: install Debian's postgresql (bash .ci/run does)"
    return found


def start_postgres() -> Server:
    """A new cluster (trust on loopback only, fsync off: its data is thrown away), as the
    `postgres` user when we are root, since PostgreSQL refuses to run as root."""
    folder, port = Path(tempfile.mkdtemp(prefix="pg-")), free_port()
    as_owner: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_owner = ["runuser", "-u", "postgres", "--"]
    data = folder / "data"
    subprocess.run(
        [*as_owner, _postgres_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    settings = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"]
    process = subprocess.Popen(
        [*as_owner, _postgres_bin("postgres"), "-D", str(data), "-p", str(port), "-h", "127.0.0.1", "-k", str(folder), *settings],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for(port, "postgres", process)
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    deadline = time.monotonic() + 30
    while True:  # the port opens a moment before connections are accepted
        try:
            psycopg.connect(url).close()
            return Server(url, process, folder)
        except psycopg.OperationalError:
            assert time.monotonic() < deadline, "postgres did not accept connections"
            time.sleep(0.1)


def new_database(server_url: str, name: str, template: str | None = None) -> str:
    """A database on the server (a copy of `template`, if given); its URL."""
    with psycopg.connect(server_url, autocommit=True) as admin:
        copy = f" TEMPLATE {template}" if template else ""
        admin.execute(f"CREATE DATABASE {name}{copy}")  # names are ours, never a user's
    return server_url.rsplit("/", 1)[0] + f"/{name}"


@contextmanager
def s3_server() -> Iterator[str]:
    """moto's S3 on a free loopback port, keeping buckets in memory; its endpoint URL."""
    from moto.server import ThreadedMotoServer  # only the S3 tests need it

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
