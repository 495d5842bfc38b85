"""Load: concurrent sessions replaying the README's example conversation against the production server.

Starts gunicorn (gunicorn.conf.py) with the app on 127.0.0.1, drives --clients concurrent
clients, each replaying its six messages in fresh sessions for --seconds, then runs the
same client against a bare Flask JSON endpoint under the same server as the ceiling. With
--chaos one worker is killed (SIGKILL) halfway: afterwards every session's stored state is
checked against what its client saw answered. Prints one JSON line last.
Usage: python bench/load.py --clients 20 [--seconds 20] [--chaos]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.seed import SEED_CONVERSATION  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(target: str, port: int, folder: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "SESSION_DB": str(folder / "sessions.sqlite3"),
        "CLIENT_RATE_PER_MIN": "0",  # every simulated client comes from 127.0.0.1
        "CREWAI_DISABLE_TELEMETRY": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "PYTHONPATH": str(ROOT),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), target],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/health")
            if connection.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"{target} did not start")


class Client(threading.Thread):
    """Replays the README's example conversation in fresh sessions until the time is up."""

    def __init__(self, port: int, until: float):
        super().__init__(daemon=True)
        self.port, self.until = port, until
        self.latencies: list[float] = []
        self.errors = 0
        self.sessions: dict[str, dict] = {}  # session -> {"answered": n, "failed": n}

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while time.monotonic() < self.until:
            session = str(uuid.uuid4())
            record = self.sessions.setdefault(session, {"answered": 0, "failed": 0})
            for query in SEED_CONVERSATION:
                if time.monotonic() >= self.until:
                    return
                body = json.dumps({"query": query, "session_id": session, "user_employment": "business_owner"})
                started = time.perf_counter()
                try:
                    connection.request("POST", "/chat", body, {"Content-Type": "application/json"})
                    response = connection.getresponse()
                    response.read()
                    ok = response.status == 200
                except (OSError, http.client.HTTPException):
                    ok = False
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if not ok:
                    self.errors += 1
                    record["failed"] += 1
                    break  # a broken conversation is abandoned; a fresh session starts
                self.latencies.append(time.perf_counter() - started)
                record["answered"] += 1


def drive(port: int, clients: int, seconds: float, chaos_pid: int | None = None) -> list[Client]:
    until = time.monotonic() + seconds
    workers = [Client(port, until) for _ in range(clients)]
    for worker in workers:
        worker.start()
    if chaos_pid:
        time.sleep(seconds / 2)
        os.kill(chaos_pid, signal.SIGKILL)
    for worker in workers:
        worker.join()
    return workers


def consistency(port: int, workers: list[Client]) -> dict:
    """Each session's stored turns against what its client saw: lost ones are missing although
    answered; doubled ones are stored although not answered, beyond the failed (in-flight) request."""
    lost = doubled = broken = 0
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for worker in workers:
        for session, seen in worker.sessions.items():
            connection.request("GET", f"/sessions/{session}")
            response = connection.getresponse()
            data = json.loads(response.read() or b"{}")
            stored = data["state"]["version"] if response.status == 200 else 0
            history = data.get("history", [])
            lost += max(0, seen["answered"] - stored)
            doubled += max(0, stored - seen["answered"] - seen["failed"])
            broken += len(history) != 2 * stored
    return {"lost_turns": lost, "doubled_turns": doubled, "inconsistent_sessions": broken}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--chaos", action="store_true", help="kill one worker halfway")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = serve("app:create_app()", port, Path(tmp))
        try:
            drive(port, 2, 2)  # warm every worker's index and connections
            victim = None
            if args.chaos:
                victim = int(subprocess.check_output(["pgrep", "-P", str(server.pid)]).split()[0])
            workers = drive(port, args.clients, args.seconds, victim)
            checked = consistency(port, workers) if args.chaos else {}
        finally:
            server.terminate()
            server.wait()
        baseline_port = free_port()
        baseline = serve("bench.baseline_app:app", baseline_port, Path(tmp))
        try:
            ceiling = drive(baseline_port, args.clients, min(args.seconds, 10))
        finally:
            baseline.terminate()
            baseline.wait()
    latencies = [t for w in workers for t in w.latencies]
    turns_per_s = len(latencies) / args.seconds
    baseline_rps = sum(len(w.latencies) for w in ceiling) / min(args.seconds, 10)
    result = {
        "clients": args.clients,
        "chaos": args.chaos,
        "turns": len(latencies),
        "errors": sum(w.errors for w in workers),
        "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
        "turns_per_s": round(turns_per_s, 1),
        "baseline_rps": round(baseline_rps, 1),
        "ratio": round(turns_per_s / baseline_rps, 3) if baseline_rps else None,
        **checked,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
