"""A pack in each language its customers write: its words translated, its figures untouched.

Translations are tables from a sentence to its translation, as gettext's catalogs are (msgid to
msgstr): the engine's own sentences in assistant/pack/translations/<code>.yaml, the pack's in
data/<pack>/translations/<code>.yaml, and the pack's help articles there by id (an answer is too
long to be a key). Keyed by the sentence itself, a translation goes stale the moment its source
changes, and start-up says so instead of showing an old sentence.

Which fields a customer reads, each model says in its `shown` (the rest are names, patterns and
the words understanding reads by). Walking a model finds every such text with its path, and a
language's version of the model is the same model with each of them replaced. Start-up refuses a
translation that misses a text, changes a figure (the numbers in it: fees, limits, phone
numbers) or the placeholders the engine fills, naming the file and the text's path.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

ENGINE_FOLDER = Path(__file__).resolve().parent / "translations"
FOLDER = "translations"  # a pack's own, beside its pack.yaml
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")  # \d is any script's digit: ৩, ३ and ๓ are figures too

# The language the current turn replies in; None: the pack's own. Set for the length of a turn
# (speaking), as Flask-Babel sets a request's locale: whatever the turn words is in it.
REPLY_LANGUAGE: ContextVar[str | None] = ContextVar("reply_language", default=None)

M = TypeVar("M")
Visit = Callable[[str, str], str]  # (path, text) -> the text to show


class Article(BaseModel):
    """A help article in another language; its figures are its source's (checked at start-up)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    answer: str
    steps: list[str] = []
    category: str | None = None


class Table(BaseModel):
    """One translation file: sentences by their source, and help articles by id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    texts: dict[str, str] = {}
    articles: dict[str, Article] = {}


@contextmanager
def speaking(code: str | None) -> Iterator[None]:
    """Word everything said inside in language `code` (a pack without it uses its own)."""
    token = REPLY_LANGUAGE.set(code)
    try:
        yield
    finally:
        REPLY_LANGUAGE.reset(token)


class TranslationError(ValueError):
    """A translation that misses a text or changes what the source says."""


def read_table(path: Path) -> Table:
    """A translation file, or an empty table where there is none."""
    if not path.is_file():
        return Table()
    try:
        return Table.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    except (yaml.YAMLError, ValidationError) as exc:
        raise TranslationError(f"{path}: {exc}") from exc


def figures(text: str) -> Counter[str]:
    """The numbers a text states, as ASCII digits whatever the script ("৭-১০" is 7 and 10)."""
    return Counter(_ascii(found).replace(",", "") for found in _FIGURE.findall(text))


def _ascii(text: str) -> str:
    return "".join(str(int(c)) if c.isdigit() else c for c in text)


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)(?:[|!:][^{}]*)?\}", text))


def faithful(source: str, translation: str) -> str | None:
    """What a translation changed that it may not: a figure or a placeholder; None if nothing."""
    if figures(source) != figures(translation):
        return f"its figures {sorted(figures(translation).elements())} are not the source's {sorted(figures(source).elements())}"
    if placeholders(source) != placeholders(translation):
        return f"its placeholders {sorted(placeholders(translation))} are not the source's {sorted(placeholders(source))}"
    return None


def walk(value: M, visit: Visit, path: str = "") -> M:
    """`value` with every text a customer reads replaced by `visit(path, text)`; models, lists
    and dicts are rebuilt only where something changed."""
    return _walk(value, visit, path, shown=False)  # type: ignore[no-any-return]


def _walk(value: Any, visit: Visit, path: str, shown: bool) -> Any:
    if isinstance(value, str):
        return visit(path, value) if shown else value
    if isinstance(value, BaseModel):
        names = getattr(type(value), "shown", ())
        changes = {}
        for name in type(value).model_fields:
            inner = getattr(value, name)
            new = _walk(inner, visit, f"{path}.{name}" if path else name, name in names)
            if new is not inner:
                changes[name] = new
        return _copy(value, changes) if changes else value
    if isinstance(value, list | tuple):
        items = [_walk(item, visit, f"{path}[{i}]", shown) for i, item in enumerate(value)]
        return type(value)(items) if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, dict):
        pairs = {key: _walk(item, visit, f"{path}.{key}", shown) for key, item in value.items()}
        return pairs if any(pairs[key] is not item for key, item in value.items()) else value
    return value


def _copy(model: BaseModel, changes: dict[str, Any]) -> BaseModel:
    """The model with `changes`, without what it worked out from the old values (cached_property)."""
    copy = model.model_copy(update=changes)
    for cls in type(model).__mro__:
        for name, attribute in vars(cls).items():
            if isinstance(attribute, cached_property):
                copy.__dict__.pop(name, None)
    return copy


class Translator:
    """Turns a pack's texts into one language: the pack's table first, then the engine's.

    A text needs no translation where it is already in the language: the pack's own words in
    the pack's language, and the engine's own (English) sentences in English."""

    def __init__(
        self,
        language: str,
        pack_language: str,
        engine_texts: frozenset[str],
        own: Table,
        engine: Table,
        where: Path,
        keywords: frozenset[str] = frozenset(),
    ):
        """`keywords`: values of shown fields that are the engine's, not words ("currency")."""
        self.language = language
        self.keywords = keywords
        self.pack_language = pack_language
        self.engine_texts = engine_texts
        self.own = own
        self.engine = engine
        self.where = where
        self.problems: list[str] = []
        self.missing: dict[str, str] = {}  # source -> where it is said: what a translator still has to write
        self.missing_articles: list[Any] = []  # the help articles it lacks

    def __call__(self, path: str, text: str) -> str:
        if text in self.keywords or not any(c.isalpha() for c in re.sub(r"\{[^{}]*\}", "", text)):
            return text  # nothing in it is a word: "{annual_fee}", "/5"
        engine_sentence = text in self.engine_texts
        if self.language == ("en" if engine_sentence else self.pack_language):
            return text
        said = self.own.texts.get(text) or self.engine.texts.get(text)
        if not said:
            self.problems.append(f"{self.where}: no translation of {path} ({text[:60]!r})")
            self.missing.setdefault(text, path)
            return text
        if wrong := faithful(text, said):
            self.problems.append(f"{self.where}: the translation of {path} ({text[:60]!r}) changes {wrong}")
        return said

    def check(self) -> None:
        if self.problems:
            worst = sorted(self.problems, key=lambda problem: ": no translation of " in problem)  # changed figures first
            shown = "\n".join(worst[:20])
            more = f"\n... and {len(self.problems) - 20} more" if len(self.problems) > 20 else ""
            raise TranslationError(f"{len(self.problems)} problems with the {self.language} translation:\n{shown}{more}")
