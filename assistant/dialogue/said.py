"""A message as a flow reads it: its words, what understanding found in it, the slots the last
question asked for, and the files it brought (the flow engine and its forms both read it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.pack.model import Product


@dataclass
class Said:
    """A message, with what understanding found in it."""

    text: str
    filters: dict[str, Any] = field(default_factory=dict)
    named: Sequence[Product] = ()  # catalog items the message names
    cached: Sequence[Product] = ()  # the items the conversation is about
    opens: bool = False  # the message is the one that started the flow ("my laptop freezes")
    asked: Sequence[str] = ()  # the slots the last question asked for: a bare answer goes to them
    attachments: Sequence[Sent] = ()  # the files sent with the message


@dataclass(frozen=True)
class Sent:
    """A file sent with a message, as a flow counts it: its id and kind ("image", "pdf")."""

    id: str
    kind: str
