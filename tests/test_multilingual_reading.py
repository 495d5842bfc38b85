"""Messages in scripts MiniLM can't read (Bengali, Devanagari, Thai) are read by a multilingual
model, which puts them near the same question in English."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Conversation, app_for

from assistant.tools.embeddings import NativeScriptReader, default_embedder


@pytest.fixture
def chat_in(tmp_path):
    return lambda domain: Conversation(app_for(tmp_path, domain).test_client())


def test_the_native_reader_puts_a_question_near_its_english_meaning():
    reader = default_embedder().native
    assert reader is not None
    english = reader.embed_corpus(("I lost my card", "How do I book a table for four?"))
    for said in ("আমার কার্ডটা কোথাও পড়ে গেছে", "मेरा कार्ड गुम हो गया", "บัตรของฉันหาย"):
        near, far = english @ reader.embed_one(said)
        assert near > far + 0.1, said


def test_a_phrasing_missing_from_the_stored_vectors_is_read_as_the_model_reads_it(tmp_path):
    stored = default_embedder().native
    assert stored is not None
    fresh = NativeScriptReader(store=tmp_path / "none.npz")
    text = "কার্ডের বার্ষিক ফি কত?"
    raw = fresh.raw([text])[0]
    assert np.allclose(fresh.embed_corpus((text,))[0], raw / np.linalg.norm(raw), atol=1e-5), "no file, no centring"
    assert float(stored.embed_corpus((text,))[0] @ stored.embed_one(text)) > 0.99


# The team's own phrasings, in none of the packs' data and sharing few words with their phrasings.
UNDERSTOOD = [
    ("cars", "गाड़ी का बीमा खत्म हो चुका है, अब क्या करना चाहिए?", "insurance-expired"),
    ("cars", "सर्विसिंग में कितना पैसा लगता है?", "service-cost"),
]


@pytest.mark.parametrize("domain, question, article", UNDERSTOOD)
def test_a_native_script_question_in_words_of_its_own_gets_its_article(chat_in, domain, question, article):
    data = chat_in(domain).say(question)
    assert data["help"]["article"] == article and not data["products"]
