"""Help-article search: words and meaning, fused by rank.

Dense similarity alone finds paraphrases but confuses neighbours that share a theme (a PIN
that is blocked, forgotten or not yet set); word overlap alone misses every synonym. Each
scores the articles, and the sum (cosine plus a small weight times BM25) keeps what both agree
on; on the bank's dev questions it finds the right article more often than either alone, and
more often than reciprocal-rank fusion (bench/intent_eval.py). Dense vectors are
kept per phrasing (the question, each paraphrase and keyword phrase): a short message matches
one phrasing far better than all of them glued together. Scores are exact over every
phrasing: a help centre is small.

A second reader, a classifier learned from the same phrasings with the pack's out-of-scope
examples as "none of them", gives each article a probability. The two readers' beliefs are
blended into one: the classifier's probability and the search's scores made a distribution
(softmax), scaled by the classifier's doubt that any article fits. Articles are ranked by that
belief, and the first answers the question when the belief in it is high enough. Measured on the
bank's dev questions, this finds the right article more often, for fewer wrong ones, than the
classifier alone, than requiring the two to agree, or than any threshold on similarity
(bench/intent_eval.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from assistant.language.lexicon import LETTER
from assistant.language.reading import Reading
from assistant.pack.model import Catalog, FaqEntry
from assistant.tools.classifier import Classifier, LeastSquares
from assistant.tools.embeddings import MiniLMEmbedder

LEXICAL_WEIGHT = 0.02  # BM25 points worth one unit of cosine similarity, tuned on the bank's dev set
CLASSIFIER_SHARE = 0.4  # the classifier's weight in the blended belief, the search's being the rest
SEARCH_TEMPERATURE = 0.05  # how sharply the search's scores become a distribution: cosine units
WORDS_TEMPERATURE = 3.0  # the same for the word search alone, in BM25 points (held out on the packs' own phrasings)
READER_STRENGTH = 16.0  # its inverse regularisation: many labels, few phrasings each, so fitted tightly
# For a message MiniLM can't read: the multilingual reader's weight beside the word search, its
# classifier's ridge and softmax temperature. Tuned on half the bank's Bengali dev questions
# (bench/intent_eval.py --lang bn --half tuned).
NATIVE_SHARE = 0.7
NATIVE_RIDGE = 1.0
NATIVE_TEMPERATURE = 0.06
# For a message read in English (assistant/language/reading.py): the English reading's weight
# beside the multilingual model's reading of the message itself; how much less the blend is
# believed where that model believes its first article less than its own first (at most); and
# the belief from which the first article answers. Tuned on half the bank's Bengali and Banglish
# dev questions (bench/intent_eval.py --half tuned).
READING_SHARE = 0.7
DOUBTING = 0.3
READ_ANSWERS_FROM = 0.4
NONE = ""  # the classifier's label for a question no article answers
_THAI = re.compile(r"[\u0e00-\u0e7f]+")
_WORD = re.compile(rf"{LETTER}+|\d+")  # vowel signs stay in their word: কার্ড, फास्टैग, ร้อน


@dataclass(frozen=True)
class Hit:
    """An article and how close its nearest phrasing is in meaning (cosine similarity)."""

    entry: FaqEntry
    similarity: float


def terms(text: str, stop_words: frozenset[str] = frozenset()) -> list[str]:
    """Words for lexical matching: lower-cased, lightly stemmed, without the languages' stop
    words; Thai, written without spaces, as overlapping pairs of letters."""
    found: list[str] = []
    for word in _WORD.findall(text.lower()):
        if _THAI.fullmatch(word):
            found += [word[i : i + 2] for i in range(max(1, len(word) - 1))]
        elif word not in stop_words and len(word) > 1:
            found.append(_stem(word))
    return found


def _stem(word: str) -> str:
    """Plural and tense endings off, so "charge", "charged", "charges" and "charging" meet."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


class BM25:
    """Okapi BM25 over a handful of documents: enough for a help centre, no index server."""

    def __init__(self, documents: list[list[str]], k1: float = 1.2, b: float = 0.75):
        """Each term's score in every document is worked out once, here: a query only adds rows."""
        counts = [Counter(d) for d in documents]
        lengths = np.array([len(d) for d in documents], dtype=float)
        norm = k1 * (1 - b + b * lengths / max(float(lengths.mean()) if documents else 0.0, 1e-9))
        frequency = Counter(term for c in counts for term in c)
        n = len(documents)
        self._size = n
        self._rows: dict[str, np.ndarray] = {}
        for term, f in frequency.items():
            tf = np.array([c.get(term, 0) for c in counts], dtype=float)
            self._rows[term] = math.log(1 + (n - f + 0.5) / (f + 0.5)) * tf * (k1 + 1) / (tf + norm)

    def scores(self, query: list[str]) -> np.ndarray:
        result = np.zeros(self._size)
        for term in set(query):
            if term in self._rows:
                result += self._rows[term]
        return result


class HelpCentre:
    """The pack's help articles, searchable by what a customer writes."""

    def __init__(
        self,
        entries: list[FaqEntry],
        embedder: MiniLMEmbedder,
        unrelated: Sequence[str] = (),
        answers_from: float = 0.55,
        stop_words: frozenset[str] = frozenset(),
        reading: Reading | None = None,
        translated: Sequence[FaqEntry] = (),
    ):
        """`unrelated`: questions the business does not answer (the pack's out-of-scope examples);
        `answers_from`: the belief in an article from which it answers the question (the pack's
        `answers_from`, tuned on real questions: docs/understanding.md); `stop_words`: the pack's
        languages' words that the word search leaves out; `translated`: the articles as the
        pack's other languages have them, whose questions are quick replies too."""
        self.entries = entries
        self.answers_from = answers_from
        self.stop_words = stop_words
        self.reading = reading
        self.embedder = embedder
        # The model learns only phrasings it can read: one in a script it can't (Thai, Bangla)
        # is noise to it, and the word search below has it.
        readable = [[text for text in phrasings(e) if not embedder.blind(text)] for e in entries]
        rows = [(n, text) for n, said in enumerate(readable) for text in said]
        # Each article's phrasings are consecutive rows: where each article's rows start.
        self._starts = np.cumsum([0, *(len(said) for said in readable)])[:-1]
        texts = (*(text for _, text in rows), *(text for text in unrelated if not embedder.blind(text)))
        self._vectors = embedder.embed_corpus(texts)[: len(rows)]  # the classifier's own, embedded once
        labels = [entries[n].id for n, _ in rows] + [NONE] * (len(texts) - len(rows))
        self._reader = Classifier(texts, labels, embedder, READER_STRENGTH, balanced=False) if len(set(labels)) > 1 else None
        # What MiniLM can't read (Bangla, Devanagari, Thai) is read by a multilingual model that
        # learns from every phrasing, in any script: a Bengali question meets the English ones.
        native = embedder.native
        everything = (*(text for e in entries for text in phrasings(e)), *unrelated)
        answers = [e.id for e in entries for _ in phrasings(e)] + [NONE] * len(unrelated)
        self._native = None
        if native is not None and len(set(answers)) > 1:
            self._native = LeastSquares(everything, answers, native, NATIVE_RIDGE, NATIVE_TEMPERATURE)
        by_id = {e.id: e for e in entries}
        self._questions = {_said(e.question): by_id[e.id] for e in [*entries, *translated] if e.id in by_id}
        self._lexical = BM25([terms(" ".join([*phrasings(e), e.answer, *e.steps, e.category]), stop_words) for e in entries])
        # A turn asks about one message several times (the router's second opinion, the search,
        # whether its first article answers): the belief is worked out once.
        self._belief = lru_cache(maxsize=256)(self._similarity_and_belief)

    @classmethod
    def for_catalog(cls, catalog: Catalog, embedder: MiniLMEmbedder, entries: list[FaqEntry] | None = None) -> HelpCentre:
        """The pack's help centre (or one of `entries`, some of its articles): its out-of-scope
        examples as "none of them", its threshold and languages."""
        entries = catalog.faq if entries is None else entries
        return cls(
            entries,
            embedder,
            catalog.examples.intents.get("out_of_scope", []),
            catalog.pack.answers_from,
            catalog.languages.stop_words,
            reading_for(catalog, entries),
            [entry for version in catalog.versions.values() for entry in version.faq],
        )

    def __len__(self) -> int:
        return len(self.entries)

    def search(self, query: str, limit: int = 3, device: str | None = None) -> list[Hit]:
        """The articles most believed to answer the question, best first (the one whose own
        question it repeats before all); with a device, only the articles for it (or for any device)."""
        if not self.entries:
            return []
        similarity, belief = self._belief(query)
        repeated = self.repeated(query)
        allowed = [
            n
            for n in sorted(np.argsort(-belief, kind="stable"), key=lambda n: repeated is None or self.entries[n] is not repeated)
            if device is None or not self.entries[n].applies_to or device in self.entries[n].applies_to
        ]
        return [Hit(self.entries[n], float(similarity[n])) for n in allowed[:limit]]

    def answer(self, query: str) -> FaqEntry | None:
        """The article that answers the question: the one whose own question it repeats, else
        the one most believed to, if believed enough."""
        if not self.entries:
            return None
        repeated = self.repeated(query)
        if repeated is not None:
            return repeated
        _, belief = self._belief(query)
        n = int(np.argmax(belief))
        believed_from = READ_ANSWERS_FROM if self._english(query) is not None else self.answers_from
        return self.entries[n] if belief[n] >= believed_from else None

    def repeated(self, query: str) -> FaqEntry | None:
        """The article whose own question the message is, word for word: a quick reply offered
        with a hand-over and sent back, answered by its article whatever its words would say."""
        return self._questions.get(_said(query))

    def answers(self, query: str, entry: FaqEntry) -> bool:
        """Whether this article is the one that answers the question."""
        answer = self.answer(query)
        return answer is not None and answer.id == entry.id

    def _similarity_and_belief(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """Each article's nearest phrasing's cosine similarity, and the blended belief that it
        answers the question (summing to at most one over the articles)."""
        english = self._english(query)
        if english is not None:  # "notun card kivabe chalu korbo": read in English, and as it is written
            similarity, read = self._read(english)
            native = self._native_belief(query)
            belief = READING_SHARE * read + (1 - READING_SHARE) * native
            # believed less where the multilingual model would rather answer with another article
            belief *= 1 - DOUBTING + DOUBTING * native[np.argmax(belief)] / max(float(native.max()), 1e-12)
            belief.setflags(write=False)
            return similarity, belief
        return self._read(query)

    def _english(self, query: str) -> str | None:
        """The message read in English, where it is in another language the pack can read so."""
        return self.reading.english(query) if self.reading and self._native else None

    def _read(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """The similarity and belief as the message itself reads."""
        similarity = np.maximum.reduceat(self._vectors @ self.embedder.embed_one(query), self._starts)
        similarity.setflags(write=False)
        lexical = self._lexical.scores(terms(query, self.stop_words))
        if self.embedder.blind(query):  # a script MiniLM can't read: the words, and the model that reads it
            belief = _words_belief(lexical)
            if self._native is not None:  # the larger: what the words alone answered stays answered
                belief = np.maximum(belief, NATIVE_SHARE * self._native_belief(query) + (1 - NATIVE_SHARE) * belief)
            belief.setflags(write=False)
            return similarity, belief
        fused = similarity + LEXICAL_WEIGHT * lexical
        searched = np.exp((fused - fused.max()) / SEARCH_TEMPERATURE)
        searched /= searched.sum()
        if self._reader is None:
            searched.setflags(write=False)
            return similarity, searched
        probability = dict(self._reader.rank(query))
        some = 1.0 - probability.get(NONE, 0.0)
        read = np.array([probability.get(e.id, 0.0) for e in self.entries])
        belief = CLASSIFIER_SHARE * read + (1 - CLASSIFIER_SHARE) * some * searched
        belief.setflags(write=False)  # shared by every caller of the cache
        return similarity, belief

    def _native_belief(self, query: str) -> np.ndarray:
        """Each article's probability as the multilingual model reads the message."""
        assert self._native is not None
        probability = dict(self._native.rank(query))
        return np.array([probability.get(e.id, 0.0) for e in self.entries])


def _said(text: str) -> tuple[str, ...]:
    """A text's words, whatever its case and punctuation."""
    return tuple(_WORD.findall(text.lower()))


def _words_belief(scores: np.ndarray) -> np.ndarray:
    """The word search's belief alone, for a message the model can't read: the larger of two
    readings of its scores. Their softmax says how far the best article stands above all the
    others; its lead says how far above the runner-up, as a share of its score (twice the
    runner-up's is 0.5), the others scaled down in order. Each alone misses what the other sees:
    many articles sharing a common word spread the softmax thin, and Thai, matched by pairs of
    letters, gives runners-up a close score. Held out on the packs' own phrasings
    (bench/scripts_eval.py), the larger of the two found more right articles for under one
    wrong in twenty."""
    best = float(scores.max()) if len(scores) else 0.0
    if best <= 0:
        return np.zeros(len(scores))
    runner_up = float(np.partition(scores, -2)[-2]) if len(scores) > 1 else 0.0
    spread = np.exp((scores - best) / WORDS_TEMPERATURE)
    # numpy types a ufunc's result as Any
    belief: np.ndarray = np.maximum(spread / spread.sum(), scores / best * (1 - runner_up / best))
    return belief


def reading_for(catalog: Catalog, entries: list[FaqEntry]) -> Reading:
    """Messages in the pack's languages read in English, loanwords matched to its articles' words
    and its items' names ("টাইটানিয়াম" is the Titanium of "Mastercard Titanium Credit Card")."""
    names = dict.fromkeys(item.name for item in catalog.products)
    return catalog.languages.reading([*(text for entry in entries for text in (*phrasings(entry), entry.answer)), *names])


def phrasings(entry: FaqEntry) -> list[str]:
    return [entry.question, *entry.paraphrases, *entry.keywords]
