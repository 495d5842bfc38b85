"""`python3 -m assistant translations PACK LANG`: what a pack's translation into LANG still lacks.

Prints it as the translation file wants it (data/<pack>/translations/<lang>.yaml): each missing
sentence as a key with an empty translation, where it is said as a comment, and each missing
help article with its source as comments. Fill in the empty strings and add them to the file;
start-up checks that each keeps the source's figures and placeholders.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant.pack.extension import data_reader
from assistant.pack.loading import engine_translator, load_catalog, translated_version
from assistant.pack.translations import ENGINE_FOLDER, FOLDER


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m assistant translations", description=__doc__.split("\n")[0])
    parser.add_argument("pack", help="the pack's folder name under data/ (or a path)")
    parser.add_argument("lang", help="a language code of the pack's languages")
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--engine", action="store_true", help="list only the engine's own sentences (its translation file)")
    parser.add_argument("--file", type=Path, help="read the pack's translation from here instead (a draft)")
    parser.add_argument("--engine-file", type=Path, help="read the engine's translation from here instead (a draft)")
    args = parser.parse_args(argv)
    folder = Path(args.pack) if Path(args.pack).is_dir() else Path(args.data_dir) / args.pack
    catalog = load_catalog(folder, translated=False)
    path = args.file or folder / FOLDER / f"{args.lang}.yaml"
    engine = args.engine_file or ENGINE_FOLDER / f"{args.lang}.yaml"
    readers = [data_reader(name) for name in catalog.own_pack.extensions]
    translate = engine_translator(args.lang, catalog.language, readers, catalog.extension_texts, path, engine)
    sentences = translate.engine_texts  # the engine's sentences: its own and its extensions'
    translated_version(args.lang, translate, catalog.own_pack, catalog.own_faq, catalog.own_extras, catalog.extension_texts)
    engine_only = {text: where for text, where in translate.missing.items() if text in sentences}
    missing = engine_only if args.engine else {t: w for t, w in translate.missing.items() if t not in sentences}
    target = engine if args.engine else path
    articles = "" if args.engine else f" and {len(translate.missing_articles)} articles"
    print(f"# {target}: {len(missing)} texts{articles} to translate")
    print("texts:")
    for text, where in missing.items():
        print(f"  # {where}")
        print(f'  {json.dumps(text, ensure_ascii=False)}: ""')
    if not args.engine and translate.missing_articles:
        print("articles:")
        for entry in translate.missing_articles:
            print(f"  {entry.id}:")
            for name in ("category", "question", "answer"):
                print(f"    # {name}: {getattr(entry, name)}")
                print(f'    {name}: ""')
            if entry.steps:
                print("    steps:")
                for step in entry.steps:
                    print(f"      # {step}")
                    print('      - ""')
    changed = [problem for problem in translate.problems if "changes" in problem or "steps has" in problem]
    for problem in changed:  # figures or placeholders a draft changed: start-up would refuse them
        print(f"# PROBLEM: {problem}")
    return 1 if changed else 0
