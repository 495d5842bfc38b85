"""A kept answer bound to the words it answered, for requests a client may send again under its
own key (X-Request-ID, Idempotency-Key). A retry, the same key with the same words, gets the
answer again instead of a second turn; the same key with other words is another message, refused
(422) rather than answered with the first one's answer and dropped unseen."""

from __future__ import annotations

import hashlib
import json


class KeyReused(Exception):
    """The key was kept for other words."""


def kept(asked: str, answer: str) -> str:
    """What the store keeps: the answer and a digest of the words (not the words: they may be personal)."""
    return json.dumps([_digest(asked), answer])


def recalled(stored: str, asked: str) -> str:
    """The kept answer, if it was kept for these words."""
    then, answer = json.loads(stored)
    if then != _digest(asked):
        raise KeyReused
    return str(answer)


def _digest(asked: str) -> str:
    return hashlib.sha256(asked.encode()).hexdigest()
