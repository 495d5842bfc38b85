"""What a returning customer prefers, learned from their conversations and kept per customer_id.

Apart from session state: a session ends, preferences carry into the next one (the customer
can overrule them at any time, and DELETE /customers/<id>/preferences forgets them).
"""

from __future__ import annotations

import re
import time
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from assistant.dialogue.state import SessionState
from assistant.infra.database import Database
from assistant.pack.display import money
from assistant.pack.model import Catalog, FactValue
from assistant.pack.texts import filter_words, say

Style = Literal["short", "detailed"]
_STYLE_CUES: dict[Style, re.Pattern[str]] = {
    "short": re.compile(r"\b(briefly|in short|short answer|keep it short|tl;?dr|quickly)\b", re.IGNORECASE),
    "detailed": re.compile(r"\b(in detail|detailed|explain fully|elaborate|all the details)\b", re.IGNORECASE),
}
KEPT_PER_FILTER = 3


class Preferences(BaseModel):
    filters: dict[str, list[str]] = {}  # values the customer chose per filter, most recent first
    profile: dict[str, str] = {}  # per customer fact: a category as told, an amount as its band, never a figure
    style: Style | None = None
    updated_at: float = Field(default_factory=time.time)

    @model_validator(mode="before")
    @classmethod
    def _saved_before_facts_were_pack_data(cls, raw: Any) -> Any:
        """Preferences saved when the engine knew only two facts keep them, under those facts' names."""
        if isinstance(raw, dict) and {"employment", "income_band"} & set(raw):
            legacy = {"employment": raw.get("employment"), "monthly_income": raw.get("income_band")}
            told = {fact: value for fact, value in legacy.items() if value}
            raw = {k: v for k, v in raw.items() if k not in ("employment", "income_band")}
            raw["profile"] = {**told, **(raw.get("profile") or {})}
        return raw

    def is_empty(self) -> bool:
        return self.model_dump(exclude={"updated_at"}, exclude_defaults=True) == {}


def learn(known: Preferences, state: SessionState, query: str, catalog: Catalog) -> Preferences:
    """The preferences after this turn: what the customer chose now wins over what they chose before."""
    update: dict[str, Any] = {}
    chosen = {
        name: value if isinstance(value, list) else [value]
        for name, value in state.filters.items()
        if name not in catalog.pack.search.always and isinstance(value, (str, list))
    }
    if chosen:
        merged = dict(known.filters)
        for name, said in chosen.items():
            merged[name] = [*said, *(v for v in known.filters.get(name, []) if v not in said)][:KEPT_PER_FILTER]
        if merged != known.filters:
            update["filters"] = merged
    kept = {name: kept_as for name, value in state.profile.items() if (kept_as := _kept(name, value, catalog))}
    if kept:
        update["profile"] = {**known.profile, **kept}
    style = next((s for s, cue in _STYLE_CUES.items() if cue.search(query)), None)
    if style:
        update["style"] = style
    if all(getattr(known, k) == v for k, v in update.items()):
        return known
    return known.model_copy(update={**update, "updated_at": time.time()})


def _kept(name: str, value: FactValue, catalog: Catalog) -> str | None:
    """What is remembered of a fact: a category as told, an amount as the range of the pack's
    bands it falls in ("50,000–100,000" after the currency's sign); a number, or an amount without bands, is not kept."""
    fact = catalog.pack.profile.get(name)
    if fact is None or fact.kind == "number" or (fact.kind == "amount" and not fact.bands):
        return None
    if fact.kind == "category":
        return str(value)
    business, low = catalog.business, 0
    for limit in fact.bands:
        if int(value) < limit:
            return (
                say(catalog, "band_under", high=money(limit, business))
                if low == 0
                else say(catalog, "band_between", low=money(low, business), high=money(limit, business))
            )
        low = limit
    return say(catalog, "band_over", low=money(low, business))


def starting_state(preferences: Preferences, state: SessionState, catalog: Catalog) -> None:
    """A returning customer's new session starts from what they preferred last time."""
    carried = {name: preferences.filters[name][0] for name in catalog.pack.search.carry if preferences.filters.get(name)}
    state.filters = {**state.filters, **carried}
    state.profile = catalog.pack.told({**preferences.profile, **state.profile})  # a band is no figure: categories come back


def welcome_back(preferences: Preferences, catalog: Catalog) -> str:
    carried = [name for name in catalog.pack.search.carry if preferences.filters.get(name)]
    if carried:
        value = filter_words(catalog, carried[0], preferences.filters[carried[0]][0])
        return say(catalog, "welcome_back_filter", value=value)
    return say(catalog, "welcome_back")


class PreferenceStore:
    """One row per customer in the durable database, shared by every worker and machine."""

    def __init__(self, db: Database):
        self._db = db

    def get(self, customer_id: str) -> Preferences:
        row = self._db.one("SELECT body FROM preferences WHERE customer_id=?", (customer_id,))
        return Preferences.model_validate_json(row[0]) if row else Preferences()

    def save(self, customer_id: str, preferences: Preferences) -> None:
        self._db.write(
            "INSERT INTO preferences VALUES (?, ?) ON CONFLICT (customer_id) DO UPDATE SET body=excluded.body",
            (customer_id, preferences.model_dump_json()),
        )

    def delete(self, customer_id: str) -> bool:
        return self._db.write("DELETE FROM preferences WHERE customer_id=?", (customer_id,)) > 0
