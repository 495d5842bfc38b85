"""How well each pack understands messages in scripts the embedding model cannot read.

    python3 bench/scripts_eval.py

MiniLM reads Thai, Bangla and Devanagari as unknown tokens, so such messages are understood by
the pack's words alone: its vocabulary's cues and filter values, and the help centre's word
search. This measures that reader on the packs' own phrasings in those scripts, held out:

- `help`: each help article's paraphrases in such a script, in 5 folds, each fold's left out of
  the help centre it is asked of (seeded, so runs compare). `right_article`: the message was
  read as a help question and given that article; `wrong_article`: given another one;
  `troubleshooting`: read as a fault to fix (a support goal, which then asks for the model);
  `sale`: read as a product search; `handed_over`: no article believed enough (a help question
  or not understood), so handed to people with the nearest articles as quick replies; `other`:
  read as another request (a booking, a comparison). The share of each, per pack and over all.
- `others`: the packs' other examples in such scripts (nlu.yml, every intent but help
  questions), each read once with the whole help centre; `right`: read as its intent.

Each message is read as the first of a new conversation. The last line printed is one JSON object.

`--dev` asks the team's own questions instead (bench/data/packs-multilingual.csv: Hindi and
Hinglish for the car showroom and the restaurants, Thai for the store, each with the article or
intent it should get), with the packs' whole data, and reports the share read right per pack
and language: an article question is right when it is read as a help question (or a fault to
fix) and given that article first.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from assistant.pack.loading import load_catalog  # noqa: E402
from assistant.tools.embeddings import default_embedder  # noqa: E402
from assistant.tools.help_search import HelpCentre, reading_for  # noqa: E402
from assistant.understanding.reader import Understanding  # noqa: E402
from assistant.understanding.router import Router  # noqa: E402

PACKS = ("bank", "cars", "store", "restaurants")
DATA = Path(__file__).resolve().parent.parent / "data"
FOLDS = 5
HELP_INTENTS = ("faq", "support")
OUTCOMES = {"support": "troubleshooting", "product_info": "sale", "unknown": "handed_over", "faq": "handed_over"}


DEV = Path(__file__).resolve().parent / "data" / "packs-multilingual.csv"


def dev() -> None:
    """The share of the team's own questions in each pack's languages read right."""
    logging.disable(logging.CRITICAL)
    embedder = default_embedder()
    with DEV.open(newline="") as f:
        rows = list(csv.DictReader(f))
    right: Counter = Counter()
    asked: Counter = Counter()
    for pack in sorted({row["pack"] for row in rows}):
        catalog = load_catalog(DATA / pack)
        help_centre = HelpCentre.for_catalog(catalog, embedder)
        understanding = Understanding(catalog, Router.for_pack(catalog, embedder, help_centre.reading), help_centre)
        articles = {entry.id for entry in catalog.faq}
        for row in (r for r in rows if r["pack"] == pack):
            kind = understanding.detect(row["text"], has_products=False).type
            if row["expected"] in articles:
                given = help_centre.answer(row["text"]) if kind == "faq" else None
                if kind == "support":
                    given = next((hit.entry for hit in help_centre.search(row["text"], limit=1)), None)
                ok = given is not None and given.id == row["expected"]
            else:
                ok = kind == row["expected"]
            key = f"{pack}/{row['lang']}"
            asked[key] += 1
            right[key] += ok
    shares = {key: round(right[key] / asked[key], 3) for key in sorted(asked)}
    print(json.dumps({"bench": "scripts_eval_dev", "asked": sum(asked.values()), "right": shares}))


def main() -> None:
    if "--dev" in sys.argv[1:]:
        dev()
        return
    logging.disable(logging.CRITICAL)
    started = time.perf_counter()
    embedder = default_embedder()
    result: dict[str, dict] = {}
    totals: Counter = Counter()
    for pack in PACKS:
        catalog = load_catalog(DATA / pack)
        router = Router.for_pack(catalog, embedder, reading_for(catalog, catalog.faq))
        held = [(entry.id, said) for entry in catalog.faq for said in entry.paraphrases if embedder.blind(said)]
        random.Random(0).shuffle(held)
        counts: Counter = Counter()
        for fold in range(FOLDS):
            out = set(held[fold::FOLDS])
            entries = [
                e.model_copy(update={"paraphrases": [p for p in e.paraphrases if (e.id, p) not in out]}) for e in catalog.faq
            ]
            help_centre = HelpCentre.for_catalog(catalog, embedder, entries)
            understanding = Understanding(catalog, router, help_centre)
            for article, said in out:
                kind = understanding.detect(said, has_products=False).type
                given = help_centre.answer(said) if kind == "faq" else None
                if given is not None:
                    counts["right_article" if given.id == article else "wrong_article"] += 1
                else:
                    counts[OUTCOMES.get(kind, "other")] += 1
            if fold == 0:
                for intent, texts in catalog.examples.intents.items():
                    for text in (t for t in texts if intent not in HELP_INTENTS and embedder.blind(t)):
                        kind = understanding.detect(text, has_products=False).type
                        counts[
                            "others_right" if kind == intent or (intent, kind) == ("thanks", "greeting") else "others_wrong"
                        ] += 1
        result[pack] = _shares(counts, len(held))
        totals.update(counts)
        totals["asked"] += len(held)
    result["all"] = _shares(totals, totals["asked"])
    print(json.dumps({"bench": "scripts_eval", **result, "seconds": round(time.perf_counter() - started, 1)}))


def _shares(counts: Counter, asked: int) -> dict:
    others = counts["others_right"] + counts["others_wrong"]
    return {
        "help_asked": asked,
        **{
            name: round(counts[name] / max(asked, 1), 3)
            for name in ("right_article", "wrong_article", "troubleshooting", "sale", "handed_over", "other")
        },
        "others_asked": others,
        "others_right": round(counts["others_right"] / max(others, 1), 3),
    }


if __name__ == "__main__":
    main()
