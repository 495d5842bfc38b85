"""How long the replies to single-fact questions are, across the packs; prints one JSON line.

Each question is asked in a fresh session right after a search, as a customer asks "what's the
late fee?" about the list in front of them: the answer should be the line asked about, not
every topic of every item. Usage: python bench/reply_size.py [--show]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from app import create_app  # noqa: E402

LONG = 1000  # characters: a reply longer than this is more than one fact
# Per pack, the messages that put items in front of the customer (a list, or a question that
# narrows the search down, which the fact question then answers), then one question at a time.
PLAYS: list[tuple[str, list[str], list[str]]] = [
    (
        "bank",
        ["show me conventional credit cards"],
        [
            "what's the annual fee of the second one?",
            "what is the late payment fee on the platinum card?",
            "does the gold card have lounge access?",
            "interest rate?",
            "what's the late fee?",
            "what are the fees?",
            "which has the lowest annual fee?",
            "what's the credit limit of the world card?",
            "what rewards does the classic card give?",
            "foreign transaction fee?",
            "is the annual fee waived?",
            "what's the cash advance fee on the gold card?",
        ],
    ),
    (
        "cars",
        ["show me SUVs under 15 lakh"],
        [
            "what's the mileage?",
            "what's the price of the Thar?",
            "how many airbags does the second one have?",
            "safety rating?",
            "how many seats?",
            "what's the engine power of the Thar?",
            "does it have a sunroof?",
            "which is the safest?",
            "what's the transmission?",
            "how much does the first one cost?",
        ],
    ),
    (
        "store",
        ["gaming laptops under 40000 baht"],
        [
            "is the Legion 5 in stock?",
            "what's the warranty?",
            "how much is the second one?",
            "what are the specs of the TUF?",
            "how much RAM does it have?",
            "price?",
            "which has the longest warranty?",
            "what GPU does the IdeaPad have?",
            "is it waterproof?",
        ],
    ),
    (
        "restaurants",
        ["restaurants in mumbai"],
        [
            "what's the address?",
            "what time does it open?",
            "how much for two?",
            "what's the rating of the first one?",
            "when does the second one close?",
            "where is it?",
            "which is the best rated?",
            "timings?",
            "price for two at the first one?",
        ],
    ),
    ("bank", ["show me credit cards"], ["what's the late fee?", "what's the annual fee?", "interest rate?"]),
]


def play(show: bool) -> list[int]:
    """Every question's reply length, in characters."""
    sizes = []
    with tempfile.TemporaryDirectory() as tmp:
        for play, (domain, search, questions) in enumerate(PLAYS):
            folder = Path(tmp) / str(play)
            folder.mkdir()
            app = create_app(
                {
                    "domain": domain,
                    "session_db": folder / "sessions.sqlite3",
                    "bookings_db": folder / "bookings.sqlite3",
                    "notify_outbox": folder / "outbox.jsonl",
                    "reminder_poll_s": 0,
                }
            )
            client = app.test_client()
            for question in questions:
                session = str(uuid.uuid4())
                for query in [*search, question]:
                    response = client.post("/chat", json={"query": query, "session_id": session})
                    assert response.status_code == 200, response.get_json()
                reply = response.get_json()["reply"]
                sizes.append(len(reply))
                if show:
                    print(f"--- {domain}> {question} ({len(reply)})\n{reply}\n", file=sys.stderr)
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", action="store_true", help="print each reply to stderr")
    logging.disable(logging.INFO)  # the turn log would bury the replies
    sizes = play(parser.parse_args().show)
    print(
        json.dumps(
            {
                "bench": "reply_size",
                "replies": len(sizes),
                "median_chars": statistics.median(sizes),
                "max_chars": max(sizes),
                "over_1000": round(sum(size > LONG for size in sizes) / len(sizes), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
