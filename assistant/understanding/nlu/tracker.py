"""Following one conversation, so each turn reports only what it adds or changes.

A turn read alone cannot tell a new value from one the customer already gave ("Yes" to "a
table for 2 at 7 pm" repeats the 2 they said earlier), nor which intent a bare "Yes" or
"What's their address?" belongs to. The tracker keeps the intent under way and the values
known so far, and drops from each turn's slots those whose value did not change.
"""

from __future__ import annotations

import datetime as dt

from assistant.understanding.nlu.schema import NO_INTENT, Prediction, SchemaUnderstanding, affirms


class DialogueTracker:
    """The state of one conversation with one service, updated a user turn at a time."""

    def __init__(self, understanding: SchemaUnderstanding) -> None:
        self.understanding = understanding
        self.intent: str | None = None
        self.state: dict[str, str] = {}
        self.proposed: dict[str, str] = {}  # what the system put forward and the user has not answered yet

    def turn(self, user: str, system: str = "", today: dt.date | None = None) -> Prediction:
        """{"intent": ..., "slots": {...}} for this turn, slots being only new or changed values.

        A value the system proposed a few turns back ("How about Sana in Goa?" ... "Their number
        is ..." ... "Sounds good") is still what a "yes" accepts, so proposals are kept until answered.
        """
        today = today or dt.date.today()
        nlu = self.understanding
        said = nlu.scan(user, today)
        intent = nlu.intent_of(said, user, system, today, self.intent)
        self.proposed.update(nlu.proposed(system, today))
        if intent == NO_INTENT:
            return {"intent": intent, "slots": {}}
        self.intent = intent
        offered = (
            {name: value for name, value in self.proposed.items() if not same_thing(self.state.get(name), value)}
            if affirms(user)
            else {}
        )
        if affirms(user) or said.slots:
            self.proposed = {}
        slots = nlu.slots_for(intent, said, offered)
        changed = {name: value for name, value in slots.items() if self.state.get(name) != value}
        self.state.update(changed)
        return {"intent": intent, "slots": changed}


def same_thing(known: str | None, offered: str) -> bool:
    """Whether the system's wording names what the user already said: "San Francisco" for "SF" or
    "San Fran", "Sino Restaurant" for "Sino". Restating it is no change."""
    if not known:
        return False
    a, b = known.lower().split(), offered.lower().split()
    short, long = sorted((a, b), key=len)
    initials = "".join(word[0] for word in long)
    return (
        " ".join(short) in " ".join(long)
        or "".join(short) == initials
        or all(whole.startswith(s) for s, whole in zip(short, long, strict=False))
    )
