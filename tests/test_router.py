"""The intent router, learned from each pack's examples (nlu.yml), judged on examples it did not see."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from assistant.pack.loading import load_catalog
from assistant.tools.classifier import Classifier
from assistant.tools.embeddings import default_embedder
from assistant.understanding.router import Router, filter_phrases

DATA = Path(__file__).resolve().parent.parent / "data"
# Held-out accuracy each pack must keep (5-fold cross-validation over its own examples); measured
# 0.76 bank, 0.73 cars, 0.68 store, 0.72 restaurants with all-MiniLM-L6-v2 when this was written.
FLOORS = {"bank": 0.70, "cars": 0.67, "store": 0.62, "restaurants": 0.66, "homologation": 0.70}


@pytest.mark.parametrize("domain", sorted(FLOORS))
def test_the_router_recognises_examples_it_was_not_trained_on(domain):
    catalog = load_catalog(DATA / domain)
    texts = np.array([t for ts in catalog.examples.intents.values() for t in ts])
    labels = np.array([name for name, ts in catalog.examples.intents.items() for _ in ts])
    right = 0
    for train, test in StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(texts, labels):
        held_out = {name: [str(t) for t in texts[train][labels[train] == name]] for name in set(labels)}
        router = Router(catalog.examples.model_copy(update={"intents": held_out}), default_embedder())
        right += sum(router.route(str(text)).intent == label for text, label in zip(texts[test], labels[test], strict=True))
    assert right / len(texts) >= FLOORS[domain]


def test_confidence_is_a_probability_over_the_packs_intents():
    catalog = load_catalog(DATA / "bank")
    routed = Router.for_pack(catalog, default_embedder()).route("what's the weather like on the moon today")
    probabilities = [p for _, p in routed.ranked]
    assert {name for name, _ in routed.ranked} == set(catalog.examples.intents)
    assert abs(sum(probabilities) - 1) < 1e-6 and probabilities == sorted(probabilities, reverse=True)
    assert routed.intent != "product_info"


def test_searches_made_of_the_catalogs_own_words_are_generated_from_its_vocabulary():
    catalog = load_catalog(DATA / "cars")
    made = filter_phrases(catalog.vocabulary.filters, ["car", "cars"])
    words = {
        w
        for section in catalog.vocabulary.filters.values()
        for phrases in section.values()
        for phrase in phrases
        for w in phrase.lower().split()
    } | {"car", "cars"}
    assert made and all(set(text.lower().split()) <= words for text in made)
    assert made == filter_phrases(catalog.vocabulary.filters, ["car", "cars"])  # the same model every start-up


@pytest.mark.parametrize("labels", [["hi", "lost", "hi", "lost"], ["hi", "lost", "fee", "fee"]])
def test_the_classifiers_probabilities_are_logistic_regressions_own(labels):
    """Worked out in numpy for speed: with two labels (one log-odds) and with more (a softmax)."""
    texts = ["hello there", "my card is lost", "what is the annual fee?", "is there a fee for cash"]
    classifier = Classifier(texts, labels, default_embedder(), strength=16.0, balanced=True)
    for message in ("hey", "someone took my card", "fees?"):
        vector = default_embedder().embed_one(message)
        expected = dict(zip(classifier.labels, classifier._model.predict_proba(vector[None, :])[0], strict=True))
        ranked = dict(classifier.rank(message))
        assert ranked.keys() == expected.keys()
        assert all(abs(ranked[label] - expected[label]) < 1e-6 for label in expected)
