"""How the bank pack answers real customers' questions it has never seen; prints one JSON line.

Reads Banking77's questions (../shared/data/banking77-dev/train.csv, beside the repository)
and `expected.json`, which says per category which help articles answer it and whether a list
of cards is fair. Each question is a new conversation with the bank pack, through the app.
`--lang bn` and `--lang banglish` ask the team's translations of 308 of them (four a category)
instead, in Bengali script and in romanised code-mixed Bangla (bench/data/banking77-*.csv), and
`--lang en-translated` the English questions they were translated from (their rows of train.csv,
bench/data/banking77-translated-rows.txt), which says how much of the gap to English is reading;
`--half tuned` asks the first two of each category's four, `--half held` the other two, which
nobody looks at while changing the reader.

A reply is
- helpful: it gives one of the category's articles (or, where cards_ok, lists cards);
- safe: a clean hand-over to support (the reply names the hotline, e-mail and branches), related
  articles offered at most as suggestions;
- wrong: a card search or a "which kind of card" question, a "didn't get that", an unrelated
  article, or anything else (a booking started, a greeting).

Usage: python3 bench/intent_eval.py [--lang en|bn|banglish|en-translated] [--half all|tuned|held] [--limit N] [--details out.jsonl]
Targets: wrong_rate <= 0.10, answerable_helped_rate >= 0.75, and a turn's p99 (ms_p99, through the
Flask test client with a SQLite session) under 15 ms on an idle machine.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from app import create_app  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "banking77-dev"
QUESTIONS = {"en": DATA / "train.csv", "bn": ROOT / "bench" / "data" / "banking77-bn.csv"}
QUESTIONS["banglish"] = ROOT / "bench" / "data" / "banking77-banglish.csv"
QUESTIONS["en-translated"] = ROOT / "bench" / "data" / "banking77-translated-rows.txt"
PRODUCT_INTENTS = ("product_info", "comparison", "eligibility_check", "feature_query")


def judge(response: dict, expected: dict) -> tuple[str, str]:
    """(verdict, cause) for one reply to a question of a category with `expected`."""
    article = (response.get("help") or {}).get("article")
    kind = response["intent"]["type"]
    if article:
        return ("helpful", "article") if article in expected["faq"] else ("wrong", "unrelated_article")
    if kind in PRODUCT_INTENTS or response.get("products"):
        if expected.get("cards_ok") and response.get("products"):
            return "helpful", "cards"
        return "wrong", "card_search"
    if response["help"]["handover"]:
        return "safe", "handover"
    if kind == "unknown":
        return "wrong", "not_understood"
    return "wrong", f"other:{kind}"


def half(rows: list[dict], which: str) -> list[dict]:
    """The first half of each category's questions ("tuned"), the second ("held"), or all."""
    if which == "all":
        return rows
    seen: collections.Counter = collections.Counter()
    picked = []
    for row in rows:
        position = seen[row["category"]]
        seen[row["category"]] += 1
        picked.append((row, position))
    size = {category: count // 2 for category, count in seen.items()}
    return [row for row, position in picked if (position < size[row["category"]]) == (which == "tuned")]


def questions(lang: str) -> list[dict]:
    """The questions asked in `lang`, each with its category."""
    with QUESTIONS["en" if lang == "en-translated" else lang].open(newline="") as f:
        rows = list(csv.DictReader(f))
    if lang == "en-translated":  # the English rows the translations were made from
        return [rows[int(line)] for line in QUESTIONS[lang].read_text().split()]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0, help="every Nth question so that about N are asked")
    parser.add_argument("--details", type=Path, help="write each question's verdict here (JSON lines)")
    parser.add_argument("--lang", choices=sorted(QUESTIONS), default="en", help="the questions' language and script")
    parser.add_argument("--half", choices=("all", "tuned", "held"), default="all", help="of each category's questions")
    args = parser.parse_args()
    expected = json.loads((DATA / "expected.json").read_text())
    rows = half(questions(args.lang), args.half)
    if args.limit:
        rows = rows[:: max(1, len(rows) // args.limit)]

    verdicts: collections.Counter = collections.Counter()
    causes: collections.Counter = collections.Counter()
    by_category: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    answerable = answerable_helped = 0
    details = []
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {
                "session_db": Path(tmp) / "s.sqlite3",
                "reminder_poll_s": 0,
                "domain": "bank",
                "client_rate_per_min": 0,
                "session_rate_per_min": 0,
            }
        )
        client = app.test_client()
        started = time.perf_counter()
        took = []
        for row in rows:
            want = expected[row["category"]]
            asked = time.perf_counter()
            response = client.post("/chat", json={"query": row["text"], "session_id": str(uuid.uuid4())}).get_json()
            took.append(1000 * (time.perf_counter() - asked))
            verdict, cause = judge(response, want)
            verdicts[verdict] += 1
            by_category[row["category"]][verdict] += 1
            if verdict == "wrong":
                causes[cause] += 1
            if want["faq"]:
                answerable += 1
                answerable_helped += verdict == "helpful"
            if args.details:
                details.append(
                    {
                        "category": row["category"],
                        "text": row["text"],
                        "verdict": verdict,
                        "cause": cause,
                        "intent": response["intent"]["type"],
                        "help": response.get("help"),
                    }
                )
        elapsed = time.perf_counter() - started
    if args.details:
        args.details.write_text("".join(json.dumps(d) + "\n" for d in details))
    worst = sorted(by_category, key=lambda c: by_category[c]["wrong"] / sum(by_category[c].values()), reverse=True)
    print(
        json.dumps(
            {
                "bench": "intent_eval_banking77",
                "lang": args.lang,
                "half": args.half,
                "questions": len(rows),
                "helpful": verdicts["helpful"],
                "safe": verdicts["safe"],
                "wrong": verdicts["wrong"],
                "wrong_by_cause": dict(causes.most_common()),
                "wrong_rate": round(verdicts["wrong"] / len(rows), 3),
                "answerable_helped_rate": round(answerable_helped / max(answerable, 1), 3),
                "worst_categories": {c: round(by_category[c]["wrong"] / sum(by_category[c].values()), 2) for c in worst[:8]},
                "ms_per_question": round(1000 * elapsed / len(rows), 2),
                "ms_p50": round(statistics.median(took), 2),
                "ms_p99": round(statistics.quantiles(took, n=100)[98], 2) if len(took) > 1 else None,
            }
        )
    )


if __name__ == "__main__":
    main()
