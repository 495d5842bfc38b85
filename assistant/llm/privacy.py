"""Who the customer is never reaches a model: names, phone numbers and e-mail addresses are
replaced by placeholders in every prompt, and put back in what the model writes.

The values come from the turn itself: the slots that say who the customer is (the pack's
private slots: a name, a phone, an e-mail), the name the customer gave, and any phone number or
e-mail address written anywhere in the text.
"""

from __future__ import annotations

import re

from agents.work import TurnWork
from assistant.tools.validators import EMAIL_IN_TEXT

_PHONE = re.compile(r"\+?\d[\d\s-]{6,}\d")  # 8 digits or more, with spaces or dashes between
_SLOT = re.compile(r"\[?(NAME|PHONE|EMAIL)_(\d+)\]?")


class Placeholders:
    """One turn's personal values and the placeholders ("[NAME_1]") that stand in for them."""

    def __init__(self, names: list[str]):
        self._by_value: dict[str, str] = {}
        for name in names:
            self._add(name, "NAME")

    @classmethod
    def of(cls, work: TurnWork) -> Placeholders:
        """The turn's: the private slots of its goal (a phone or an e-mail is found by its form),
        and the name the customer gave."""
        goal, step = work.request.goal, work.out.flow_step
        slots = {**(goal.slots if goal else {}), **(step.slots if step else {})}
        private = [str(value) for name, value in slots.items() if name in work.services.catalog.pack.private_slots and value]
        names = [value for value in private if not EMAIL_IN_TEXT.search(value) and not _PHONE.search(value)]
        found = cls([*names, *([work.request.intent.name] if work.request.intent.name else [])])
        for value in private:
            found.hide(value)  # registers a phone or an e-mail slot's value
        return found

    def _add(self, value: str, kind: str) -> str:
        value = value.strip()
        if len(value) < 2:
            return value
        if value not in self._by_value:
            count = sum(p.startswith(f"[{kind}_") for p in self._by_value.values())
            self._by_value[value] = f"[{kind}_{count + 1}]"
        return self._by_value[value]

    def hide(self, text: str) -> str:
        """The text with every personal value replaced by its placeholder."""
        text = EMAIL_IN_TEXT.sub(lambda m: self._add(m.group(0), "EMAIL"), text)
        text = _PHONE.sub(lambda m: self._add(m.group(0), "PHONE"), text)
        for value, placeholder in sorted(self._by_value.items(), key=lambda item: -len(item[0])):
            text = text.replace(value, placeholder)
        return text

    def show(self, text: str) -> str:
        """What the model wrote, with the values back where it kept their placeholders."""
        values = {placeholder.strip("[]"): value for value, placeholder in self._by_value.items()}
        return _SLOT.sub(lambda m: values.get(f"{m.group(1)}_{m.group(2)}", m.group(0)), text)
