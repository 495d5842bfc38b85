"""Loading a pack folder into a Catalog, once per app: every file read and checked, and the
pack's words in each language it replies in (its translations)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from assistant.pack.extension import ExtensionData, data_reader, texts_of, translations_of
from assistant.pack.flows import DONE_STAGE, Flow
from assistant.pack.ingest import read, rows_from_csv, validated
from assistant.pack.model import (
    DEFAULT_TEXTS,
    Catalog,
    DataError,
    Examples,
    FaqEntry,
    Labels,
    Pack,
    Product,
    Version,
    Vocabulary,
)
from assistant.pack.translations import ENGINE_FOLDER, FOLDER, TranslationError, Translator, faithful, read_table, walk
from assistant.pack.validation import check_item, check_texts, check_vocabulary, devices_named


def load_catalog(folder: Path, translated: bool = True, tools: Mapping[str, Sequence[str]] | None = None) -> Catalog:
    """Load and validate a domain pack folder; `translated=False` leaves out its translations
    (python3 -m assistant translations lists what they miss); `tools`: each agent's own tools,
    its allow-list where pack.yaml gives none (its extensions add their agents' own)."""
    if not (folder / "pack.yaml").is_file():
        raise DataError(f"{folder}: no pack.yaml here; is DOMAIN the name of a folder under data/?")
    raw = read(folder / "pack.yaml")
    named = raw.get("extensions") if isinstance(raw, dict) else None
    readers = {name: data_reader(name) for name in named or {}} if isinstance(named, dict) else {}
    if isinstance(raw, dict) and "tools" not in raw and tools is not None:
        added = {agent: allowed for reader in readers.values() for agent, allowed in reader.tools.items()}
        raw = {**raw, "tools": {agent: list(allowed) for agent, allowed in {**tools, **added}.items()}}
    extension_texts = texts_of(readers.values())
    pack = validated(folder / "pack.yaml", Pack.model_validate, raw)
    validated(folder / "pack.yaml", lambda p: check_texts(p, {**DEFAULT_TEXTS, **extension_texts}), pack)
    source = folder / pack.catalog.file
    if source.suffix == ".csv":
        raw_items = rows_from_csv(source, pack.catalog, pack.attributes)
    else:
        raw_items = read(source)
    products = validated(source, lambda raw: [Product.model_validate(p) for p in raw], raw_items)
    for item in products:
        validated(source, lambda i: check_item(i, pack), item)
    faq_path = folder / pack.knowledge
    faq = validated(faq_path, lambda raw: [FaqEntry.model_validate(e) for e in raw], read(faq_path))
    faq = validated(faq_path, lambda entries: devices_named(entries, pack), faq)
    vocabulary_path = folder / "vocabulary.json"
    vocabulary = validated(vocabulary_path, Vocabulary.model_validate, read(vocabulary_path))
    validated(vocabulary_path, lambda v: check_vocabulary(v, pack), vocabulary)
    examples_path = folder / "nlu.yml"
    examples = validated(examples_path, Examples.model_validate, read(examples_path))
    extras = {name: _extension_data(readers[name], folder, settings, pack, products) for name, settings in pack.extensions.items()}
    stages = {DONE_STAGE, *(step.stage for flow in pack.flows.values() for step in flow.steps if step.stage)}
    stages |= {stage for reader in readers.values() for stage in reader.stages}
    unknown = sorted(set(pack.prompting.phases) - stages) if pack.prompting else []
    if unknown:
        raise DataError(f"{folder / 'pack.yaml'}: prompting.phases {unknown}: no flow step has that stage; known: {sorted(stages)}")
    prompts = {}
    for stage, phase in pack.prompting.phases.items() if pack.prompting else []:
        if phase.prompt:
            path = folder / phase.prompt
            if not path.is_file():
                raise DataError(f"{folder / 'pack.yaml'}: prompting.phases.{stage}.prompt: {phase.prompt} is not in the pack")
            prompts[stage] = path.read_text(encoding="utf-8").strip()
    try:
        versions = _versions(folder, pack, faq, extras, readers, extension_texts) if translated else {}
        if versions:
            pack, faq, vocabulary, extras = _known_in_every_language(pack, faq, vocabulary, extras, readers, versions)
            versions = _versions(folder, pack, faq, extras, readers, extension_texts)  # the translations know the same words
        return Catalog(
            name=pack.business.name,
            own_pack=pack,
            products=products,
            own_faq=faq,
            vocabulary=vocabulary,
            examples=examples,
            own_extras=extras,
            extension_texts=extension_texts,
            prompts=prompts,
            versions=versions,
        )
    except TranslationError as exc:
        raise DataError(str(exc)) from exc
    except ValidationError as exc:
        raise DataError(f"{folder}: {exc}") from exc


def _extension_data(
    reader: ExtensionData, folder: Path, settings: dict[str, Any], pack: Pack, products: list[Product]
) -> BaseModel:
    """An extension's data; settings it refuses name pack.yaml, as the pack's own do."""
    return validated(folder / "pack.yaml", lambda raw: reader.load(folder, raw, pack, products), settings)


UNIT_KEYWORDS = frozenset({"currency", "percent"})  # units the engine formats itself: never words to translate
ENGINE_TEXTS = frozenset([*DEFAULT_TEXTS.values(), *(str(f.default) for f in Labels.model_fields.values())])


def engine_translator(
    code: str, language: str, readers: Iterable[ExtensionData], extension_texts: Mapping[str, str], own: Path, engine: Path
) -> Translator:
    """The translator of a pack written in `language` into `code`: its own table (`own`), then the
    engine's (`engine`) and its extensions' (whose default texts, in English, are the engine's
    sentences too)."""
    table = read_table(engine)
    table = table.model_copy(update={"texts": {**table.texts, **translations_of(readers, code)}})
    sentences = ENGINE_TEXTS | frozenset(extension_texts.values())
    return Translator(code, language, sentences, read_table(own), table, own, UNIT_KEYWORDS)


def _versions(
    folder: Path,
    pack: Pack,
    faq: list[FaqEntry],
    extras: dict[str, BaseModel],
    readers: dict[str, ExtensionData],
    extension_texts: Mapping[str, str],
) -> dict[str, Version]:
    """The pack in each language it replies in besides its own (once the pack has a translation
    file for it), and in its own where the engine's sentences (English) need translating into it
    (once the engine has one). Until then that language is replied to in the pack's own words."""
    own = pack.language
    versions = {}
    for code in pack.languages:
        if code == own == "en":
            continue
        path, engine_path = folder / FOLDER / f"{code}.yaml", ENGINE_FOLDER / f"{code}.yaml"
        if not (engine_path if code == own else path).is_file():
            continue  # not translated yet: replies in the pack's own words
        translate = engine_translator(code, own, readers.values(), extension_texts, path, engine_path)
        versions[code] = translated_version(code, translate, pack, faq, extras, extension_texts)
        translate.check()
    return versions


def translated_version(
    code: str,
    translate: Translator,
    pack: Pack,
    faq: list[FaqEntry],
    extras: dict[str, BaseModel],
    extension_texts: Mapping[str, str] | None = None,
) -> Version:
    """The pack's words in language `code`; what the translation lacks is on `translate.problems`;
    `extension_texts`: its extensions' default texts, said like the engine's."""
    whole = pack.model_copy(update={"texts": {**DEFAULT_TEXTS, **(extension_texts or {}), **pack.texts}})  # every sentence
    own = pack.language
    version = {
        "pack": walk(whole, translate),
        "faq": [_article(entry, code, own, translate) for entry in faq],
        "extras": {name: walk(data, translate) for name, data in extras.items()},
    }
    return Version.model_validate(version)


def _article(entry: FaqEntry, code: str, own: str, translate: Translator) -> FaqEntry:
    """A help article in language `code`: its translation by id, checked against its figures."""
    if code == own:
        return entry
    said = translate.own.articles.get(entry.id)
    where = f"articles.{entry.id}"
    if said is None:
        translate.problems.append(f"{translate.where}: no translation of {where}")
        translate.missing_articles.append(entry)
        return entry
    pairs = [("question", entry.question, said.question), ("answer", entry.answer, said.answer)]
    if len(said.steps) != len(entry.steps):
        translate.problems.append(f"{translate.where}: {where}.steps has {len(said.steps)} steps, the source {len(entry.steps)}")
    pairs += [(f"steps[{i}]", a, b) for i, (a, b) in enumerate(zip(entry.steps, said.steps, strict=False))]
    for name, source, translation in pairs:
        if wrong := faithful(source, translation):
            translate.problems.append(f"{translate.where}: {where}.{name} changes {wrong}")
    category = said.category or translate(f"{where}.category", entry.category)
    return entry.model_copy(
        update={"question": said.question, "answer": said.answer, "steps": said.steps or entry.steps, "category": category}
    )


def _known_in_every_language(
    pack: Pack,
    faq: list[FaqEntry],
    vocabulary: Vocabulary,
    extras: dict[str, BaseModel],
    readers: dict[str, ExtensionData],
    versions: dict[str, Version],
) -> tuple[Pack, list[FaqEntry], Vocabulary, dict[str, BaseModel]]:
    """The pack's own words extended by their translations wherever a customer may say them
    back: a quick reply tapped in Bangla picks the same option, a help question asked as the
    translation puts it finds its article."""
    said = list(versions.values())
    flows = {name: said_back(flow, [v.pack.flows[name] for v in said]) for name, flow in pack.flows.items()}
    facts = {}
    for name, fact in pack.profile.items():  # a category's choices say its values, in order
        if told := vocabulary.facts.get(name):
            facts[name] = {
                value: _new(told.get(value, []), *(v.pack.profile[name].choices[i] for v in said))
                for i, value in enumerate(fact.values)
            }
    questions = {entry.id: [e.question for v in said for e in v.faq if e.id == entry.id] for entry in faq}
    return (
        pack.model_copy(update={"flows": flows}),
        [entry.model_copy(update={"paraphrases": _new(entry.paraphrases, *questions[entry.id])}) for entry in faq],
        vocabulary.model_copy(update={"facts": {**vocabulary.facts, **facts}}),
        {name: readers[name].said_back(data, [v.extras[name] for v in said]) for name, data in extras.items()},
    )


def said_back(flow: Flow, translations: list[Flow]) -> Flow:
    """A flow whose options also know the words each translation gives their choices."""
    steps = []
    for i, step in enumerate(flow.steps):
        slots = []
        for j, slot in enumerate(step.collect):
            told = {
                key: option.model_copy(
                    update={
                        "words": _new(
                            option.words, option.choice, *(t.steps[i].collect[j].options[key].choice for t in translations)
                        )
                    }
                )
                for key, option in slot.options.items()
            }
            slots.append(slot.model_copy(update={"options": told}) if told else slot)
        steps.append(step.model_copy(update={"collect": slots}))
    return flow.model_copy(update={"steps": steps})


def _new(known: list[str], *more: str) -> list[str]:
    """`known` and those of `more` it lacks, in order."""
    return list(dict.fromkeys([*known, *more]))
