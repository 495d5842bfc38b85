"""A person's name as a customer gives it, read with the words of every loaded language.

"my name is", "amar nam" and "मेरा नाम" introduce a name whatever follows; "I am" and "this is"
only may ("I am salaried", "this is for four"), so what follows them is a name only when it
looks like one: not a word that is never a name, not one of the business's own words, and
capitalised by a writer who capitalises. An everyday word of a language read in English (its
gloss) is no name either: "নাম বদলাতে চাই" wants a name changed, it gives none. A name is at
most four words of letters and ends at punctuation, a digit, or such a word ("my name is Meera
Joshi and my number is ...").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from assistant.language.lexicon import LETTER, Language, Table

_WORD = rf"{LETTER}(?:{LETTER}|[.'’-])*"
_RUN = rf"({_WORD}(?:[ \t]+{_WORD}){{0,3}})"  # at most four words
_CLAUSE = re.compile(r"\s*[,;:!?\n]\s*|\.\s+")


class Names:
    def __init__(self, languages: Iterable[Language]):
        languages = tuple(languages)
        sure = Table.words(languages, "names", lambda lang: lang.names).pattern
        maybe = Table.words(languages, "self_names", lambda lang: lang.self_names).pattern
        self._never = Table.words(languages, "not_names", lambda lang: [*lang.not_names, *_when_words(lang)])
        self._everyday = Table.words(languages, "gloss", _everyday_words)
        self._patterns = (
            (re.compile(rf"{sure}(?:\s*[:=]\s*|\s+){_RUN}", re.IGNORECASE), True),  # "naam: Anil" too
            (re.compile(rf"{maybe}\s+{_RUN}", re.IGNORECASE), False),
        )

    def find(self, text: str, known: Callable[[str], bool] = lambda word: False, ending_at: int | None = None) -> str | None:
        """The name the text gives, title-cased; `known` says whether a word is one of the
        business's own ("salaried", "platinum"), which no name is made of. With `ending_at` (where
        a phone number starts, or the end of an answer to "your name?"), a name said bare counts
        too: the last clause before it, if every word of it can be a name ("Rahul Verma, 98...")."""
        cases = any(c.isupper() for c in text)  # a writer who capitalises "I" capitalises names
        for pattern, sure in self._patterns:
            for found in pattern.finditer(text):
                words = self._name_words(found.group(1).split(), known, cases)
                if words and (sure or not cases or words[0][0].isupper()):
                    return _titled(words)
        if ending_at is None:
            return None
        said = next((c for c in reversed(_CLAUSE.split(text[:ending_at])) if c.strip()), "").split()
        words = self._name_words(said, known, cases)
        whole = 0 < len(said) <= 4 and len(words) == len(said) and all(re.fullmatch(_WORD, w) for w in said)
        return _titled(words) if whole and (not cases or words[0][0].isupper()) else None

    def _name_words(self, said: list[str], known: Callable[[str], bool], cases: bool) -> list[str]:
        """The leading words that can be a name: a capitalised name ends at a word in lower case."""
        words: list[str] = []
        for word in said:
            if word in self._never or known(word.lower()):
                break
            if word in self._everyday and not (cases and word[0].isupper()):  # "ami ekta call back chai"
                break
            if words and cases and words[0][0].isupper() and not word[0].isupper():
                break
            words.append(word)
        return words


def _titled(words: list[str]) -> str:
    return " ".join(w[:1].upper() + w[1:].lower() if w.isascii() else w for w in words)


def _everyday_words(language: Language) -> list[str]:
    """The words its gloss reads in English ("ekta" is "a", "বদলাতে" "to change"): no one's name,
    unless a writer who capitalises capitalises it ("I'm Jay")."""
    return [form for forms in language.gloss.values() for form in forms if " " not in form]


def _when_words(language: Language) -> list[str]:
    """A language's words for days and parts of the day: "tomorrow" is no one's name (months
    are left out: April, May and June are)."""
    said = [*language.days.values(), *language.weekdays.values(), *language.parts.values()]
    return [word for words in said for word in words if " " not in word]
