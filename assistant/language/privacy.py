"""Every way the assistant hides who a customer is, in one place: masks for what people and logs
see, redaction of typed codes, and the placeholders a model sees instead of personal values.

It sits in language, below every package that shows, logs, stores or prompts with a customer's
words: masking is a matter of a text's form (digits, phones, e-mails, session ids) and needs no
pack, conversation or web, so each of them imports it and none reinvents it.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from assistant.language.phones import PHONE_LIKE, Numbering, e164

CODE_LIKE = re.compile(r"(?<!\d)(\d{6})(?!\d)")  # a one-time code as typed: six digits alone
EMAIL_IN_TEXT = re.compile(r"[^@\s,;:<>()]+@[^@\s,;:<>()]+\.[A-Za-z]{2,}")
_DIGIT_RUN = re.compile(r"\d{4,}")
_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.IGNORECASE)
_PHONE = re.compile(r"\+?\d[\d\s-]{6,}\d")  # 8 digits or more, with spaces or dashes between
_SLOT = re.compile(r"\[?(NAME|PHONE|EMAIL)_(\d+)\]?")


def masked(value: Any) -> str:
    """Enough of a name or a number to recognise it, not to read it: "+880*******678", "R**** V****"."""
    text = str(value)
    if any(c.isdigit() for c in text):
        head = text[:4] if len(text) > 7 else ""
        return head + "*" * max(len(text) - len(head) - 3, 0) + text[-3:]
    return " ".join(word[:1] + "*" * (len(word) - 1) for word in text.split())


def mask(text: str) -> str:
    """Every run of 4+ digits (codes, phone numbers) down to its last two digits."""
    return _DIGIT_RUN.sub(lambda m: "*" * (len(m.group(0)) - 2) + m.group(0)[-2:], text)


def phones_masked(text: str, plan: Numbering) -> str:
    """The text with each phone number in it masked as replies show one ("+880*******678"): what a
    conversation's history keeps of a number the customer typed (the flow has read it by then)."""
    return PHONE_LIKE.sub(lambda m: masked(number) if (number := e164(m[0], plan)) else m[0], text)


def redact_codes(text: str) -> str:
    """Any six-digit run masked, for text that may hold a code the customer typed."""
    return CODE_LIKE.sub("••••••", text)


def session_tag(session_id: str) -> str:
    """What the logs say for a session: the first 12 hex digits of its id's SHA-256."""
    return hashlib.sha256(session_id.lower().encode()).hexdigest()[:12]


def scrub(text: str) -> str:
    """A log line's text: UUIDs as their tags, and the rest masked (the tags' digits are not
    masked, so they stay searchable)."""
    pieces = _UUID.split(text)  # the UUIDs at the odd places
    return "".join(session_tag(piece) if place % 2 else mask(piece) for place, piece in enumerate(pieces))


def words_masked(text: str) -> str:
    """A customer's words as operators may read them in lists: masked as the logs mask, e-mails too."""
    return scrub(EMAIL_IN_TEXT.sub("***@***", text))


class Placeholders:
    """One turn's personal values and the placeholders ("[NAME_1]") that stand in for them: who the
    customer is never reaches a model, and what it writes gets the values back."""

    def __init__(self, names: list[str]):
        self._by_value: dict[str, str] = {}
        for name in names:
            self._add(name, "NAME")

    @classmethod
    def of(cls, private: list[str], name: str | None) -> Placeholders:
        """A turn's: the values of its private slots (a phone or an e-mail is found by its form),
        and the name the customer gave."""
        names = [value for value in private if not EMAIL_IN_TEXT.search(value) and not _PHONE.search(value)]
        found = cls([*names, *([name] if name else [])])
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
