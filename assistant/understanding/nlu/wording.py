"""What a customer wants of a service's categorical and yes/no slots, in the words of the loaded
languages (assistant/language/data/<code>.yml: `schema_words`, and `drop` and `dropped`).

A schema names values and features in English ("cheap", "has_seating_outdoors"); customers say
them their own way ("budget-friendly", "on the patio", "sasta", "बाहर"), turn them over ("no need
for outdoor seating", "bahar nahi"), move along a scale ("not too expensive" is the middle of
cheap-to-pricey, "very expensive" its top), ask about them rather than for them ("do they have a
patio?"), or leave them open ("price doesn't matter"). The words are data; how they combine is
here, the same for any schema.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from assistant.language import Languages
from assistant.language.lexicon import LETTER, NOTHING, Language, Table, key

BEFORE = 4  # how many words before a value or feature a negation reaches ("don't want to sit outdoors")
AFTER = 3  # and after it ("outdoor seating isn't necessary", "bahar nahi baithna")
BETWEEN = 2  # words between a slot's name and what leaves it open ("outdoor seating doesn't matter")
_APART = re.compile(r"[,;:()]")  # a negation never reaches across these


def any_of(terms: Iterable[str]) -> re.Pattern[str]:
    """Any of these terms said whole, regardless of case, longest first."""
    phrases = sorted({key(term) for term in terms if term.strip()}, key=len, reverse=True)
    alternatives = "|".join(r"\s+".join(map(re.escape, phrase.split())) for phrase in phrases) or NOTHING
    return re.compile(rf"(?<!{LETTER})(?:{alternatives})(?!{LETTER})", re.IGNORECASE)


@dataclass(frozen=True)
class Scale:
    """A slot's values placed on a scale of the languages' words: the value each step stands for
    (the nearest value the schema has where it has none there), and each word's step."""

    values: tuple[str, ...]
    steps: dict[str, int]
    words: re.Pattern[str]


class Wording:
    """The loaded languages' words for reading what a customer wants of a slot, merged."""

    def __init__(self, languages: Languages) -> None:
        loaded = languages.languages
        pattern = {
            kind: Table.words(loaded, f"schema_words.{kind}", partial(_words, kind=kind)).pattern
            for kind in ("more", "most", "negations", "negated", "asking", "about", "there", "seeking", "wondering")
        }
        self._negations = re.compile(pattern["negations"], re.IGNORECASE)
        self._negation = re.compile(rf"^(?:{pattern['negations']})$", re.IGNORECASE)
        self._negated = re.compile(pattern["negated"], re.IGNORECASE)
        self._more = re.compile(rf"(?:{pattern['more']})\s*$", re.IGNORECASE)
        self._most = re.compile(rf"(?:{pattern['most']})\s*$", re.IGNORECASE)
        self._question = re.compile(
            rf"(?:{pattern['asking']})\s+(?:{pattern['about']})|^\W*(?:{pattern['wondering']})"
            rf"|^\W*(?:{pattern['there']})(?!.*(?:{pattern['seeking']}))",
            re.IGNORECASE,
        )
        self._drop = Table.words(loaded, "drop", lambda lang: lang.drop).pattern
        self._dropped = Table.words(loaded, "dropped", lambda lang: lang.dropped).pattern
        ahead = [word for lang in loaded for word in (*lang.pointers.determiners, *_words(lang, "wondering"))]
        self._ahead = Table(((key(word), key(word), True) for word in ahead), "determiners").pattern
        self._names: dict[str, set[str]] = defaultdict(set)
        for lang in loaded:
            for name, others in lang.schema_words.names.items():
                self._names[key(name)].update(key(other) for other in others)
        self._scales: dict[str, list[set[str]]] = defaultdict(list)
        for lang in loaded:
            for name, steps in lang.schema_words.scales.items():
                merged = self._scales[name]
                merged.extend(set() for _ in range(len(steps) - len(merged)))
                for step, words in enumerate(steps):
                    merged[step].update(key(word) for word in words)

    def names(self, naming: Callable[[str], bool]) -> set[str]:
        """The ways to say what a schema names with the words `naming` accepts ("patio",
        "al fresco" and "bahar" for "outdoor"), the words included."""
        return {word for name, others in self._names.items() if naming(name) for word in (name, *others)}

    def scale(self, values: Iterable[str]) -> Scale | None:
        """The scale a slot's values lie on, when two or more of them stand at distinct steps of
        one, read as a customer's words are ("cheap", "moderate", "pricey"; "very expensive" one
        past "expensive"); None when they lie on none."""
        for steps in self._scales.values():
            words = {word: step for step, said_so in enumerate(steps) for word in said_so}
            pattern, placed = any_of(words), dict[int, str]()
            for value in values:
                found = pattern.search(key(value))
                step = self._step(len(steps), words, key(value), found.start(), found.end()) if found else None
                if step is not None:
                    placed.setdefault(step, value)
            if len(placed) < 2:
                continue
            middle = (len(steps) - 1) / 2
            nearest = tuple(_nearest(placed, step, middle) for step in range(len(steps)))
            return Scale(nearest, words | {key(value): step for step, value in placed.items()}, pattern)
        return None

    def question(self, clause: str) -> bool:
        """Whether a clause asks about a business rather than for something ("do they have a
        patio?", "how expensive is it?", "kya wahan bahar baithne ki jagah hai?")."""
        return bool(self._question.search(clause))

    def negated(self, clause: str, start: int, end: int) -> bool:
        """Whether what is said at clause[start:end] is wanted not: a negation a few words before
        it ("no need for", "don't want to sit"), after it ("isn't necessary", "nahi"), or within
        it ("bahar nahi baithna")."""
        before = " ".join(_APART.split(clause[:start])[-1].split()[-BEFORE:])
        after = " ".join(_APART.split(clause[start:])[0].split()[: AFTER + len(clause[start:end].split())])
        return bool(self._negations.search(before) or self._negated.search(after))

    def placed(self, scale: Scale, clause: str, start: int, end: int) -> str | None:
        """The value a word of a scale says where it stands in a clause (see `_step`)."""
        at = self._step(len(scale.values), scale.steps, clause, start, end)
        return None if at is None else scale.values[at]

    def _step(self, steps: int, words: dict[str, int], clause: str, start: int, end: int) -> int | None:
        """The step a word of a scale stands at where it is said: "very" or "the most" move it
        out from the middle (to the end), a negation of a word above the middle is the bottom
        ("nothing expensive"), and of one moved out, a step back ("not too expensive"); a
        negation of a word at or below the middle says too little to read."""
        step, middle = words[key(clause[start:end])], (steps - 1) / 2
        outward = (step > middle) - (step < middle)
        near = clause[:start]
        moved = bool(self._more.search(near) or self._most.search(near))
        if self.negated(clause, start, end):
            at: int | None = step - outward if moved else (0 if step > middle else None)
        elif self._most.search(near):
            at = steps - 1 if outward > 0 else 0 if outward < 0 else step
        else:
            at = min(max(step + outward * moved, 0), steps - 1)
        return at

    def leaving_open(self, nouns: Iterable[str]) -> re.Pattern[str]:
        """How a slot called by these names is left open: "any price", "forget the budget",
        "outdoor seating doesn't matter", "daam se farak nahi padta" (see `left_open`)."""
        named = any_of(nouns).pattern
        return re.compile(
            rf"(?P<drop>{self._drop})\s+(?:(?:{self._ahead})\s+)?(?:{named})"
            rf"|(?:{named})(?:\s+\S+){{0,{BETWEEN}}}?\s+(?:{self._dropped})",
            re.IGNORECASE,
        )

    def left_open(self, text: str, leaving: re.Pattern[str]) -> tuple[re.Match[str], bool] | None:
        """Where the text leaves a slot open, as `leaving_open` made `leaving`; and whether the
        words that do so say no to it ("no patio", "without any", "bina"), which for a yes/no
        feature is wanting it not."""
        found = leaving.search(text)
        if found is None:
            return None
        return found, bool(found.group("drop") and self._negation.match(key(found.group("drop"))))


def _nearest(placed: dict[int, str], step: int, middle: float) -> str:
    """The value of the step nearest this one that has a value, the nearer the middle if two are."""
    return placed[min(placed, key=lambda at: (abs(at - step), abs(at - middle)))]


def _words(language: Language, kind: str) -> list[str]:
    listed: list[str] = getattr(language.schema_words, kind)
    return listed
