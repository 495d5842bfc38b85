"""The quotation tools (identify the element, select its variant, price it by the tariff), plain functions over a
pack's elements.yaml.

`identify` reads a free description once; an answer to a variant question goes to
`select_variant`, which knows only the data's options, so nothing is ever identified twice or
asked that the data does not ask. `tariff` prices the final codes with the pack's combination
rules, choosing the cheapest way to cover them, and gathers every warning.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from itertools import combinations as subsets

from pydantic import BaseModel

from extensions.homologation.elements import Elements


class VariantQuestion(BaseModel):
    code: str  # the element whose option is still open
    question: str
    options: list[str]  # the options' names, as quick replies


class Identified(BaseModel):
    ready: list[str] = []  # final codes: elements without variants, or with their option said
    with_variants: list[VariantQuestion] = []
    categories: list[str] = []  # the categories the elements named belong to, when the message said none and there are several


class Line(BaseModel):
    codes: list[str]
    name: str
    price: float


class Tariff(BaseModel):
    price: float
    tax_note: str
    lines: list[Line]
    warnings: list[str]
    combination: str | None = None  # the combination rule applied, if any


def identify(elements: Elements, description: str, category: str | None = None) -> Identified:
    """The elements a description names, in the category it names (else `category`, the one
    already talked about); an option said beside its element ("amortiguador delantero")
    resolves it at once."""
    words = _words(description)
    category = find_category(elements, description) or category
    found: list[tuple[int, str]] = []  # (where in the message, element code)
    for code, element in elements.elements.items():
        if category and element.category != category:
            continue
        at = _first(words, element.words)
        if at is not None:
            found.append((at, code))
    found.sort()
    categories = list(dict.fromkeys(elements.elements[code].category for _, code in found))
    if len(categories) > 1 and category is None:
        return Identified(categories=categories)
    result = Identified()
    for at, code in found:
        options = elements.elements[code].variants
        if options is None:
            result.ready.append(code)
            continue
        others = [where for where, other in found if other != code]
        said = {key for key, option in options.options.items() if _near(words, option.words, at, others)}
        if len(said) == 1:
            result.ready.append(f"{code}_{said.pop()}")
        else:
            result.with_variants.append(question(elements, code))
    return result


def question(elements: Elements, code: str) -> VariantQuestion:
    """The data's own question for an element's variants, with its options as quick replies."""
    variants = elements.elements[code].variants
    assert variants is not None, "asked only of elements with variants"
    return VariantQuestion(code=code, question=variants.question, options=[v.name for v in variants.options.values()])


def select_variant(elements: Elements, code: str, answer: str) -> str | None:
    """The variant code an answer to `code`'s question picks, or None when it names no single
    option: by the option's words and name, never its code ("DEL" is also Spanish "del")."""
    variants = elements.elements[code].variants
    if variants is None:
        return None
    words = _words(answer)
    picked = [key for key, option in variants.options.items() if _first(words, [*option.words, option.name]) is not None]
    return f"{code}_{picked[0]}" if len(picked) == 1 else None


def find_category(elements: Elements, text: str) -> str | None:
    """The one category a message names ("mi moto", "my car"), if it names exactly one."""
    words = _words(text)
    named = [key for key, category in elements.categories.items() if _first(words, [*category.words, category.name]) is not None]
    return named[0] if len(named) == 1 else None


def tariff(elements: Elements, codes: list[str]) -> Tariff:
    """The price of the codes together: each combination rule that applies is a candidate, and
    the cheapest cover of every code wins; warnings are every element's, each once."""
    singles = [Line(codes=[code], name=elements.name_of(code), price=elements.price_of(code)) for code in codes]
    rules = [
        (Line(codes=covered, name=rule.name, price=rule.price), rule.name)
        for rule in elements.combinations
        if (covered := _covers(elements, rule.elements, codes)) is not None
    ]
    best: tuple[float, list[Line], str | None] = (sum(line.price for line in singles), singles, None)
    for count in range(1, len(rules) + 1):
        for chosen in subsets(rules, count):
            taken = [code for line, _ in chosen for code in line.codes]
            if len(taken) != len(set(taken)):
                continue
            lines = [line for line, _ in chosen] + [line for line in singles if line.codes[0] not in taken]
            total = sum(line.price for line in lines)
            if total < best[0]:
                best = (total, lines, ", ".join(name for _, name in chosen))
    warnings = list(dict.fromkeys(w for code in codes for w in elements.warnings_of(code)))
    return Tariff(price=best[0], tax_note=elements.tax_note, lines=best[1], warnings=warnings, combination=best[2])


def mentions(text: str, phrases: Iterable[str]) -> bool:
    """Whether a text says any of the phrases, in any of their forms."""
    return _first(_words(text), phrases) is not None


def only(text: str, phrases: Iterable[str]) -> bool:
    """Whether a text says nothing but some of the phrases' words ("sí, vale")."""
    allowed = {word for phrase in phrases for word in _words(phrase)}
    words = _words(text)
    return bool(words) and set(words) <= allowed


def _covers(elements: Elements, members: list[str], codes: list[str]) -> list[str] | None:
    """The codes a combination's members take (a base code takes any of its variants), or None if one is missing."""
    taken: list[str] = []
    for member in members:
        match = next((c for c in codes if c not in taken and (c == member or elements.split(c)[0] == member)), None)
        if match is None:
            return None
        taken.append(match)
    return taken


def _words(text: str) -> list[str]:
    """A text's words, lower-case, without accents, each cut to its stem ("delantero" and "delantera" alike)."""
    plain = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return [_stem(word) for word in re.findall(r"\w+", plain)]


def _stem(word: str) -> str:
    """A word without its plural and gender endings, so that a form the data lacks still matches."""
    if len(word) <= 3:
        return word
    word = re.sub(r"(?:es|s)$", "", word)
    return re.sub(r"[aeo]$", "", word) if len(word) > 3 else word


def _first(words: list[str], phrases: Iterable[str]) -> int | None:
    """Where the first of the phrases begins among the words, if any is there."""
    spots = [at for phrase in phrases for at in _spots(words, _words(phrase))]
    return min(spots, default=None)


def _spots(words: list[str], phrase: list[str]) -> list[int]:
    size = len(phrase)
    return [i for i in range(len(words) - size + 1) if size and words[i : i + size] == phrase]


def _near(words: list[str], phrases: list[str], at: int, others: list[int]) -> bool:
    """Whether an option's words are said closer to this element than to any other one named."""
    return any(all(abs(spot - at) <= abs(spot - other) for other in others) for p in phrases for spot in _spots(words, _words(p)))
