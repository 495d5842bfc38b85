"""Words that point at the items a conversation has on screen, read with every loaded language:
"the second one", "the first two", "both", "it", "that card", "doosra wala", "প্রথমটা".

Only the pointing is read here; which items it lands on is the conversation's business
(assistant/understanding/references.py), as only the session knows what was shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from assistant.language.lexicon import END, LETTER, Language, Table
from assistant.language.numbers import Numbers

_WORD = rf"(?:\d+|{LETTER}+)"


@dataclass(frozen=True)
class Pointing:
    """What a message points at among the items shown."""

    positions: list[int] = field(default_factory=list)  # 1 is the first shown, -1 the last, in mention order
    first: int | None = None  # "the first two", "top 3": that many from the top
    every: bool = False  # "both", "all of them", "these"
    single: bool = False  # "it", "that one", "that card": the one item at hand
    among: bool = False  # "of these", "of the two": a ranking among the items shown, not the catalog
    beyond: bool = False  # "anything", "any other": items besides those shown
    superlative: bool = False  # "the most RAM", "cheapest": the best of all that match
    which: bool = False  # "which one", "which of them": a question over the items shown

    def __bool__(self) -> bool:
        return bool(self.positions or self.first or self.every or self.single)


class Pointers:
    """A position counts where it can't be an everyday word: after a determiner ("the second"),
    before a word for an item ("second one", "doosra wala", "2nd card"), or as the whole message
    ("second"); in a language written without spaces its words carry their own classifier."""

    def __init__(self, languages: Iterable[Language], numbers: Numbers):
        languages = tuple(languages)
        self._numbers = numbers
        self._positions = Table.of(languages, "pointers.positions", lambda lang: lang.pointers.positions)
        # words that need context to point; a position with its classifier written on (প্রথমটার,
        # "prothomtar": the first one's) can't be an everyday word, and points alone
        self._spaced = {
            word
            for lang in languages
            if lang.spaced
            for said in lang.pointers.positions.values()
            for word in said
            if not any(word.endswith(one) and word[: -len(one)] in said for one in lang.pointers.ones)
        }
        self._determiners = Table.words(languages, "pointers.determiners", lambda lang: lang.pointers.determiners).pattern
        self._ones = Table.words(languages, "pointers.ones", lambda lang: lang.pointers.ones).pattern
        self._every = re.compile(Table.words(languages, "pointers.every", lambda lang: lang.pointers.every).pattern, re.I)
        self._single = Table.words(languages, "pointers.single", lambda lang: lang.pointers.single).pattern
        self._these = Table.words(languages, "pointers.these", lambda lang: lang.pointers.these).pattern
        self._among = re.compile(Table.words(languages, "pointers.among", lambda lang: lang.pointers.among).pattern, re.I)
        self._superlatives = re.compile(
            Table.words(languages, "pointers.superlatives", lambda lang: lang.pointers.superlatives).pattern, re.I
        )
        self._beyond = re.compile(Table.words(languages, "pointers.beyond", lambda lang: lang.pointers.beyond).pattern, re.I)
        self._which = re.compile(Table.words(languages, "pointers.which", lambda lang: lang.pointers.which).pattern, re.I)
        self._compiled: dict[tuple[str, ...], tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]] = {}

    def read(self, text: str, nouns: Iterable[str] = ()) -> Pointing:
        """`nouns`: the business's words for its items ("card", "cars"), which a position or a
        determiner may stand before ("the second card", "that card")."""
        first_n, position, single = self._patterns(tuple(sorted(nouns)))
        counted = next((found for found in first_n.finditer(text) if self._positions.get(found[1]) == 1), None)
        count = self._numbers.value(counted[2]) if counted else None
        first = int(count) if count and count == int(count) and count > 1 else None
        positions: list[int] = []
        if first is None:
            whole = position.fullmatch(text.strip())
            for found in position.finditer(text):
                word = found["position"]
                key = " ".join(word.casefold().split())
                context = found["before"] or found["after"] or whole or key not in self._spaced
                value = self._positions.get(word)
                if context and value is not None and value not in positions:
                    positions.append(value)
        return Pointing(
            positions=positions,
            first=first,
            every=bool(self._every.search(text)),
            single=bool(single.search(text)),
            among=bool(self._among.search(text)),
            beyond=bool(self._beyond.search(text)),
            superlative=bool(self._superlatives.search(text)),
            which=bool(self._which.search(text)),
        )

    def _patterns(self, nouns: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
        if nouns not in self._compiled:
            noun = "|".join(re.escape(n) for n in sorted(nouns, key=len, reverse=True))
            ones = rf"(?:{self._ones}|(?<!{LETTER})(?:{noun}){END})" if noun else self._ones
            positions = self._positions.pattern
            self._compiled[nouns] = (
                re.compile(rf"({positions})\s+({_WORD})", re.I),
                re.compile(rf"(?P<before>{self._determiners}\s+)?(?P<position>{positions})(?P<after>\s*{ones})?", re.I),
                re.compile(rf"{self._single}|{self._these}\s+(?:{noun}){END}" if noun else self._single, re.I),
            )
        return self._compiled[nouns]
