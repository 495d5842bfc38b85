"""What the assistant remembers about one conversation (the seed's SessionState, typed)."""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from assistant.dialogue.goals import GoalBoard
from assistant.pack.model import FactValue, FilterValue

Pending = str  # "clarify_product", or the name of the customer fact the pack's question asked for
Wish = Literal["comparison", "eligibility", "cheapest"]


class Turn(BaseModel):
    role: Literal["user", "assistant"]
    text: str
    at: float = Field(default_factory=time.time)
    intent: str | None = None
    agents: list[str] = []
    products: list[str] = []


class SessionState(BaseModel):
    session_id: str
    version: int = 0
    filters: dict[str, FilterValue] = {}
    product_ids: list[str] = []
    comparison_done: bool = False
    eligibility_done: bool = False
    profile: dict[str, FactValue] = {}  # the facts the customer told us (pack.yaml's profile); eligibility reads these
    pending: Pending | None = None
    wishes: list[Wish] = []  # what the message we answered with a clarifying question asked for
    goals: GoalBoard = Field(default_factory=GoalBoard)
    history: list[Turn] = []

    @field_validator("profile", mode="before")
    @classmethod
    def _told_only(cls, profile: dict[str, Any]) -> dict[str, Any]:
        """A fact not told is absent (sessions saved before facts were pack data hold None for it)."""
        return {name: value for name, value in profile.items() if value is not None}

    def has_products(self) -> bool:
        return bool(self.product_ids)

    def reset_products(self) -> None:
        """Forget what was retrieved and analysed: the filters it was retrieved for changed."""
        self.product_ids = []
        self.comparison_done = False
        self.eligibility_done = False

    def last_discussed(self) -> list[str]:
        """Ids of the products the assistant's previous reply was about."""
        return next((t.products for t in reversed(self.history) if t.role == "assistant"), [])

    def recent_user_texts(self, count: int = 2) -> list[str]:
        return [t.text for t in self.history if t.role == "user"][-count:]

    def remember(self, turn: Turn, limit: int) -> None:
        self.history = [*self.history, turn][-limit:]

    def summary(self) -> dict[str, Any]:
        """The part of the state clients see in every response."""
        return {
            "products": list(self.product_ids),
            "comparison_done": self.comparison_done,
            "eligibility_done": self.eligibility_done,
            "filters": dict(self.filters),
            "version": self.version,
            **self.goals.public(),
        }
