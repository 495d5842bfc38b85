"""Load: concurrent sessions replaying the README's example conversation against the production server.

One machine (the default): starts gunicorn (gunicorn.conf.py) with the app on 127.0.0.1, drives
--clients concurrent clients, each replaying its six messages in fresh sessions for --seconds,
then runs the same client against a bare Flask JSON endpoint under the same server as the
ceiling. With --chaos one worker is killed (SIGKILL) halfway: afterwards every session's stored
state is checked against what its client saw answered.

Several machines (--machines N): N gunicorn instances on their own ports, each pinned to its own
core (taskset) with one worker, sharing PostgreSQL (DATABASE_URL) for the durable records and
Redis (SESSION_STORE) for sessions, locks and counters; when either variable is unset the bench
starts a throw-away server from Debian's packages (tests/servers.py) and stops it afterwards. The
database is migrated first (assistant.infra.migrations.upgrade). A small round-robin balancer
sends each request to the next instance, so one conversation's turns alternate machines. Half the
clients book a call-back instead (a product, a day and an hour; a name; a phone number of the
client's own; the 6-digit code read from the instances' notify outboxes). A first phase runs one
instance alone, pinned the same way, as the baseline (`one_instance_turns_per_s`); then all N.
With --chaos one whole instance (its master and worker) is killed halfway; the balancer marks an
instance down when a request to it fails and its /health does not answer, and sends the request
(with the same X-Request-ID, so a turn the dead one stored is replayed, not taken twice) to the
next one once: an error is counted only when no instance answered.

Afterwards: lost or doubled turns (each session's stored version against what its client saw
answered), bookings in PostgreSQL beyond one per booking conversation, and reminders sent more
than once. To get reminders sent during the run without touching the app's clock, the bench sets
every booked reminder's `due_at` in PostgreSQL to the past after the load, and the instances'
schedulers (REMINDER_POLL_S=1) race for the same rows; each send is a "reminder" line in an
outbox. `db_round_trips_per_turn` is the statements the instances sent to PostgreSQL during the
load (assistant_db_statements_total, as /metrics sums it, read from each instance's own
PROMETHEUS_MULTIPROC_DIR, so a killed instance's count is kept), less the schedulers' idle polling
measured just before (`db_background_per_s`), per turn answered: every turn reads the session's
hand-over and the panic switch together (1); the turn that sends a code adds the hour's bookings
and the code's transaction; the turn that confirms it adds one transaction for the code, the hour,
the reminder and the booking (docs/storage.md). The rate limits and message caps are off (every
simulated client comes from 127.0.0.1).

Prints one JSON line last.
Usage: python bench/load.py --clients 20 [--seconds 20] [--chaos]
       python bench/load.py --machines 2 --clients 8 [--seconds 20] [--chaos]
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import itertools
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # throw-away PostgreSQL and Redis (tests/servers.py)

from servers import free_port  # noqa: E402

from bench.seed import SEED_CONVERSATION  # noqa: E402

NO_LIMITS = {  # every simulated client comes from 127.0.0.1, and a booking client books again and again
    "CLIENT_RATE_PER_MIN": "0",
    "SESSION_RATE_PER_MIN": "0",
    "MESSAGES_PER_NUMBER_HOUR": "0",
    "MESSAGES_PER_NUMBER_DAY": "0",
    "CODES_PER_CLIENT_HOUR": "0",
    "CODES_PER_SESSION_HOUR": "0",
}
DHAKA = ZoneInfo("Asia/Dhaka")  # the bank pack's time zone: the days and hours customers book in
BOOKING_HOURS = range(10, 18)  # call-backs' hours every open day (Saturday closes at 18:00)
CALLS_PER_HOUR = 3  # the bank pack's call-back capacity per hour


def healthy(port: int, timeout: float = 1.0) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        connection.request("GET", "/health")
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False


def serve(target: str, port: int, folder: Path, env: dict[str, str] | None = None, core: int | None = None) -> subprocess.Popen:
    """gunicorn with `target` on `port`; `env` added to the environment; `core`: pinned to it."""
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "SESSION_DB": str(folder / "sessions.sqlite3"),
        "CLIENT_RATE_PER_MIN": "0",  # every simulated client comes from 127.0.0.1
        "CREWAI_DISABLE_TELEMETRY": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "PYTHONPATH": str(ROOT),
        **(env or {}),
    }
    pin = ["taskset", "-c", str(core)] if core is not None else []
    server = subprocess.Popen(
        [*pin, sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), target],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if healthy(port):
            return server
        if server.poll() is not None:
            break
        time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"{target} did not start")


class Balancer:
    """Round robin over the instances' ports; an instance is taken out when a request to it failed
    and its /health does not answer (as a load balancer's health check would)."""

    def __init__(self, ports: list[int]):
        self.ports = ports
        self.down: set[int] = set()
        self._turn = itertools.count()
        self._lock = threading.Lock()

    def pick(self) -> int | None:
        with self._lock:
            up = [p for p in self.ports if p not in self.down]
            return up[next(self._turn) % len(up)] if up else None

    def failed(self, port: int) -> None:
        if not healthy(port):
            with self._lock:
                self.down.add(port)


class Client(threading.Thread):
    """Replays the README's example conversation in fresh sessions until the time is up. With
    several instances, each request goes to the balancer's next one, and one that gets no answer
    is sent once more (the same X-Request-ID) to the next."""

    def __init__(self, balancer: Balancer, until: float):
        super().__init__(daemon=True)
        self.balancer, self.until = balancer, until
        self.retry = len(balancer.ports) > 1
        self.latencies: list[float] = []
        self.errors = self.retried = 0
        self.sessions: dict[str, dict] = {}  # session -> {"answered": n, "failed": n}
        self.last: dict[str, Any] = {}  # the last answer's body
        self._connections: dict[int, http.client.HTTPConnection] = {}

    def messages(self, session: str) -> Iterator[str]:
        yield from SEED_CONVERSATION

    def post(self, body: str) -> tuple[int, bytes] | None:
        headers = {"Content-Type": "application/json"}
        if self.retry:
            headers["X-Request-ID"] = uuid.uuid4().hex
        for _ in range(2 if self.retry else 1):
            port = self.balancer.pick()
            if port is None:
                return None
            connection = self._connections.get(port) or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            self._connections[port] = connection
            try:
                connection.request("POST", "/chat", body, headers)
                response = connection.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException):
                connection.close()
                del self._connections[port]
                if self.retry:
                    self.balancer.failed(port)
                    self.retried += 1
        return None

    def run(self) -> None:
        while time.monotonic() < self.until:
            session = str(uuid.uuid4())
            record = self.sessions.setdefault(session, {"answered": 0, "failed": 0})
            for query in self.messages(session):
                if time.monotonic() >= self.until:
                    return
                body = json.dumps({"query": query, "session_id": session, "user_employment": "business_owner"})
                started = time.perf_counter()
                answer = self.post(body)
                if answer is None or answer[0] != 200:
                    self.errors += 1
                    record["failed"] += 1
                    break  # a broken conversation is abandoned; a fresh session starts
                self.latencies.append(time.perf_counter() - started)
                record["answered"] += 1
                self.last = json.loads(answer[1])


class Slots:
    """Call-back times for the booking clients, none over an hour's capacity: from tomorrow on,
    Fridays skipped (the bank takes no calls then)."""

    def __init__(self) -> None:
        self._taken = itertools.count()
        self._days: list[dt.date] = []
        self._lock = threading.Lock()

    def take(self) -> str:
        with self._lock:
            hour_index = next(self._taken) // CALLS_PER_HOUR
            day_index, hour = divmod(hour_index, len(BOOKING_HOURS))
            while len(self._days) <= day_index:
                day = (self._days[-1] if self._days else dt.datetime.now(DHAKA).date()) + dt.timedelta(days=1)
                self._days.append(day + dt.timedelta(days=1) if day.weekday() == 4 else day)
            day, hour = self._days[day_index], BOOKING_HOURS[hour]
        return f"on {day.day} {day:%B %Y} at {hour % 12 or 12} {'am' if hour < 12 else 'pm'}"


class BookingClient(Client):
    """Books a call-back in each fresh session: the product, day and hour in one message, a name,
    its own phone number, then the code sent to it (read from the outboxes)."""

    def __init__(self, balancer: Balancer, until: float, phone: str, slots: Slots, outboxes: list[Path]):
        super().__init__(balancer, until)
        self.phone, self.slots, self.outboxes = phone, slots, outboxes

    def messages(self, session: str) -> Iterator[str]:
        record = self.sessions[session]
        record["booking"] = "asked"
        yield f"book me a call {self.slots.take()} about the Visa Platinum Business Credit Card"
        yield "Rahim Uddin"
        to = "+880" + self.phone[1:]
        sent = len(codes(self.outboxes, to))
        yield self.phone
        code = codes(self.outboxes, to)[-1] if len(codes(self.outboxes, to)) > sent else None
        if code is None:
            record["booking"] = "no code"
            return
        yield f"the code is {code}"
        booking = self.last.get("booking") or {}
        record["booking"] = booking.get("status", "not booked")


def outbox_lines(outboxes: list[Path]) -> list[dict]:
    lines = []
    for path in outboxes:
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    lines.append(json.loads(line))
                except ValueError:  # a line being written
                    pass
    return lines


def codes(outboxes: list[Path], phone: str) -> list[str]:
    """The one-time codes sent to `phone`, oldest first."""
    sent = sorted((m["at"], m["text"]) for m in outbox_lines(outboxes) if m["kind"] == "otp" and m["to"] == phone)
    return [found.group(1) for _, text in sent if (found := re.search(r"\b(\d{6})\b", text))]


def drive(
    balancer: Balancer,
    clients: int,
    seconds: float,
    chaos: Callable[[], None] | None = None,
    book: Callable[..., Client] | None = None,
) -> list[Client]:
    """`clients` clients for `seconds`, every other one made by `book` if given; `chaos` called halfway."""
    until = time.monotonic() + seconds
    workers = [book(n, until) if book and n % 2 else Client(balancer, until) for n in range(clients)]
    for worker in workers:
        worker.start()
    if chaos:
        time.sleep(seconds / 2)
        chaos()
    for worker in workers:
        worker.join()
    return workers


def consistency(balancer: Balancer, workers: list[Client]) -> dict:
    """Each session's stored turns against what its client saw: lost ones are missing although
    answered; doubled ones are stored although not answered, beyond the failed (in-flight) request."""
    lost = doubled = broken = 0
    port = next(p for p in balancer.ports if healthy(p))
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


def latency_summary(workers: list[Client], seconds: float) -> dict:
    latencies = [t for w in workers for t in w.latencies]
    return {
        "turns": len(latencies),
        "errors": sum(w.errors for w in workers),
        "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
        "turns_per_s": round(len(latencies) / seconds, 1),
    }


def one_machine(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = serve("app:create_app()", port, Path(tmp))
        balancer = Balancer([port])
        try:
            drive(balancer, 2, 2)  # warm every worker's index and connections
            chaos = None
            if args.chaos:
                victim = int(subprocess.check_output(["pgrep", "-P", str(server.pid)]).split()[0])
                chaos = lambda: os.kill(victim, signal.SIGKILL)  # noqa: E731
            workers = drive(balancer, args.clients, args.seconds, chaos)
            checked = consistency(balancer, workers) if args.chaos else {}
        finally:
            server.terminate()
            server.wait()
        baseline_port = free_port()
        baseline = serve("bench.baseline_app:app", baseline_port, Path(tmp))
        try:
            ceiling = drive(Balancer([baseline_port]), args.clients, min(args.seconds, 10))
        finally:
            baseline.terminate()
            baseline.wait()
    summary = latency_summary(workers, args.seconds)
    baseline_rps = sum(len(w.latencies) for w in ceiling) / min(args.seconds, 10)
    return {
        "clients": args.clients,
        "chaos": args.chaos,
        **summary,
        "baseline_rps": round(baseline_rps, 1),
        "ratio": round(summary["turns_per_s"] / baseline_rps, 3) if baseline_rps else None,
        **checked,
    }


@dataclass
class Instance:
    port: int
    server: subprocess.Popen
    metrics: Path  # its PROMETHEUS_MULTIPROC_DIR
    outbox: Path

    def kill(self) -> None:
        """The whole machine gone at once: the master (so nothing restarts its worker) and its workers."""
        workers = subprocess.run(["pgrep", "-P", str(self.server.pid)], capture_output=True, text=True).stdout.split()
        for pid in [self.server.pid, *map(int, workers)]:
            os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        self.server.terminate()
        self.server.wait()


@dataclass
class Cluster:
    database_url: str
    session_store: str
    folder: Path
    instances: list[Instance] = field(default_factory=list)

    def start(self, core: int) -> Instance:
        port = free_port()
        metrics, outbox = self.folder / f"metrics-{port}", self.folder / f"outbox-{port}.jsonl"
        metrics.mkdir()
        (self.folder / str(port)).mkdir()
        env = {
            **NO_LIMITS,
            "DATABASE_URL": self.database_url,
            "SESSION_STORE": self.session_store,
            "WORKERS": "1",
            "PROMETHEUS_MULTIPROC_DIR": str(metrics),
            "NOTIFY_OUTBOX": str(outbox),
            "REMINDER_POLL_S": "1",
        }
        instance = Instance(port, serve("app:create_app()", port, self.folder / str(port), env, core), metrics, outbox)
        self.instances.append(instance)
        return instance

    def stop(self) -> None:
        for instance in self.instances:
            instance.stop()

    def statements(self) -> float:
        """assistant_db_statements_total summed over every instance's workers, as each one's /metrics sums them."""
        from prometheus_client import CollectorRegistry, multiprocess

        total = 0.0
        for instance in self.instances:
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, path=str(instance.metrics))  # type: ignore[no-untyped-call]
            for metric in registry.collect():
                total += sum(s.value for s in metric.samples if s.name == "assistant_db_statements_total")
        return total


def shared_servers(stack: ExitStack) -> tuple[str, str]:
    """DATABASE_URL and SESSION_STORE, or throw-away servers for those unset (stopped on the stack's exit);
    the database migrated."""
    from servers import new_database, start_postgres, start_redis

    from assistant.infra.migrations import upgrade

    database_url, session_store = os.environ.get("DATABASE_URL"), os.environ.get("SESSION_STORE")
    if not database_url:
        postgres = start_postgres()
        stack.callback(postgres.stop)
        database_url = new_database(postgres.url, "bench_load")
    if not session_store:
        redis = start_redis()
        stack.callback(redis.stop)
        session_store = redis.url
    upgrade(database_url)
    return database_url, session_store


def bookings_and_reminders(cluster: Cluster, workers: list[Client], wait_s: float = 20) -> dict:
    """Bookings stored beyond one per booking conversation (and confirmed ones not stored), then
    every booked reminder made due at once: reminders sent more than once (and never)."""
    import psycopg

    booked = {s: r["booking"] for w in workers for s, r in w.sessions.items() if "booking" in r}
    with psycopg.connect(cluster.database_url, autocommit=True) as db:
        stored: dict[str, list[str]] = {}
        for booking_id, body in db.execute("SELECT id, body FROM bookings").fetchall():
            session = json.loads(body)["session_id"]
            if session in booked:
                stored.setdefault(session, []).append(booking_id)
        ours = [b for ids in stored.values() for b in ids]
        past = (dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)).isoformat()
        db.execute("UPDATE reminders SET due_at=%s WHERE booking_id = ANY(%s) AND sent_at IS NULL", (past, ours))
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            left = db.execute("SELECT count(*) FROM reminders WHERE booking_id = ANY(%s) AND sent_at IS NULL", (ours,))
            if left.fetchone()[0] == 0:  # type: ignore[index]
                break
            time.sleep(0.5)
        time.sleep(2)  # a send still in flight (claimed, written to the outbox, not yet marked sent)
        scheduled = Counter(b for (b,) in db.execute("SELECT booking_id FROM reminders WHERE booking_id = ANY(%s)", (ours,)))
    sent = Counter(
        found.group(0)
        for m in outbox_lines([i.outbox for i in cluster.instances])
        if m["kind"] == "reminder" and (found := re.search(r"BK-[0-9A-F]{8}", m["text"]))
    )
    return {
        "booking_conversations": len(booked),
        "bookings_confirmed": sum(1 for seen in booked.values() if seen == "confirmed"),
        "bookings": len(ours),
        "doubled_bookings": sum(max(0, len(ids) - 1) for ids in stored.values()),
        "lost_bookings": sum(1 for s, seen in booked.items() if seen == "confirmed" and s not in stored),
        "reminders_sent": sum(sent[b] for b in ours),
        "doubled_reminders": sum(max(0, sent[b] - 1) for b in ours) + sum(max(0, scheduled[b] - 1) for b in ours),
        "unsent_reminders": sum(1 for b in ours if sent[b] == 0),
    }


def machines(args: argparse.Namespace) -> dict:
    cores = os.cpu_count() or 1
    slots = Slots()
    phones = (f"0171{n:07d}" for n in itertools.count(1))
    with ExitStack() as stack:
        database_url, session_store = shared_servers(stack)
        cluster = Cluster(database_url, session_store, Path(stack.enter_context(tempfile.TemporaryDirectory())))
        stack.callback(cluster.stop)
        outboxes: list[Path] = []

        def booker(balancer: Balancer) -> Callable[..., Client]:
            return lambda n, until: BookingClient(balancer, until, next(phones), slots, outboxes)

        first = cluster.start(core=0)
        outboxes.append(first.outbox)
        alone = Balancer([first.port])
        drive(alone, 2, 2)  # warm the worker's index and connections
        baseline = drive(alone, args.clients, args.seconds, book=booker(alone))
        for n in range(1, args.machines):
            outboxes.append(cluster.start(core=n % cores).outbox)
        balancer = Balancer([i.port for i in cluster.instances])
        drive(balancer, 2, 2)
        idle_s, before = 4.0, cluster.statements()
        time.sleep(idle_s)  # the schedulers' polling, with no turn to answer
        background_per_s = (cluster.statements() - before) / idle_s
        victim = cluster.instances[-1]
        before = cluster.statements()
        workers = drive(balancer, args.clients, args.seconds, victim.kill if args.chaos else None, booker(balancer))
        statements = cluster.statements() - before - background_per_s * args.seconds
        summary = latency_summary(workers, args.seconds)
        checked = consistency(balancer, baseline + workers)
        records = bookings_and_reminders(cluster, baseline + workers)
    one = latency_summary(baseline, args.seconds)
    return {
        "machines": args.machines,
        "clients": args.clients,
        "chaos": args.chaos,
        "down": len(balancer.down),
        "retried": sum(w.retried for w in baseline + workers),
        **summary,
        "errors": summary["errors"] + one["errors"],
        "one_instance_turns_per_s": one["turns_per_s"],
        "ratio": round(summary["turns_per_s"] / one["turns_per_s"], 3) if one["turns_per_s"] else None,
        **checked,
        **records,
        "db_round_trips_per_turn": round(statements / summary["turns"], 2) if summary["turns"] else None,
        "db_background_per_s": round(background_per_s, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--machines", type=int, default=0, help="instances sharing PostgreSQL and Redis, behind a round robin")
    parser.add_argument("--chaos", action="store_true", help="kill one worker (with --machines: one instance) halfway")
    args = parser.parse_args()
    print(json.dumps(machines(args) if args.machines else one_machine(args)))


if __name__ == "__main__":
    main()
