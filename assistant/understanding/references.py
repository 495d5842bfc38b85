"""Which of the items on screen a message means: "the second one", "the first two", "both",
"it", "that card", "the Islamic one".

The languages read the pointing words (assistant/language/pointers.py); this resolves them
against the items the session last showed, in the order shown, narrowed by any attribute the
message names among them. When it can't tell which one is meant, it says so with the
candidates, so the assistant asks instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.language import Pointing
from assistant.pack.model import FilterValue, Product
from assistant.tools.filters import FilterRules


@dataclass(frozen=True)
class Referred:
    """The items a message means (in order), or the candidates to ask among when it is unclear."""

    items: list[Product] = field(default_factory=list)
    unsure: list[Product] = field(default_factory=list)


def refer(
    pointing: Pointing,
    shown: list[Product],
    discussed: list[Product],
    filters: dict[str, FilterValue],
    rules: FilterRules,
) -> Referred | None:
    """`shown`: the items last shown, in order; `discussed`: those the last reply was about.
    None when the message points at nothing on screen."""
    if not shown:
        return None
    if pointing.first:
        return Referred(shown[: pointing.first])
    if pointing.positions:
        if any(not -len(shown) <= p - (p > 0) < len(shown) for p in pointing.positions):
            return Referred(unsure=shown)  # "the fourth one" of three
        return Referred([shown[p - 1 if p > 0 else p] for p in pointing.positions])
    among = [p for p in shown if rules.matches(p, filters)] if filters else shown
    if pointing.every:
        return Referred(among or shown)
    if pointing.single:
        if len(among) == 1:
            return Referred(among)  # "that Islamic one"
        if len(discussed) == 1 and not filters:
            return Referred(discussed)  # "it": the one the last reply was about
        return Referred(unsure=among or shown)
    return None
