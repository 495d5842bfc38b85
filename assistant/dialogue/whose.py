"""Whose a value is: the customer's own, or someone else's (a workshop, a friend, a branch).

A message may give values of others ("my friend's number is 98...", "su teléfono es 91..."
said at the workshop's question). Each statement of it (the languages' `statements`) that says
another party (the languages' `others` words, or the words a slot of another party declares,
its `of`) gives values only to the slots of that party: those whose `of` words it says or,
when it names none of them ("his number", "su teléfono"), those of the party asked about.
It never gives one to the customer's own slots (a phone, an e-mail, a private detail). Both
flow readers (dialogue/flows.py, dialogue/forms.py) read each slot from its view of the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from assistant.language import Languages, phrases
from assistant.pack.flows import Flow, Slot


class Parties:
    """One message, as each slot of a flow may read it."""

    def __init__(self, languages: Languages, flow: Flow, text: str, asked: Sequence[str]):
        self.languages, self.flow, self.text = languages, flow, text
        known = {slot.slot for slot in flow.slots()}
        self.asked = [flow.slot(name) for name in asked if name in known]
        self._views: dict[str, str] = {}

    def view(self, slot: Slot) -> str:
        """What of the message the slot may take a value from, blanked rather than cut, so every
        place in it stays where it was: for the customer's own, all but the statements about
        someone else; for another party's slot, the statements about that party (and an answer
        to its own question); for any other, all of it but the words that say whose ("the
        branch's number" chooses no branch)."""
        if slot.slot not in self._views:
            if slot.own or slot.of:
                hidden = [(start, end) for start, end in self._statements if not self._keeps(slot, self.text[start:end])]
            else:
                hidden = self._saying_whose
            seen = list(self.text)
            for start, end in hidden:
                seen[start:end] = " " * (end - start)
            self._views[slot.slot] = "".join(seen)
        return self._views[slot.slot]

    @cached_property
    def _statements(self) -> list[tuple[int, int]]:
        return self.languages.statements(self.text)

    @cached_property
    def _saying_whose(self) -> list[tuple[int, int]]:
        """Where the message says whose something is: the languages' words, and the words of the slots of another party."""
        said = [found.span() for slot in self.flow.slots() if slot.of for found in phrases(slot.of).finditer(self.text)]
        return [*self.languages.someone_elses(self.text), *said]

    def _keeps(self, slot: Slot, statement: str) -> bool:
        theirs = {other.slot for other in self.flow.slots() if other.of and phrases(other.of).search(statement)}
        someone = bool(theirs) or bool(self.languages.someone_elses(statement))
        if not slot.of:
            return not someone
        if not someone:
            return any(asked.slot == slot.slot for asked in self.asked)  # an answer to its own question
        return slot.slot in theirs or (not theirs and any(asked.of == slot.of for asked in self.asked))
