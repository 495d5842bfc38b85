"""Help articles are found by meaning and by words (assistant/tools/help_search.py), and nothing is invented when none fits."""

from __future__ import annotations

import pytest

PARAPHRASES = [
    ("someone nicked my credit card yesterday", "lost-or-stolen-card"),
    ("i can't remember my pin number", "forgot-pin"),
    ("the cash machine swallowed my card", "card-retained-atm"),
    ("when does my new card show up", "card-delivery-time"),
    ("how do I turn on my card after it arrives", "activate-card"),
    ("there is a charge on my statement I never made", "dispute-transaction"),
    ("can I get my yearly fee removed", "annual-fee-waiver"),
    ("is there a penalty if my card payment is late", "late-payment-fee"),
    ("can my wife get an add-on card", "supplementary-card"),
    ("how do I cash in my points", "rewards-redemption"),
    ("how do I get into the airport lounge", "lounge-access"),
    ("what papers are needed to apply", "documents-required"),
]


@pytest.mark.parametrize("question, faq_id", PARAPHRASES)
def test_paraphrase_finds_the_right_answer(pipeline, question, faq_id):
    hits = pipeline.index.search_faq(question, limit=3)
    assert hits[0][0].id == faq_id, [(entry.id, round(score, 2)) for entry, score in hits]
    assert hits[0][1] >= pipeline.settings.faq_min_similarity


@pytest.mark.parametrize("question", ["what is the capital of france", "recommend a good pizza topping"])
def test_unrelated_questions_fall_below_the_threshold(pipeline, question):
    (_, best), *_ = pipeline.index.search_faq(question, limit=1)
    assert best < pipeline.settings.faq_min_similarity
