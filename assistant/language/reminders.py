"""A request for a reminder, read with the words of every loaded language: where it starts in a
message ("... and remind me", "... yaad dila dena") and how long ahead it asks for ("an hour
before", "30 minute pehle", "১ ঘণ্টা আগে"). A reminder at a time of day is read as any time is."""

from __future__ import annotations

import re
from collections.abc import Iterable

from assistant.language.lexicon import LETTER, Language, Table
from assistant.language.numbers import Numbers
from assistant.language.when import Found


class Reminders:
    def __init__(self, languages: Iterable[Language], numbers: Numbers):
        languages = tuple(languages)
        self._numbers = numbers
        self._start = re.compile(Table.words(languages, "remind", lambda lang: lang.remind).pattern, re.IGNORECASE)
        self._lengths = Table.of(languages, "lengths", lambda lang: lang.lengths)
        self._one = Table.words(languages, "one", lambda lang: lang.one)
        before = Table.words(languages, "before", lambda lang: lang.before).pattern
        self._lead = re.compile(rf"(\d{{1,3}}|{LETTER}+)\s*({self._lengths.pattern})\s*{before}", re.IGNORECASE)

    def start(self, text: str) -> int | None:
        """Where the request for a reminder starts, if the text makes one."""
        found = self._start.search(text)
        return found.start() if found else None

    def lead(self, text: str) -> Found | None:
        """How many minutes ahead the reminder is asked for, as digits, and where, if the text says."""
        for found in self._lead.finditer(text):
            count = 1 if found[1] in self._one else self._numbers.value(found[1])
            minutes = self._lengths.get(found[2])
            if count and minutes and count == int(count):
                return Found(str(int(count) * minutes), found.start(), found.end())
        return None
