"""A text classifier learned at start-up from labelled examples in a pack's data.

Multinomial logistic regression over sentence embeddings: small, trained in well under a
second, and its probabilities are a usable confidence. The intent router (labels: intents) and
the help centre (labels: articles, plus "none of them") both learn this way.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from sklearn.linear_model import LogisticRegression

from assistant.tools.embeddings import Reader

Ranked = tuple[tuple[str, float], ...]  # labels best first, with their probabilities


class Classifier:
    """`strength` is logistic regression's inverse regularisation (higher fits the examples more
    tightly); `balanced` weighs a label with few examples as much as one with many."""

    def __init__(self, texts: Sequence[str], labels: Sequence[str], embedder: Reader, strength: float, balanced: bool):
        self.embedder = embedder
        readable = [(text, label) for text, label in zip(texts, labels, strict=True) if not embedder.blind(text)]
        # Examples in a script the model can't read teach it nothing but noise: left out.
        self._model = _trained(tuple(t for t, _ in readable), tuple(label for _, label in readable), embedder, strength, balanced)

    @property
    def labels(self) -> list[str]:
        return [str(label) for label in self._model.classes_]

    def rank(self, text: str) -> Ranked:
        probabilities = self._probabilities(self.embedder.embed_one(text))
        order = np.argsort(-probabilities)
        return tuple((str(self._model.classes_[i]), float(probabilities[i])) for i in order)

    def _probabilities(self, vector: np.ndarray) -> np.ndarray:
        """The model's probabilities for one vector, as `predict_proba` gives them, without the
        input checks that cost a turn more than the arithmetic (a millisecond per call)."""
        scores = self._model.coef_ @ vector + self._model.intercept_
        if len(scores) == 1:  # two labels: one score, the second label's log-odds
            second = 1.0 / (1.0 + np.exp(-scores[0]))
            return np.array([1.0 - second, second])
        exp = np.exp(scores - scores.max())
        probabilities: np.ndarray = exp / exp.sum()  # sklearn's coef_ and numpy's reductions are typed Any
        return probabilities


@lru_cache(maxsize=16)
def _trained(
    texts: tuple[str, ...], labels: tuple[str, ...], embedder: Reader, strength: float, balanced: bool
) -> LogisticRegression:
    """Apps built from the same examples in one process (tests, workers) share one model."""
    model = LogisticRegression(C=strength, max_iter=3000, class_weight="balanced" if balanced else None)
    return model.fit(embedder.embed_corpus(texts), list(labels))


class LeastSquares:
    """A linear classifier fitted in closed form (ridge regression onto one-hot labels), its
    scores made probabilities by a softmax at `temperature`. Logistic regression takes seconds
    over a help centre's thousands of phrasings; this takes a few milliseconds, for the
    multilingual reader of the scripts MiniLM can't read (docs/understanding.md)."""

    def __init__(self, texts: Sequence[str], labels: Sequence[str], embedder: Reader, ridge: float, temperature: float):
        self.embedder = embedder
        self.labels = sorted(set(labels))
        vectors = embedder.embed_corpus(tuple(texts))
        targets = np.array([[label == name for name in self.labels] for label in labels], dtype=np.float32)
        gram = vectors.T @ vectors + ridge * np.eye(vectors.shape[1], dtype=np.float32)
        self._weights = np.linalg.solve(gram, vectors.T @ targets)
        self._temperature = temperature

    def rank(self, text: str) -> Ranked:
        scores = self.embedder.embed_one(text) @ self._weights
        exp = np.exp((scores - scores.max()) / self._temperature)
        probabilities = exp / exp.sum()
        order = np.argsort(-probabilities)
        return tuple((self.labels[i], float(probabilities[i])) for i in order)
