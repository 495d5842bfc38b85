"""Names a customer asks for that the business doesn't have: "a Corolla", "an Xbox", "a Diners
Club card", "a black tier", "in Electronic City".

A name is a run of capitalised words after an article ("a Corolla", "the Toyota Camry") or after
the word a filter puts before its value ("in {value}": "in Electronic City") with a word the
pack doesn't know, or words right before the name of an enum filter or of the items ("black
tier", "Diners Club card") that it knows none of. What the pack knows: its vocabulary, its
items' names and short values, and the languages' little words.
The assistant names it back ("We don't have …") instead of passing other items off as matches.
"""

from __future__ import annotations

import re
from difflib import get_close_matches
from functools import cached_property

from assistant.language import Languages
from assistant.pack.model import Catalog

_CAPITALISED = r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}"
_WORDS = r"[\w'-]+(?:\s+[\w'-]+)?"
TYPO = 0.85  # how close a word must be to a known one to be its misspelling ("credt")
TYPO_LENGTH = 5  # shorter words are too close to too many others
SHORT = 4  # words in an item's value that name something, rather than describe it


class Unfamiliar:
    def __init__(self, catalog: Catalog, languages: Languages):
        self.catalog = catalog
        self.languages = languages

    @cached_property
    def _known(self) -> frozenset[str]:
        catalog = self.catalog
        words = set(catalog.vocabulary.words) | set(self.languages.stop_words) | set(self.languages.articles)
        words |= {w for key in ("item", "items") for w in catalog.text[key].lower().split()}
        for item in catalog.products:  # names and short values ("Bandra"), not descriptions
            values = [v for value in item.model_dump().values() for v in (value if isinstance(value, list) else [value])]
            for value in (item.name, *(v for v in values if isinstance(v, str) and len(v.split()) <= SHORT)):
                words |= set(re.findall(r"[\w'-]+", value.lower()))
        for attribute in catalog.pack.attributes.values():
            words |= {w for said in attribute.values for w in re.findall(r"[\w'-]+", attribute.words(said).lower())}
            words |= set(re.findall(r"[\w'-]+", attribute.label.lower()))
        return frozenset(words)

    def _knows(self, word: str) -> bool:
        """Known, or a typo of a known word ("credt"): a misspelling is no new name."""
        if word in self._known:
            return True
        return len(word) >= TYPO_LENGTH and bool(get_close_matches(word, self._long, n=1, cutoff=TYPO))

    @cached_property
    def _long(self) -> list[str]:
        return [w for w in self._known if len(w) >= TYPO_LENGTH]

    @cached_property
    def _patterns(self) -> list[tuple[re.Pattern[str], bool]]:
        """Each pattern, and whether every word of what it finds must be unfamiliar: words before a
        filter's name may be any words ("black tier"), so all must be new to the pack."""
        pack, text = self.catalog.pack, self.catalog.text
        articles = _either(self.languages.articles)
        enums = [a for _, a in pack.filter_attributes().values() if a.type == "enum" and a.as_filter.place != "noun"]
        self._labels = {a.label.lower() for a in enums}
        says = [a.as_filter.says for _, a in pack.filter_attributes().values() if a.as_filter.says]
        lead_words = {lead for said in says if (lead := said.split("{value}")[0].strip()) and lead[:1].isalpha()}
        leads = _either(lead_words)
        labels = _either(self._labels)
        items = _either({text["item"].lower(), text["items"].lower()})
        # A name is the thing asked for: "a Corolla?", "a Nobu in Mumbai", not "a UK account".
        after = _either({*self._labels, text["item"].lower(), text["items"].lower(), *lead_words})
        ends = rf"(?=\s*(?:[?.!,;]|$|(?i:{after})\b))"
        patterns = [
            (rf"(?i:\b(?:{articles}))\s+({_CAPITALISED}){ends}", False),
            (rf"(?i:\b({_WORDS})\s+({labels})\b)", True),  # "black tier": any words before a filter's name
            (rf"(?<=\s)({_CAPITALISED})\s+((?i:{items}))\b", True),  # "a Diners Club card"; not "Virtual card" opening a sentence
        ]
        patterns += [(rf"(?i:\b(?:{leads}))\s+({_CAPITALISED}){ends}", False)] if leads else []
        return [(re.compile(p), every) for p, every in patterns]

    def find(self, text: str) -> list[str]:
        """The unfamiliar names the text asks for, as typed, longest first."""
        found: list[str] = []
        little = self.languages.stop_words | self.languages.articles
        for pattern, every in self._patterns:
            for match in pattern.finditer(text):
                said = match.group(1).split()
                while said and said[0].lower() in little:  # "a black tier": the name is "black"
                    said = said[1:]
                words = [w for w in re.findall(r"[\w'-]+", " ".join(said).lower()) if len(w) > 1 and not w.isdigit()]
                unknown = [not self._knows(w) and w not in little for w in words]
                if words and (all(unknown) if every else any(unknown)):
                    label = match.group(2) if every and match.group(2).lower() in self._labels else ""
                    found.append(" ".join([*said, label]).strip())
        unique = sorted({n.lower(): n for n in found}.values(), key=len, reverse=True)
        return [n for n in unique if not any(n != other and n.lower() in other.lower() for other in unique)]


def _either(words: set[str] | frozenset[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
