"""The intent router: learned at start-up from the pack's example messages (nlu.yml).

Keyword rules recognise the phrasings someone wrote them for; customers phrase things every
other way. So the intent comes from a classifier over sentence embeddings of the pack's
examples (assistant/tools/classifier.py), while rules keep the jobs they do best: amounts, dates,
filter values and names.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from assistant.language.reading import Reading
from assistant.pack.model import Catalog, Examples
from assistant.tools.classifier import Classifier, Ranked
from assistant.tools.embeddings import MiniLMEmbedder

# Inverse regularisation strength, chosen by cross-validation on the packs' examples
# (bench/intent_eval.py and tests/test_router.py): higher fits the examples more tightly.
STRENGTH = 4.0


@dataclass(frozen=True)
class Routed:
    """The router's reading of one message: intents best first, with probabilities."""

    ranked: Ranked

    @property
    def intent(self) -> str:
        return self.ranked[0][0]

    @property
    def confidence(self) -> float:
        return self.ranked[0][1]

    def probability(self, intent: str) -> float:
        return dict(self.ranked).get(intent, 0.0)


class Router:
    """Maps a message to the pack's intents with a calibrated-enough confidence."""

    def __init__(self, examples: Examples, embedder: MiniLMEmbedder, searches: Sequence[str] = (), reading: Reading | None = None):
        """`searches`: messages made of the catalog's own filter words, which are searches
        however few other words they have ("amex gold", "diesel automatic suv"); `reading`: how a
        message in another of the pack's languages reads in English, the examples' language."""
        self.embedder = embedder
        self.reading = reading
        intents = {**examples.intents}
        if "product_info" in intents:
            intents["product_info"] = [*intents["product_info"], *searches]
        texts = tuple(text for texts in intents.values() for text in texts)
        labels = tuple(name for name, texts in intents.items() for _ in texts)
        self._classifier = Classifier(texts, labels, embedder, STRENGTH, balanced=True)

    @classmethod
    def for_pack(cls, catalog: Catalog, embedder: MiniLMEmbedder, reading: Reading | None = None) -> Router:
        items = [catalog.text["item"], catalog.text["items"]]
        return cls(catalog.examples, embedder, filter_phrases(catalog.vocabulary.filters, items), reading)

    def route(self, text: str) -> Routed:
        """A message in another of the pack's languages is read in English; in Latin letters
        (Banglish, Hinglish) the model reads some of it as written too, and the surer reading
        decides ("prothom duto compare koren" is plainly a comparison as written)."""
        read = Routed(self._classifier.rank(self._read(text)))
        if self.embedder.blind(text) or self._read(text) == text:
            return read
        return max(read, Routed(self._classifier.rank(text)), key=lambda routed: routed.confidence)

    def blind(self, text: str) -> bool:
        """Whether the model can't read the message, even in English (Thai)."""
        return self.embedder.blind(self._read(text))

    def _read(self, text: str) -> str:
        english = self.reading.english(text) if self.reading else None
        return english or text


def filter_phrases(sections: dict[str, dict[str, list[str]]], item_words: list[str], count: int = 60) -> list[str]:
    """Short searches composed of the pack's filter phrases: one to three values of different
    filters, sometimes with the item word. Seeded, so every start-up trains the same model."""
    choices = [[phrases[0] for phrases in values.values() if phrases] for values in sections.values()]
    choices = [options for options in choices if options]
    rng = random.Random(0)
    made: list[str] = []
    for _ in range(count * 3 if choices else 0):
        picked = rng.sample(choices, k=min(len(choices), rng.randint(1, 3)))
        words = [rng.choice(options) for options in picked] + ([rng.choice(item_words)] if rng.random() < 0.5 else [])
        phrase = " ".join(words)
        if phrase not in made:
            made.append(phrase)
    return made[:count]
