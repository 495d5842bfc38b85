"""What the assistant remembers about one conversation (its SessionState, typed)."""

from __future__ import annotations

import time
from collections.abc import Collection
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from assistant.dialogue.goals import GoalBoard
from assistant.pack.model import FactValue, FilterValue
from assistant.understanding.reader import Pending, Wishes

HANDED_OVER = "handover"  # a message's intent while people have the conversation


class Kept(BaseModel):
    """What a pack extension keeps in one conversation: its own state, the part of it clients see
    in every response, and the lines LLM mode's prompt states it in."""

    data: dict[str, Any] = {}
    public: dict[str, Any] = {}
    summary: list[str] = []


class NotYourSession(PermissionError):
    """The session belongs to another caller: a signed-in customer other than the caller, or a guest."""


class Turn(BaseModel):
    """One message; an answer also keeps what a reloaded page draws besides its text (sessions
    saved before these fields load with none)."""

    role: Literal["user", "assistant", "operator"]  # an operator: a person of the business who took the conversation over
    text: str
    by: str | None = None  # the operator's name
    at: float = Field(default_factory=time.time)
    intent: str | None = None
    agents: list[str] = []
    products: list[str] = []
    booking: dict[str, Any] | None = None  # the booking it confirmed, as the response showed it
    eligibility: list[dict[str, Any]] = []  # its verdicts
    choices: list[str] = []  # its quick replies
    ask_user: str | None = None
    images: list[dict[str, str]] = []  # the example images it sent ({url, label})
    files: list[dict[str, Any]] = []  # the files the customer's message brought ({id, kind, mime, size, name})


class SessionState(BaseModel):
    session_id: str
    version: int = 0
    customer_id: str | None = None  # the signed-in customer it belongs to, from their token; None: a guest's
    filters: dict[str, FilterValue] = {}
    product_ids: list[str] = []
    shown: list[str] = []  # the items the last reply that showed any showed, in order: what "the second one" means
    seen: list[str] = []  # every item shown for the search in effect, page by page: "more" shows the next ones
    focus: str | None = None  # the item named or answered last (a ranking's winner): what "it" and "that one" mean
    comparison_done: bool = False
    eligibility_done: bool = False
    across_catalog: bool = False  # the last eligibility answer was about every item: what the customer can get
    profile: dict[str, FactValue] = {}  # the facts the customer told us (pack.yaml's profile); eligibility reads these
    pending: Pending | None = None
    wishes: Wishes = Wishes()  # what the message we answered with a clarifying question asked for
    goals: GoalBoard = Field(default_factory=GoalBoard)
    extensions: dict[str, Kept] = {}  # by extension name: what each of the pack's extensions keeps
    misunderstood: int = 0  # the customer's last messages in a row that the assistant did not understand
    language: str | None = None  # the language the customer asked replies in ("Bangla te bolun"); None: none asked
    replied_in: str | None = None  # the language of the last reply: a message that tells none keeps it
    history: list[Turn] = []

    @field_validator("wishes", mode="before")
    @classmethod
    def _wishes(cls, wishes: Any) -> Any:
        """Sessions saved before wishes held topics kept a list of flags."""
        return {flag: True for flag in wishes if flag in ("comparison", "eligibility")} if isinstance(wishes, list) else wishes

    @field_validator("profile", mode="before")
    @classmethod
    def _told_only(cls, profile: dict[str, Any]) -> dict[str, Any]:
        """A fact not told is absent (sessions saved before facts were pack data hold None for it)."""
        return {name: value for name, value in profile.items() if value is not None}

    def claim(self, customer_id: str | None) -> None:
        """A session is its first caller's: a signed-in customer's theirs alone, a guest's a guest's.
        Were a guest's to become a signed-in caller's, whoever learned its id could take it over
        and lock the guest out."""
        if self.version and customer_id != self.customer_id:
            raise NotYourSession(self.session_id)
        self.customer_id = customer_id

    def has_products(self) -> bool:
        return bool(self.product_ids)

    def reset_products(self) -> None:
        """Forget what was retrieved and analysed: the filters it was retrieved for changed."""
        self.product_ids = []
        self.seen = []
        self.comparison_done = False
        self.eligibility_done = False

    def last_discussed(self) -> list[str]:
        """Ids of the products the assistant's previous reply was about."""
        return next((t.products for t in reversed(self.history) if t.role == "assistant"), [])

    def last_asked(self) -> str | None:
        """The intent of the customer's previous message."""
        return next((t.intent for t in reversed(self.history) if t.role == "user"), None)

    def handed_back(self) -> bool:
        """Whether the business's people had the conversation until now: the customer's last
        message was theirs to answer."""
        return self.last_asked() == HANDED_OVER

    def recent_user_texts(self, count: int = 2) -> list[str]:
        return [t.text for t in self.history if t.role == "user"][-count:]

    def remember(self, turn: Turn, limit: int) -> None:
        self.history = [*self.history, turn][-limit:]

    def summary(self, private: Collection[str] = ()) -> dict[str, Any]:
        """The part of the state clients see in every response; the `private` slots of its goals
        (who the customer is) masked."""
        return {
            "products": list(self.product_ids),
            "comparison_done": self.comparison_done,
            "eligibility_done": self.eligibility_done,
            "filters": dict(self.filters),
            "version": self.version,
            **self.goals.public(private),
            **{key: value for kept in self.extensions.values() for key, value in kept.public.items()},
        }
