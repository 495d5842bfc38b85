"""Score the schema-driven understanding (assistant.understanding.nlu) on SGD Restaurants_2 dev user turns.

    python3 bench/nlu_eval.py [--data DIR] [--phrasings FILE]

Runs in process: each dialogue is followed by a DialogueTracker, exactly as
`python3 -m assistant.understanding.nlu` does for lines carrying a dialogue_id. Scores intent accuracy and
slot precision / recall / F1 against the gold `new_slots`, with the gold values normalised by
the same rules the product uses (assistant.language) and TODAY fixed to 2019-03-01, a
Friday (the date SGD's Restaurants_2 schema gives as the default reservation date).
Values compare case-insensitively with punctuation stripped.

Joint goal accuracy, as published dialogue-state tracking results are measured: the fraction of
user turns after which the tracker's whole state (every slot it holds) equals the gold `state`,
both normalised as above. One slot wrong anywhere earlier in a dialogue counts against every
later turn of it until put right. Per slot, `state_accuracy` is the fraction of turns after
which that slot alone is right (held with the gold value, or held by neither).

Gold `new_slots` also lists slots whose value only changed spelling ("afternoon 12:45" became
"12:45 pm" when the system confirmed it). Once normalised these are no change at all, so the
headline scores leave them out; `strict` reports the scores with them kept in.

VALUES.json as a catalog would provide it: the known cities (location), restaurant names and
cuisines (category) are taken from the gold `state` values of the dataset itself - that is
"what the catalog knows". No sentence of the dataset is used by the product.

`phrasings` scores the same readers on the team's own messages asking for a price range or
outdoor seating (bench/data/slot_phrasings.yml): per slot, the share of messages whose value
(or its absence) is read right, on the `dev` phrasings the readers were improved on and on the
`held` ones they were not (`--missed` prints those read wrong).

The last line printed is one JSON object with the scores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.understanding.nlu import DialogueTracker, Kind, SchemaUnderstanding  # noqa: E402

TODAY = dt.date(2019, 3, 1)  # a Friday
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "sgd-restaurants-dev"
PHRASINGS = Path(__file__).resolve().parent / "data" / "slot_phrasings.yml"
CATALOG_SLOTS = ("location", "restaurant_name", "category")


def catalog_values(turns: list[dict]) -> dict[str, list[str]]:
    """Known values per free-text slot, as a catalog would know them: from the gold states."""
    known: dict[str, set[str]] = defaultdict(set)
    for turn in turns:
        for slot in CATALOG_SLOTS:
            value = turn["state"].get(slot)
            if value and value != "dontcare":
                known[slot].add(value)
    return {slot: sorted(values) for slot, values in known.items()}


def canonical(understanding: SchemaUnderstanding, slot: str, value: str) -> str:
    """A gold value in the product's form: times HH:MM, dates ISO, counts digits; then compared loosely."""
    kind = understanding.slots[slot].kind if slot in understanding.slots else Kind.TEXT
    languages = understanding.languages
    finder = {
        Kind.TIME: languages.find_time,
        Kind.DATE: lambda text: languages.find_date(text, TODAY),
        Kind.COUNT: languages.find_count,
    }.get(kind)
    found = finder(value) if finder and value != "dontcare" else None
    if kind is Kind.COUNT and not found and value.isdigit():
        return value
    return loose(found.value if found else value)


def loose(value: str) -> str:
    return re.sub(r"[^\w\s:-]", "", value.lower()).strip()


def phrasings(path: Path) -> tuple[dict[str, Any], list[str]]:
    """Per split and measured slot, the share of the file's messages read with exactly the value
    expected, or with none where none is; and the messages missed, to read."""
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    understanding = SchemaUnderstanding.from_schema(spec["schema"])
    result: dict[str, Any] = {}
    missed = []
    for split in ("dev", "held"):
        right: Counter[str] = Counter()
        for item in spec[split]:
            slots: Mapping[str, str] = understanding.read(item["text"], today=TODAY)["slots"]
            for slot in spec["measured"]:
                ok = slots.get(slot) == item.get(slot)
                right[slot] += ok
                if not ok:
                    missed.append(f"{split}: {item['text']!r} {slot}: {slots.get(slot)} for {item.get(slot)}")
        result[split] = {slot: round(right[slot] / len(spec[split]), 3) for slot in spec["measured"]}
        result[split]["messages"] = len(spec[split])
    return result, missed


def score(schema: dict[str, Any], turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The scores of following each dialogue of `turns` with a tracker for `schema`."""
    understanding = SchemaUnderstanding.from_schema(schema, catalog_values(turns))
    trackers: dict[str, DialogueTracker] = {}
    previous: dict[str, dict[str, str]] = defaultdict(dict)  # gold state before each turn, per dialogue
    intents_right = joint_right = 0
    state_wrong: Counter[str] = Counter()  # turns after which a slot's tracked value is not the gold one
    # tp / fp / fn, overall and per slot
    counts: dict[str, Counter[str | tuple[str, str]]] = {"value": Counter(), "strict": Counter()}
    for turn in turns:
        tracker = trackers.setdefault(turn["dialogue_id"], DialogueTracker(understanding))
        prediction = tracker.turn(turn["user"], turn["system"], TODAY)
        intents_right += prediction["intent"] == turn["intent"]
        predicted = {slot: loose(value) for slot, value in prediction["slots"].items()}
        before = previous[turn["dialogue_id"]]
        strict = {slot: canonical(understanding, slot, value) for slot, value in turn["new_slots"].items()}
        changed = {
            slot: value
            for slot, value in strict.items()
            if slot not in before or canonical(understanding, slot, before[slot]) != value
        }
        for mode, gold in (("value", changed), ("strict", strict)):
            for slot in set(gold) | set(predicted):
                hit = slot in gold and predicted.get(slot) == gold[slot]
                outcomes = ["tp"] if hit else [o for o, present in (("fp", slot in predicted), ("fn", slot in gold)) if present]
                for outcome in outcomes:
                    counts[mode][outcome] += 1
                    counts[mode][(slot, outcome)] += 1
        previous[turn["dialogue_id"]] = turn["state"]
        tracked = {slot: loose(value) for slot, value in tracker.state.items()}
        gold_state = {slot: canonical(understanding, slot, value) for slot, value in turn["state"].items()}
        joint_right += tracked == gold_state
        state_wrong.update(slot for slot in set(tracked) | set(gold_state) if tracked.get(slot) != gold_state.get(slot))

    def scores(counter: Counter, key=lambda outcome: outcome) -> dict[str, float]:
        tp, fp, fn = (counter[key(outcome)] for outcome in ("tp", "fp", "fn"))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}

    main_scores, strict_scores = scores(counts["value"]), scores(counts["strict"])
    slots = sorted({key[0] for key in counts["value"] if isinstance(key, tuple)} | set(state_wrong))
    return {
        "turns": len(turns),
        "today": TODAY.isoformat(),
        "intent_accuracy": round(intents_right / len(turns), 3),
        "slot_precision": main_scores["precision"],
        "slot_recall": main_scores["recall"],
        "slot_f1": main_scores["f1"],
        "joint_goal_accuracy": round(joint_right / len(turns), 3),
        "strict": {f"slot_{name}": value for name, value in strict_scores.items()},
        "by_slot": {
            slot: {
                **scores(counts["value"], lambda outcome, s=slot: (s, outcome)),
                "gold": counts["value"][(slot, "tp")] + counts["value"][(slot, "fn")],
                "state_accuracy": round(1 - state_wrong[slot] / len(turns), 3),
            }
            for slot in slots
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--phrasings", type=Path, default=PHRASINGS)
    parser.add_argument("--missed", action="store_true", help="print the phrasings read wrong, one a line, first")
    args = parser.parse_args()
    started = time.perf_counter()
    schema = json.loads((args.data / "schema.json").read_text())
    turns = [json.loads(line) for line in (args.data / "turns.jsonl").read_text().splitlines() if line.strip()]
    scores = score(schema, turns)
    own, missed = phrasings(args.phrasings)
    if args.missed:
        print("\n".join(missed))
    seconds = round(time.perf_counter() - started, 2)
    print(json.dumps({"bench": "nlu_sgd_restaurants", **scores, "phrasings": own, "seconds": seconds}))


if __name__ == "__main__":
    main()
