"""Times the README's six-message example conversation through the real app; prints one JSON line.

Measures: cold start (imports + data + embedding index, in a fresh process), per-turn
server time for each of the six turns (median and slowest over --rounds conversations),
and the process's resident memory afterwards.  Usage: python bench/conversation.py
"""

from __future__ import annotations

import time

START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from app import create_app  # noqa: E402
from bench.seed import SEED_CONVERSATION  # noqa: E402


def resident_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"session_db": Path(tmp) / "sessions.sqlite3"})
        cold_start = time.perf_counter() - START
        client = app.test_client()
        per_turn: list[list[float]] = [[] for _ in SEED_CONVERSATION]
        for _ in range(args.rounds):
            sid = str(uuid.uuid4())
            for i, query in enumerate(SEED_CONVERSATION):
                t0 = time.perf_counter()
                response = client.post("/chat", json={"query": query, "session_id": sid, "user_employment": "business_owner"})
                per_turn[i].append(time.perf_counter() - t0)
                assert response.status_code == 200, response.get_json()
        every = [t for turn in per_turn for t in turn]
        print(
            json.dumps(
                {
                    "bench": "seed_conversation",
                    "rounds": args.rounds,
                    "cold_start_s": round(cold_start, 3),
                    "turn_ms_median": round(statistics.median(every) * 1000, 2),
                    "turn_ms_slowest": round(max(every) * 1000, 2),
                    "turn_ms_median_by_turn": [round(statistics.median(t) * 1000, 2) for t in per_turn],
                    "rss_mib": round(resident_mib(), 1),
                }
            )
        )


if __name__ == "__main__":
    main()
