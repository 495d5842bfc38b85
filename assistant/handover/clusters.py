"""What customers asked that nobody could answer, grouped by meaning: the help articles a
business should write next, the most asked first.

Questions whose meaning the pack's embedding model read join the group whose mean meaning is
nearest, if near enough; those in a script it can't read group only with the same words.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from assistant.handover.store import Question
from assistant.language.lexicon import key

SAME_MEANING = 0.55  # the cosine similarity to a group's mean above which a question joins it (bench/unanswered_groups.py)


@dataclass
class Group:
    questions: list[Question] = field(default_factory=list)
    total: np.ndarray | None = None  # the sum of its questions' vectors; None: grouped by words

    def add(self, question: Question) -> None:
        self.questions.append(question)
        if question.vector is not None:
            self.total = _vector(question) if self.total is None else self.total + _vector(question)

    def similarity(self, vector: np.ndarray) -> float:
        """The cosine similarity of `vector` (unit length) to the group's mean meaning."""
        assert self.total is not None, "only groups of questions the model read have a meaning"
        return float(vector @ self.total) / float(np.linalg.norm(self.total))

    @property
    def example(self) -> str:
        """The question nearest the group's mean meaning (the first, where the model can't read them)."""
        if self.total is None:
            return self.questions[0].text
        return max(self.questions, key=lambda q: self.similarity(_vector(q))).text

    def public(self) -> dict[str, object]:
        return {
            "count": len(self.questions),
            "example": self.example,
            "reasons": dict(Counter(q.reason for q in self.questions)),
            "last_at": max(q.at for q in self.questions),
        }


def grouped(questions: list[Question]) -> list[Group]:
    """The questions in groups of one meaning, the largest (then the most recent) first."""
    meanings: list[Group] = []
    for question in (q for q in questions if q.vector is not None):
        similar = [group.similarity(_vector(question)) for group in meanings]
        if not similar or max(similar) < SAME_MEANING:
            meanings.append(Group())
            similar.append(1.0)
        meanings[similar.index(max(similar))].add(question)
    words: dict[str, Group] = {}
    for question in (q for q in questions if q.vector is None):
        words.setdefault(key(question.text), Group()).add(question)
    return sorted([*meanings, *words.values()], key=lambda g: (-len(g.questions), -max(q.at for q in g.questions)))


def _vector(question: Question) -> np.ndarray:
    assert question.vector is not None, "only questions the model read are compared by meaning"
    return np.frombuffer(question.vector, dtype=np.float32)
