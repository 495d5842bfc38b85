"""Writes the vectors of every pack's help phrasings, as the native-script reader reads them.

    python3 bench/native_vectors.py

multilingual-e5-small reads a text in ~20 ms on one core, so a help centre's thousands of
phrasings would take a minute at every start-up; they are read here once instead, into
assistant/assets/e5-phrasings.npz (`NativeScriptReader`). Run it after changing a pack's help
articles or out-of-scope examples: a phrasing missing from the file is read at start-up, which
only makes start-up slower. Uses every core.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from assistant.pack.loading import load_catalog  # noqa: E402
from assistant.tools.embeddings import NATIVE_STORE, NativeScriptReader  # noqa: E402
from assistant.tools.help_search import phrasings  # noqa: E402


def main() -> None:
    started = time.perf_counter()
    texts: set[str] = set()
    for pack in sorted(p for p in (ROOT / "data").iterdir() if (p / "pack.yaml").exists()):
        catalog = load_catalog(pack)
        texts.update(text for entry in catalog.faq for text in phrasings(entry))
        texts.update(catalog.examples.intents.get("out_of_scope", []))
    ordered = sorted(texts)
    reader = NativeScriptReader(threads=os.cpu_count() or 1)
    known = reader.stored
    missing = [text for text in ordered if text not in known]
    read = dict(zip(missing, reader.raw(missing), strict=True)) if missing else {}
    vectors = np.array([known[text] if text in known else read[text] for text in ordered], dtype=np.float16)
    np.savez_compressed(NATIVE_STORE, texts=np.array(ordered), vectors=vectors)
    print(f"{len(ordered)} phrasings, {len(missing)} read now, {time.perf_counter() - started:.0f} s -> {NATIVE_STORE}")


if __name__ == "__main__":
    main()
