"""The language a turn replies in: the customer's choice, else the language they write in.

A customer who asks for a language ("Bangla te bolun", "in English please") gets it from then on.
Otherwise a message in a language's own script is answered in it, Banglish or Hinglish as the
pack chooses (`romanised_reply`), and a message whose words tell no language ("ok", "12:30")
keeps the conversation's; a new conversation starts in the pack's own language.
"""

from __future__ import annotations

from assistant.dialogue.state import SessionState
from assistant.pack.model import Catalog


def reply_language(text: str, state: SessionState, catalog: Catalog) -> str:
    """The language to reply to `text` in, noting the customer's choice on `state`."""
    if asked := catalog.languages.asked_for(text):
        state.language = asked
    if state.language in catalog.own_pack.languages:
        return state.language
    return written_language(text, catalog) or state.replied_in or catalog.language


def written_language(text: str, catalog: Catalog) -> str | None:
    """The language to answer a message in by how it is written alone; None where it doesn't tell."""
    written = catalog.languages.written_in(text)
    if written is None or written.code not in catalog.own_pack.languages:
        return None
    return written.code if written.native else catalog.own_pack.romanised_reply
