"""How well the console groups what nobody could answer by meaning; prints one JSON line.

    python3 bench/unanswered_groups.py [--categories 20] [--per 15] [--seed 7]

Takes real customers' questions from Banking77 (../shared/data/banking77-dev/train.csv): a
random set of categories and questions of each, in a shuffled order, as they would reach the
console. Groups them as GET /console/api/unanswered does (assistant/handover/clusters.py), at
its threshold and at others around it, and scores the groups against the categories: adjusted
Rand index, homogeneity (a group holds one category), completeness (a category stays in one
group) and their harmonic mean V. The threshold in use was chosen here, with the default --seed.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score, homogeneity_completeness_v_measure

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.handover import clusters  # noqa: E402
from assistant.handover.store import Question  # noqa: E402
from assistant.tools.embeddings import default_embedder  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "banking77-dev" / "train.csv"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--categories", type=int, default=20)
    parser.add_argument("--per", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rows = list(csv.DictReader(DATA.open(encoding="utf-8")))
    pick = random.Random(args.seed)
    categories = pick.sample(sorted({row["category"] for row in rows}), args.categories)
    sample = [row for c in categories for row in pick.sample([r for r in rows if r["category"] == c], args.per)]
    pick.shuffle(sample)
    embedder = default_embedder()
    questions = [
        Question(row["text"], row["category"], float(i), embedder.embed_one(row["text"]).astype(np.float32).tobytes())
        for i, row in enumerate(sample)
    ]
    in_use, scores = clusters.SAME_MEANING, {}
    for threshold in sorted({in_use, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7}):
        clusters.SAME_MEANING = threshold
        groups = clusters.grouped(questions)
        group_of = {id(q): n for n, g in enumerate(groups) for q in g.questions}
        found, truth = [group_of[id(q)] for q in questions], [q.reason for q in questions]
        homogeneity, completeness, v = homogeneity_completeness_v_measure(truth, found)
        scores[f"{threshold:g}"] = {
            "groups": len(groups),
            "ari": round(adjusted_rand_score(truth, found), 3),
            "homogeneity": round(homogeneity, 3),
            "completeness": round(completeness, 3),
            "v": round(v, 3),
        }
    clusters.SAME_MEANING = in_use
    print(
        json.dumps(
            {
                "questions": len(questions),
                "categories": len(categories),
                "threshold": in_use,
                **scores[f"{in_use:g}"],
                "by_threshold": scores,
            }
        )
    )


if __name__ == "__main__":
    main()
