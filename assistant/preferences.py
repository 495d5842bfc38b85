"""What a returning customer prefers, learned from their conversations and kept per customer_id.

Apart from session state: a session ends, preferences carry into the next one (the customer
can overrule them at any time, and DELETE /customers/<id>/preferences forgets them).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from assistant.formatting import FILTER_WORDS
from assistant.sqlite_db import SharedSQLite
from assistant.state import SessionState

Style = Literal["short", "detailed"]
INCOME_BANDS = ((50_000, "under ৳50,000"), (100_000, "৳50,000–1,00,000"), (200_000, "৳1,00,000–2,00,000"))
_STYLE_CUES: dict[Style, re.Pattern] = {
    "short": re.compile(r"\b(briefly|in short|short answer|keep it short|tl;?dr|quickly)\b", re.IGNORECASE),
    "detailed": re.compile(r"\b(in detail|detailed|explain fully|elaborate|all the details)\b", re.IGNORECASE),
}


class Preferences(BaseModel):
    banking_type: str | None = None
    employment: str | None = None
    income_band: str | None = None
    networks: list[str] = []
    use_cases: list[str] = []
    style: Style | None = None
    updated_at: float = Field(default_factory=time.time)

    def is_empty(self) -> bool:
        return self.model_dump(exclude={"updated_at"}, exclude_defaults=True) == {}


def learn(known: Preferences, state: SessionState, query: str) -> Preferences:
    """The preferences after this turn: what the customer chose now wins over what they chose before."""
    filters, profile = state.filters, state.profile
    update: dict = {}
    if isinstance(filters.get("banking_type"), str):
        update["banking_type"] = filters["banking_type"]
    if profile.employment:
        update["employment"] = profile.employment
    if profile.monthly_income is not None:
        update["income_band"] = income_band(profile.monthly_income)
    for field, key in (("networks", "network"), ("use_cases", "use_case")):
        said = filters.get(key)
        if said:
            said = said if isinstance(said, list) else [said]
            update[field] = [*said, *(v for v in getattr(known, field) if v not in said)][:3]
    style = next((s for s, cue in _STYLE_CUES.items() if cue.search(query)), None)
    if style:
        update["style"] = style
    if not update:
        return known
    return known.model_copy(update={**update, "updated_at": time.time()})


def income_band(income: int) -> str:
    return next((label for limit, label in INCOME_BANDS if income < limit), "over ৳2,00,000")


def starting_state(preferences: Preferences, state: SessionState) -> None:
    """A returning customer's new session starts from what they preferred last time."""
    if preferences.banking_type:
        state.filters = {**state.filters, "banking_type": preferences.banking_type}
    if preferences.employment and not state.profile.employment:
        state.profile = state.profile.model_copy(update={"employment": preferences.employment})


def welcome_back(preferences: Preferences) -> str:
    if preferences.banking_type:
        kind = FILTER_WORDS["banking_type"].get(preferences.banking_type, preferences.banking_type)
        return f"Welcome back! Still looking at {kind} cards? (Just say so if not.)"
    return "Welcome back!"


class PreferenceStore:
    """One row per customer in SQLite; shared by every worker that opens the same file."""

    def __init__(self, path: Path):
        self._db = SharedSQLite(path, "CREATE TABLE IF NOT EXISTS preferences"
                                      " (customer_id TEXT PRIMARY KEY, body TEXT NOT NULL)")

    def get(self, customer_id: str) -> Preferences:
        row = self._db.one("SELECT body FROM preferences WHERE customer_id=?", (customer_id,))
        return Preferences.model_validate_json(row[0]) if row else Preferences()

    def save(self, customer_id: str, preferences: Preferences) -> None:
        self._db.write("INSERT OR REPLACE INTO preferences VALUES (?, ?)", (customer_id, preferences.model_dump_json()))

    def delete(self, customer_id: str) -> bool:
        return self._db.write("DELETE FROM preferences WHERE customer_id=?", (customer_id,)) > 0
