"""Rule-based understanding: intent, product filters and profile facts from one message.

Everything it knows about words comes from the domain pack (its vocabulary, its number
filters' cues and units, its currency, its item names); the rules here are generic: phrase
matching on word boundaries, typo tolerance for longer words, and amounts in the forms
customers type ("80k", "50,000" with the currency's sign, "two hundred thousand", "สามหมื่น"), read by the pack's
languages (assistant/language) before anything else looks at the message.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from decimal import Decimal
from difflib import get_close_matches
from functools import cached_property, lru_cache
from typing import Any, Literal, NamedTuple, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from assistant.language import REACH, Bound, Pointing
from assistant.language.lexicon import LETTER
from assistant.pack.model import (
    BOUNDS,
    HELP_INTENTS,
    NEEDS_PRODUCTS,
    Attribute,
    Catalog,
    CustomerFact,
    FactValue,
    FilterValue,
    IntentType,
)
from assistant.tools.calculator import find_expression
from assistant.tools.comparison import Rank, rank_key
from assistant.tools.filters import FilterRules
from assistant.tools.help_search import HelpCentre
from assistant.understanding.router import Routed, Router
from assistant.understanding.unfamiliar import Unfamiliar

CONFIDENT = 0.5  # the router's probability from which its intent is taken as it is
SURE = 0.8  # from this probability, the router's reading of a question about items stands whatever else says
PLAUSIBLE = 0.15  # below CONFIDENT, a vocabulary phrase may choose an intent the router finds at least this likely
_CUE_INTENTS = {
    "cancel": "cancel",
    "comparison": "comparison",
    "eligibility": "eligibility_check",
    "booking": "booking",
    "support": "support",
    "faq": "faq",
    "thanks": "thanks",
    "greeting": "greeting",
    "want": "product_info",
    "cheapest": "product_info",
}
LARGEST = 1e15  # no amount, count or size anyone means is this large: a longer number is read as none
_FUZZY_MIN_LENGTH = 5
_FUZZY_CUTOFF = 0.84


Pending = str  # "clarify_product", or the name of the customer fact the pack's question asked for


class Wishes(BaseModel):
    """What a message answered with a clarifying question asked for, taken back with the answer."""

    comparison: bool = False
    eligibility: bool = False
    rank: dict[str, str] | None = None  # the ranking asked for (attribute, best end)
    topics: list[str] = []  # the facts asked about ("lounge")
    lines: list[str] = []


class Details(Protocol):
    """A pack's service reader (the restaurants' schema, extensions.restaurants.planner.ServiceReader)."""

    def read(self, text: str, today: dt.date) -> dict[str, Any]: ...


class Intent(BaseModel):
    """What one message asks for. `filters` holds only what this message said. Frozen: the
    dialogue policy acts on commands (assistant/dialogue/commands.py), and hands the agents a
    copy with the act it decided; no later code rewrites what the message was read to say."""

    model_config = ConfigDict(frozen=True)

    type: IntentType
    filters: dict[str, FilterValue] = {}
    named: list[str] = []  # ids of the items the message names, or points at on screen (the pipeline resolves those)
    pointing: Pointing = Pointing()  # "the second one", "both", "it"
    name: str | None = None  # the customer's name, as they gave it ("my name is Rafiqul Islam")
    follow_up: bool = False  # names items or values and asks nothing of its own: "what about the Amex Platinum?"
    dropped: list[str] = []  # filters the customer takes back: "any brand", "forget the fee limit"
    guessed: list[str] = []  # filters a model read that the customer's words didn't say: this search's only
    absent: list[str] = []  # names asked for that the business doesn't have: "a Corolla"
    unapplied: list[str] = []  # bounds said of what no filter narrows, as said ("battery above 5000 mah"): said back, not applied
    unavailable: list[str] = []  # items named that aren't offered now (out of stock); the pipeline sets it
    expression: str | None = None  # arithmetic to work out ("1299 x 2")
    wants_comparison: bool = False
    wants_eligibility: bool = False
    feature_topics: list[str] = []
    feature_lines: list[str] = []  # labels of the topics' lines the message names ("late fee"): only those are shown
    rank: Rank | None = None  # "cheapest", "more powerful": what the items are ranked by, best first
    rank_all: bool = False  # "the laptop with the most RAM under 40k": of the whole catalog, not the items at hand
    thanks: bool = False  # a "greeting" that closes rather than opens
    profile: dict[str, FactValue] = {}  # what the message tells of the customer's facts (pack.yaml's profile)
    confidence: float = 1.0  # the router's probability for `type`
    sure: bool = True
    read_as: str = ""  # the message as the router read it (normalised, typos corrected): help searches read it too

    def wishes(self) -> Wishes:
        """What this message asked for beyond a plain list, to keep while we clarify."""
        return Wishes(
            comparison=self.wants_comparison,
            eligibility=self.wants_eligibility,
            rank=self.rank.model_dump() if self.rank else None,
            topics=self.feature_topics,
            lines=self.feature_lines,
        )

    def resumed(self, wishes: Wishes) -> Intent:
        """With what the customer asked for before we stopped to ask a question: "does it have
        lounge access?", answered "which one?", is still about lounge access."""
        update: dict[str, Any] = {
            "wants_comparison": self.wants_comparison or wishes.comparison,
            "wants_eligibility": self.wants_eligibility or wishes.eligibility,
            "rank": self.rank or (Rank.model_validate(wishes.rank) if wishes.rank else None),
        }
        if wishes.topics and not self.feature_topics:
            update |= {"feature_topics": list(wishes.topics), "feature_lines": list(wishes.lines)}
            update["type"] = "feature_query" if self.type == "product_info" else self.type
        return self.model_copy(update=update)

    def public(self) -> dict[str, Any]:
        return {"type": self.type, "filters": dict(self.filters)}


_KEPT_MARKS = frozenset(".,'/%-")
_BOUND_MARKS = _KEPT_MARKS | {"+", "–"}  # "4+ stars", "10–15 lakh": bounds' own marks
# What the models read keeps the question mark: it tells them a question ("card pabo?" is asking,
# not wanting), which found more right articles in English, Bangla and Banglish alike
# (bench/intent_eval.py, docs/understanding.md).
_ASKED_MARKS = _KEPT_MARKS | {"?"}


def normalise(text: str, kept: frozenset[str] = _KEPT_MARKS) -> str:
    """Lower case, with punctuation and symbols other than currency signs and number marks
    (`kept`) as spaces. Letters' combining marks stay: Thai, Bengali and Devanagari words are
    written with them, in Unicode's composed form (NFC), so a letter typed as one code point or
    two reads the same."""
    return " ".join(_spaced(text, kept).split())


def _unnamed(text: str, name: str | None) -> str:
    """The normalised text without the customer's own name."""
    return re.sub(rf"(?<!\w){re.escape(name.lower())}(?!\w)", " ", text) if name else text


def _spaced(text: str, kept: frozenset[str] = _KEPT_MARKS) -> str:
    """The text as `normalise` reads it, each character in its place (no spaces run together):
    positions found in it are positions of each other. `kept`: the marks that stay."""
    return "".join(_read_as(ch, kept) for ch in unicodedata.normalize("NFC", text))


@lru_cache(maxsize=8192)
def _read_as(ch: str, kept: frozenset[str]) -> str:
    low = ch.lower()
    low = low if len(low) == 1 else ch  # "İ" lowers to two characters: kept as it is, so positions hold
    kind = unicodedata.category(low)
    return low if low in kept or kind[0] in "LMN" or kind == "Sc" else " "


class PhraseMatcher:
    """Finds which values of a vocabulary section a text mentions."""

    def __init__(self, section: dict[str, list[str]], after_digits: bool = False):
        """`after_digits`: a phrase may follow a digit with no space ("16gb ram", "7seater")."""
        self._patterns = {
            value: _phrases([unicodedata.normalize("NFC", p.lower()) for p in phrases], after_digits)
            for value, phrases in section.items()
            if phrases
        }
        self._single_words = {
            phrase.lower(): value
            for value, phrases in section.items()
            for phrase in phrases
            if " " not in phrase and len(phrase) >= _FUZZY_MIN_LENGTH
        }
        self._by_length: dict[int, list[str]] = {}
        for word in self._single_words:
            self._by_length.setdefault(len(word), []).append(word)

    def exact(self, text: str) -> list[str]:
        """Values mentioned, in order; a phrase inside a longer one ("gold" in "rose gold") does not count."""
        found: dict[str, int] = {}
        for start, _, value in self.spans(text):
            found.setdefault(value, start)
        return list(found)

    def spans(self, text: str, typos: bool = False) -> list[Span]:
        """Where each value is mentioned, in order, but a phrase inside a longer one; `typos`:
        single words within a typo of one too ("milage")."""
        found = [Span(m.start(), m.end(), value) for value, pattern in self._patterns.items() for m in pattern.finditer(text)]
        if typos:
            exact = {(span.start, span.end) for span in found}
            found += [
                Span(m.start(), m.end(), value)
                for m in re.finditer(rf"{LETTER}{{{_FUZZY_MIN_LENGTH},}}", text)
                if (m.start(), m.end()) not in exact and (value := self._closest(m[0]))
            ]
        return outermost(found)

    def without(self, text: str) -> str:
        """The text with every phrase of the section blanked out, each found in the text as given
        (a shorter phrase blanked first would break up a longer one around it)."""
        kept = list(text)
        for pattern in self._patterns.values():
            for match in pattern.finditer(text):
                kept[match.start() : match.end()] = " " * (match.end() - match.start())
        return "".join(kept)

    def fuzzy(self, words: list[str]) -> list[str]:
        """Values whose single-word phrases are within a typo of some word ("platnum")."""
        return [value for word in words if len(word) >= _FUZZY_MIN_LENGTH and (value := self._closest(word))]

    @lru_cache(maxsize=4096)  # noqa: B019 - one vocabulary per pack, kept for the process; difflib is the costliest rule
    def _closest(self, word: str) -> str | None:
        # Only words of a length that could be close enough: difflib would drop the rest itself,
        # one slow comparison each (2 * shorter / both lengths is the best ratio two lengths allow).
        n = len(word)
        lengths = [m for m in self._by_length if 2 * min(n, m) / (n + m) >= _FUZZY_CUTOFF]
        candidates = [w for m in lengths for w in self._by_length[m]]
        close = get_close_matches(word, candidates, n=1, cutoff=_FUZZY_CUTOFF)
        return self._single_words[close[0]] if close else None

    def find(self, text: str, words: list[str]) -> list[str]:
        values = self.exact(text)
        values += [v for v in self.fuzzy(words) if v not in values]
        return values


_UNSPACED = re.compile(r"[\u0e00-\u0e7f]")  # Thai: words run together, so no boundaries to look for


def _phrases(phrases: list[str], after_digits: bool = False) -> re.Pattern[str]:
    """Any of the phrases, longest first, as whole words except in a script written without
    spaces. The word boundaries stand outside the alternation: inside it, they kept the regex
    engine from skipping ahead to a phrase's first letter, and a long message took ten times as
    long to read."""
    ordered = sorted(phrases, key=len, reverse=True)
    spaced = "|".join(re.escape(p).replace(r"\ ", r"[\s-]+") for p in ordered if not _UNSPACED.search(p))  # "lowest-fee"
    unspaced = "|".join(re.escape(p) for p in ordered if _UNSPACED.search(p))
    start = r"(?<![^\W\d_])" if after_digits else r"(?<!\w)"
    either = [rf"{start}(?:{spaced})(?!\w)"] if spaced else []
    return re.compile("|".join([*either, *([unspaced] if unspaced else [])]))


class Span(NamedTuple):
    """Where a value is said in a text."""

    start: int
    end: int
    value: str


class _Placed(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


P = TypeVar("P", bound=_Placed)


def outermost(spans: list[P]) -> list[P]:
    """The spans, in order, but those inside a longer one ("fee" in "late payment fee")."""
    inner = [s for s in spans if any(o.start <= s.start and s.end <= o.end and (o.start, o.end) != (s.start, s.end) for o in spans)]
    return sorted((s for s in spans if s not in inner), key=lambda s: (s.start, s.end))


class Money:
    """Amounts in the pack's currency: its sign and words, next to an amount ("₹20 lakh", "500 taka")."""

    def __init__(self, symbol: str, words: list[str]):
        marks = sorted({re.escape(symbol.lower()), *(re.escape(w.lower()) for w in words)}, key=len, reverse=True)
        self.marks = currency = "|".join(marks)  # the currency's sign and words, lower-cased, as a regex
        self._before = re.compile(rf"(?<!\w)(?:{currency})\.?\s*\Z")
        self._after = re.compile(rf"\s*(?:{currency})(?!\w)")
        self._among = re.compile(rf"(?<![^\W\d_])(?:{currency})(?![^\W\d_])")

    def marks_amount(self, text: str, bound: Bound) -> bool:
        """Whether the currency is said with the amount: before it, after it, or among its bound's
        words ("entre 100 y 300 euros" is money at both ends)."""
        return bool(
            self._before.search(text, max(0, bound.start - REACH), bound.start)
            or self._after.match(text, bound.end)
            or self._among.search(text, bound.first, bound.last)
        )


class _Said(NamedTuple):
    """What the amounts of a message say: the filters they set, the bounds no filter narrows
    (said back, never applied), and the customer's amount facts."""

    filters: dict[str, FilterValue]
    unapplied: list[str]
    facts: dict[str, int]
    words: frozenset[str]  # the words it was said in ("above", "lakh", "mileage"): no request of their own


class _Of(NamedTuple):
    """Words an amount may be said of, and where: an attribute by its filter's unit or cue or by
    its label, or a fact the customer tells."""

    start: int
    end: int
    name: str
    how: Literal["unit", "cue", "label", "fact"]


class _Amounts:
    """What each amount a message says is of, and the filter it sets. An amount is of the number
    attribute whose words it is said with: its filter's units right after it ("7 seater"), its
    cues or its label near it ("mileage less than 15", "above 4 rating"); a word before a bound's
    words is that bound's ("price above 20 lakh and mileage over 15"). An amount of nothing
    named is the customer's amount fact when one is cued ("I earn 80k"), a head count or an hour
    (the language's words after it), or, as money, the pack's price (`search.rank_by`) if near
    what its items cost. A bound of an attribute no filter narrows ("late payment fee under 500"), or of
    a unit or a word the pack doesn't know ("battery above 5000 mAh"), is said back instead."""

    WINDOW = 3  # words between an amount's bound and the words for what it is of: "mileage of at least 15"

    def __init__(self, catalog: Catalog, money: Money, known: Callable[[str], bool]):
        """`known(word)`: whether a word is the business's or a language's, and so names no attribute of its own."""
        pack = catalog.pack
        self.pack, self.languages, self.money, self.known = pack, catalog.languages, money, known
        numbers = {name: a for name, a in pack.attributes.items() if a.type == "number"}
        units = {n: a.filter.units if a.filter else _unit_words(a) for n, a in numbers.items()}
        cues = {n: a.filter.cues for n, a in numbers.items() if a.filter}
        labels = {n: [_label_words(a.label)] for n, a in numbers.items()}
        self._said_of: tuple[tuple[Literal["unit", "cue", "label"], PhraseMatcher], ...] = (
            ("unit", PhraseMatcher(units, after_digits=True)),
            ("cue", PhraseMatcher(cues)),
            ("label", PhraseMatcher(labels)),
        )
        said = [phrase for section in (units, cues, labels) for phrases in section.values() for phrase in phrases]
        self.words = frozenset(w for phrase in said for w in normalise(phrase).split())  # "ram 16": an amount, not a name
        price = pack.search.rank_by
        self.price = next((name for name, f in pack.filters.items() if f.attribute == price and f.filter is f.of.filter), None)
        costs = [p.value(price) for p in catalog.products if isinstance(p.value(price), (int, float))]
        self.plausible = (min(costs) / 10, max(costs) * 10) if costs else (0, LARGEST)  # what the items cost, and then some

    def read(self, text: str, awaiting: str | None, told: list[str], bare_fact: str | None) -> _Said:
        """`text`: the message as `_spaced` reads it, native digits as ASCII ones and the numbers
        of names blanked. `awaiting`: the filter a question just asked for, which an amount of
        nothing named answers. `told`: the amount facts the message cues ("salary"), each the
        first amount of money of nothing named; `bare_fact`: the fact asked for, which it is uncued."""
        bounds = [b for b in self.languages.bounds(text) if b.value < LARGEST]
        owners = self._owners(text, bounds)
        facts = self._facts(text, bounds, owners, [*told, *([bare_fact] if bare_fact else [])])
        filters: dict[str, FilterValue] = {}
        unapplied: list[str] = []
        phrases = [text[b.first : b.last] for b in bounds] + [text[o.start : o.end] for o in owners if o]
        for bound, owner in zip(bounds, owners, strict=True):
            if owner is not None:
                if owner.how != "fact":
                    self._bind(text, bound, owner, filters, unapplied)
            elif bound.measure in ("people", "hour"):  # "for more than 6 people", "between 7 and 8 pm"
                continue
            elif awaiting:  # "1500" to "what's your budget?"; "above 20000" says which way
                filtering = self.pack.filters[awaiting]
                bound_name = self.pack.bound(filtering.attribute, bound.direction) if bound.direction else None
                filters[bound_name or awaiting] = _number(bound.value)
            elif (stranger := self._stranger(text, bound)) is not None:
                if bound.direction:
                    unapplied.append(text[stranger : bound.last].strip())
            elif (priced := self._priced(text, bound)) and all(self._priced(text, b) for b in _range_of(bound, bounds)):
                filters[priced] = _number(bound.value)  # a range's ends are both the price, or neither is
        words = frozenset(w for phrase in [*phrases, *unapplied] for w in re.findall(rf"{LETTER}+", phrase))
        return _Said(filters, unapplied, facts, words)

    def _facts(self, text: str, bounds: list[Bound], owners: list[_Of | None], facts: list[str]) -> dict[str, int]:
        """Each fact's amount, the first amount of money of nothing named, marked as the fact's in `owners`."""
        told: dict[str, int] = {}
        for name in dict.fromkeys(facts):
            free = [i for i, b in enumerate(bounds) if owners[i] is None and b.measure not in ("people", "hour")]
            found = next((i for i in free if self._money(text, bounds[i])), None)
            if found is not None:
                told[name] = int(round(bounds[found].value))
                owners[found] = _Of(bounds[found].start, bounds[found].end, name, "fact")
        return told

    def _bind(self, text: str, bound: Bound, owner: _Of, filters: dict[str, FilterValue], unapplied: list[str]) -> None:
        """The filter an amount of an attribute sets: in the direction said, else its filter's own
        when its cue or unit is said ("7 seater", "budget 35k"), never a fee said with no bound."""
        declared = self.pack.attributes[owner.name].filter
        direction = bound.direction
        if direction is None and owner.how != "label" and declared and declared.match in BOUNDS and not declared.needs_bound:
            direction = declared.match
        if direction is None:
            return
        name = self.pack.bound(owner.name, direction)
        if name is None:  # "late payment fee under 500", where that fee is no filter
            unapplied.append(text[min(owner.start, bound.first) : max(owner.end, bound.last)].strip())
        else:
            filters[name] = _number(bound.value)

    def _owners(self, text: str, bounds: list[Bound]) -> list[_Of | None]:
        """What each amount is said of, by the words said with it, then by those near it."""
        spans = outermost(
            [_Of(s.start, s.end, s.value, how) for how, matcher in self._said_of for s in matcher.spans(text, how != "unit")]
        )
        owners: list[_Of | None] = [None] * len(bounds)
        for i, bound in enumerate(bounds):  # said with it: "15 lakh", "7 seater", "16gb ram or more", "6 airbags"
            later = [b.first for b in bounds[i + 1 :] if b.first > bound.last]
            owners[i] = next((s for s in spans if _with(text, bound, s, later) and s not in owners), None)
        for span in (s for s in spans if s not in owners):  # before its bound ("mileage over 15"), else after it ("above 4 rating")
            ahead = [i for i, b in enumerate(bounds) if b.first >= span.end and _words(text, span.end, b.first) <= self.WINDOW]
            behind = [i for i, b in enumerate(bounds) if b.last <= span.start and _words(text, b.last, span.start) <= self.WINDOW]
            chosen = next((i for i in [*ahead[:1], *behind[-1:]] if owners[i] is None), None)
            if chosen is not None:
                owners[chosen] = span
        for i, bound in enumerate(bounds):  # a range is of one thing: "price between 10 and 15 lakh"
            if owners[i] is None:
                owners[i] = next((owners[bounds.index(b)] for b in _range_of(bound, bounds) if b != bound), None)
        return owners

    def _money(self, text: str, bound: Bound) -> bool:
        """An amount of money as said: with the currency, a scale ("80k", "1.5 lakh"), or from 1,000 up."""
        return self.money.marks_amount(text, bound) or bound.scale is not None or bound.value >= 1000

    def _stranger(self, text: str, bound: Bound) -> int | None:
        """Where the words start of what an amount is said of when the pack doesn't know it: a
        word right before its bound ("battery above 5000"), or a unit after it ("5000 mAh")."""
        if self.money.marks_amount(text, bound) or bound.scale is not None:
            return None
        said = _LAST_WORDS.search(text, max(0, bound.first - REACH), bound.first)
        if said and bound.first < bound.start:  # "boot space above 400 litres": the words no one knows, up to two
            last_first = reversed(list(_WORD.finditer(text, said.start(), said.end())))
            unknown = list(itertools.takewhile(lambda word: not self.known(word[0]), last_first))
            if unknown:
                return unknown[-1].start()
        return bound.first if bound.measure == "unit" else None

    def _priced(self, text: str, bound: Bound) -> str | None:
        """The price filter an amount of nothing named sets, if it is what an item costs: money
        ("₹20 lakh", "80k"), or a bound the price filter takes with no cue ("under 800"), near
        what the items cost."""
        if self.price is None or not self.plausible[0] <= bound.value <= self.plausible[1]:
            return None
        filtering = self.pack.filters[self.price]
        money = self.money.marks_amount(text, bound) or bound.scale is not None
        needs_bound = filtering.filter.needs_bound
        if not ((money or bound.value >= 1000 or not needs_bound) if bound.direction else money and not needs_bound):
            return None
        direction = bound.direction or filtering.filter.match
        return self.pack.bound(filtering.attribute, direction) if direction in BOUNDS else None


_WORD = re.compile(r"[a-z]{3,}")
_LAST_WORDS = re.compile(r"(?:[a-z]{3,}\s+)?[a-z]{3,}\s*\Z")  # the last two words before a bound


def _with(text: str, bound: Bound, span: _Of, later: list[int]) -> bool:
    """Whether words are said with an amount: among its bound's words ("15 lakh", "16gb ram or
    more"), or right after the amount or its bound ("1500 for two", "4 and above rating"), unless
    they lead into the next bound (`later`: where those start): "16GB ขึ้นไป งบไม่เกิน 40000"."""
    if span.start < bound.last and span.end > bound.first:
        return True
    after = any(span.start >= at and not text[at : span.start].strip(" -") for at in (bound.end, bound.last))
    leading = span.how != "unit" and any(at >= span.end and not text[span.end : at].strip(" -") for at in later)
    return after and not leading


def _range_of(bound: Bound, bounds: list[Bound]) -> list[Bound]:
    """The bounds said as one range with this one ("between 10 and 15 lakh"), itself among them."""
    return [b for b in bounds if (b.first, b.last) == (bound.first, bound.last)]


def _words(text: str, start: int, end: int) -> int:
    return len(text[start:end].split())


def _label_words(label: str) -> str:
    """An attribute's label as customers say it: "Safety rating (NCAP)" is "safety rating"."""
    return normalise(re.sub(r"\(.*?\)", " ", label))


def _unit_words(attribute: Attribute) -> list[str]:
    """A unit said after an amount of the attribute ("1500 cc"), when it is a word: not a currency, a percent or "/5"."""
    unit = attribute.unit
    return [unit] if unit and unit not in ("currency", "percent") and not unit.startswith("/") else []


class Understanding:
    """Turns a message (and what is pending in the session) into an `Intent`."""

    def __init__(self, catalog: Catalog, router: Router, help_centre: HelpCentre | None = None, details: Details | None = None):
        """`help_centre`: its article classifier is a second opinion on questions about items.
        `details`: the pack's service reader, whose reading fills filters the words did not."""
        self.catalog = catalog
        self.router = router
        self.help_centre = help_centre
        self.details = details
        vocabulary = catalog.vocabulary
        self.vocabulary = vocabulary
        self.languages = catalog.languages
        self.money = Money(catalog.business.currency_symbol, catalog.business.currency_words)
        self.numbers = frozenset(name for name, f in catalog.pack.filters.items() if f.of.type == "number")
        self.filters = {name: PhraseMatcher(section) for name, section in vocabulary.filters.items()}
        self.categories = {name: PhraseMatcher(section) for name, section in vocabulary.facts.items()}
        self.fact_numbers = {
            name: _NumberFact(fact, self.money.marks) for name, fact in catalog.pack.profile.items() if fact.kind == "number"
        }
        self.intents = PhraseMatcher(vocabulary.intents)
        self.ranks = PhraseMatcher({f"{name} {end}": said for name, ends in vocabulary.ranks.items() for end, said in ends.items()})
        self.features = PhraseMatcher(vocabulary.features)
        self.names = _name_matcher(catalog)
        self.amounts = _Amounts(catalog, self.money, self._names_nothing)
        self.rules = FilterRules(catalog)
        self.unfamiliar = Unfamiliar(catalog, catalog.languages)
        self.calculates = any("calculate" in tools for tools in catalog.pack.tools.values())

    @cached_property
    def _item_words(self) -> tuple[str, ...]:
        """The business's words for its items ("card", "cars"), which "that" or "the second" may stand before."""
        return tuple(dict.fromkeys(normalise(self.catalog.text[key]) for key in ("item", "items")))

    @cached_property
    def _filter_nouns(self) -> dict[str, list[str]]:
        """What customers call each filter ("brand", "budget", "fee"): its attribute's label and its cues."""
        return {
            name: [normalise(attribute.label), *(normalise(cue) for cue in attribute.as_filter.cues)]
            for name, (_, attribute) in self.catalog.pack.filter_attributes().items()
        }

    def _dropped(self, clean: str, filters: dict[str, FilterValue]) -> list[str]:
        """The filters the message takes back ("any brand"), a number's both bounds ("no budget" drops a floor too)."""
        pack = self.catalog.pack
        named = {pack.filters[name].attribute for name in self.languages.dropped(clean, self._filter_nouns)}
        return [name for name, f in pack.filters.items() if f.attribute in named and name not in filters]

    @cached_property
    def _known_words(self) -> set[str]:
        """Words that are in the vocabulary as they are: never 'corrected' by typo matching."""
        sections = [
            *self.vocabulary.filters.values(),
            *self.vocabulary.facts.values(),
            self.vocabulary.intents,
            self.vocabulary.features,
        ]
        return {w for s in sections for phrases in s.values() for p in phrases for w in p.split()}

    def detect(
        self,
        text: str,
        has_products: bool,
        pending: Pending | None = None,
        awaiting: str | None = None,
        shown: Sequence[str] = (),
    ) -> Intent:
        """`awaiting` is the filter a clarifying question just asked for: a bare number answers it.
        `shown`: the items on screen, which a name that fits several means first ("the asus tuf")."""
        said = self.languages.digits(text)
        text = self.languages.amounts(said)
        name = self.languages.person(text, self._known_word)  # "my name is Rafiqul Islam": no Islamic card asked for
        name = name if name and name in text else None  # as written, capitalised: "i'm interested" gives none
        clean = _unnamed(normalise(text), name)
        words = [w for w in re.findall(r"[a-z]+", clean) if w not in self._known_words]
        amounts = self._amounts(said, name, awaiting, clean, pending)
        filters = {**amounts.filters, **self._filters(self._without_facts(clean), words)}  # "my own shop" is no shopping
        if self.details:  # "in Bandra" names Mumbai: the service reader knows each area's city
            known = self.vocabulary.filters
            read = self.details.read(text, dt.date.today())
            filters |= {
                name: value for name, value in read.items() if name in known and name not in filters and value in known[name]
            }
        profile = self._profile(clean, words, pending, amounts.facts)
        cues = set(self.intents.exact(clean))
        rank = self._rank(clean, cues)
        lines = self.catalog.pack.display.lines_named(self._own_words(clean))
        topics = list(dict.fromkeys([*self._own_features(clean), *lines]))
        named = self._named(clean, filters, shown) or self._named(self._in_english(clean), filters, shown)
        pointing = self.languages.pointing(clean, self._item_words)
        dropped = self._dropped(clean, filters)
        absent = [] if named else self.unfamiliar.find(text)
        wants_comparison = "comparison" in cues
        wants_eligibility = "eligibility" in cues and bool(self.catalog.pack.eligibility)

        expression = find_expression(text) if self.calculates else None
        answers = pending == "clarify_product" and bool(filters)  # "platinum", "1500" after "Which tier?"
        spelled = self._spelled(_unnamed(normalise(text, _ASKED_MARKS), name))
        kind, confidence = self._kind(
            spelled,
            clean,
            cues,
            expression,
            pending,
            profile,
            answers,
            searching=bool(filters or named),
            naming=bool(named),
            priced=any(name in self.numbers for name in filters) or rank is not None,
            amount_words=amounts.words,
        )
        if kind == "thanks":
            kind, thanks = "greeting", True
        else:
            thanks = False
        about_items = has_products or bool(filters) or bool(named)
        if kind == "feature_query" and not about_items:
            kind = "faq"  # "what is the late fee?" with nothing at hand is for the help centre
        elif kind in HELP_INTENTS and topics and (has_products or named):
            kind = "feature_query"  # a fact the items at hand hold, answered from their data
        elif (
            rank is not None
            and not named
            and (
                kind in ("comparison", "feature_query", "unknown")
                or (has_products and (kind == "unknown" or (kind == "faq" and confidence < SURE)))
            )
        ):
            kind = "product_info"  # "which is the cheapest?", "anything cheaper?": a ranking, where the pipeline decides of what
        if name and kind in ("unknown", "out_of_scope", "faq") and not (filters or named or profile):
            kind = "greeting"  # "my name is Rafiqul Islam": an introduction, not a question
        if absent and not named and kind in ("feature_query", "comparison"):
            kind = "product_info"  # "any PlayStation 5 in stock?", "is the Galaxy S23 good?": not about the items at hand
        pointing_only = bool(pointing) and has_products and kind in ("unknown", "greeting") and not thanks  # "and the last one?"
        leading = bool(self.languages.dropped(clean, self._filter_nouns, leading=True))  # "forget the fee limit"
        naming = (bool(leading or named) and kind in ("unknown", "greeting", "out_of_scope") and not thanks) or pointing_only
        naming |= leading and kind in ("feature_query", "faq") and not named  # no question about fees
        refining = bool(filters) and has_products and (kind == "unknown" or (kind == "faq" and confidence < SURE))
        refining &= not self._of_a_feature(filters, clean, cues)  # "how does contactless work?" is help, whatever is on screen
        bounded = any(n in self.numbers for n in filters)
        refining |= kind in ("feature_query", "unknown") and not has_products and not named and bounded
        refining |= kind == "feature_query" and not topics and not named and bounded  # "between 10 and 15 lakh": no fact asked
        refining |= kind == "feature_query" and bounded and "want" in cues  # "mileage less than 15 wale dikhao": show those
        if naming or refining or (absent and kind == "unknown" and ("want" in cues or bool(filters))):
            kind = "product_info"  # "any brand", "got a Corolla?", "the XUV700?", "aur 20 lakh tak?": about items after all
        if profile and kind in ("unknown", "out_of_scope"):
            kind = "eligibility_check"  # a fact told is never "didn't get that": it is used at once
        kind = self._served(kind)  # after the above: "book a table for 4" where the pack books nothing is no price question
        if kind in ("comparison", "eligibility_check"):  # "compare them and check if I'm eligible"
            wants_comparison |= kind == "comparison"
            wants_eligibility |= kind == "eligibility_check"
            kind = "comparison" if wants_comparison else kind
        elif kind not in NEEDS_PRODUCTS:  # "compare" in a help question is no request to compare
            wants_comparison = wants_eligibility = False
        if kind != "calculate":
            expression = None
        return Intent(
            type=kind,
            filters=filters,
            named=named,
            pointing=pointing,
            name=name,
            follow_up=(naming and bool(named)) or (kind == "product_info" and confidence < CONFIDENT and not cues),
            dropped=dropped if kind == "product_info" else [],
            absent=absent if kind in NEEDS_PRODUCTS else [],
            unapplied=amounts.unapplied if kind in NEEDS_PRODUCTS else [],
            expression=expression,
            wants_comparison=wants_comparison,
            wants_eligibility=wants_eligibility and bool(self.catalog.pack.eligibility),
            feature_topics=topics,
            feature_lines=[label for labels in lines.values() for label in labels],
            rank=rank if kind in NEEDS_PRODUCTS else None,
            rank_all=pointing.superlative and bool(filters or set(self._item_words) & set(clean.split())),
            thanks=thanks,
            profile=profile,
            confidence=confidence,
            sure=kind != "unknown",
            read_as=spelled,
        )

    def _of_a_feature(self, filters: dict[str, FilterValue], clean: str, cues: set[str]) -> bool:
        """Whether a message names only what items mention (a feature, a place), and no item nor
        a wish for one: "how does contactless work?", unlike "cards with contactless"."""
        mentions = all(self.catalog.pack.filters[name].filter.match == "mentions" for name in filters)
        return bool(filters) and mentions and "want" not in cues and not set(self._item_words) & set(clean.split())

    def _kind(
        self,
        spelled: str,
        clean: str,
        cues: set[str],
        expression: str | None,
        pending: Pending | None,
        profile: dict[str, FactValue],
        answers: bool,
        searching: bool,
        naming: bool,
        priced: bool,
        amount_words: frozenset[str] = frozenset(),
    ) -> tuple[str, float]:
        """The intent, and how sure of it we are. What the conversation is waiting for comes
        first (an answer to a profile or clarifying question); a message of catalog words is a
        search; in a script the model cannot read, the pack's words decide. Then the router,
        trained on the pack's examples, with the help centre as a second opinion on unsure
        readings about items. When the router is unsure, a phrase of the pack's vocabulary may
        settle it among its likely intents; otherwise the message is not understood.
        `amount_words`: the words the message's amounts are said in ("rated above 4.5"), catalog words too."""
        if not clean:
            return "greeting", 1.0
        if pending in self.catalog.pack.profile and profile:
            return "eligibility_check", 1.0
        if answers and not self._only_catalog_words(spelled, amount_words):  # "some keys on my keyboard stopped working"
            if self.router.blind(spelled):
                device = self.catalog.pack.device_filter
                answers = "support" not in cues and not self._article_for(self._without_filters(spelled, keep=device))
            else:
                routed = self.router.route(spelled)
                answers = routed.intent in NEEDS_PRODUCTS or routed.confidence < CONFIDENT
        if answers:
            return "product_info", 1.0
        if searching and self._only_catalog_words(spelled, amount_words):  # "amex gold", "mouse between 1000 and 2000 baht"
            return "product_info", 1.0
        if self.router.blind(spelled):  # a script the model can't read: the pack's words decide
            if expression:
                return "calculate", 1.0
            cue = next((cue for cue in _CUE_INTENTS if cue in cues), None)
            if cue:
                return _CUE_INTENTS[cue], PLAUSIBLE
            if priced:  # "มีโน้ตบุ๊ค...ไม่เกิน 20000 ไหม", "…แรมเยอะที่สุด": a budget or a ranking is for buying
                return "product_info", PLAUSIBLE
            device = self.catalog.pack.device_filter
            if self._article_for(self._without_filters(spelled, keep=device)):  # "จอมอนิเตอร์กระพริบ": a fix, not a sale
                return "faq", PLAUSIBLE
            return ("product_info", PLAUSIBLE) if searching else ("unknown", 0.0)
        routed = self.router.route(spelled)
        if expression and ("calculate" in cues or routed.intent == "calculate"):
            return "calculate", 1.0
        if searching and routed.intent == "out_of_scope":  # it names what we sell: not out of scope
            routed = Routed(routed.ranked[1:])
        if routed.intent in NEEDS_PRODUCTS and not searching and routed.confidence < SURE and self._article_for(spelled):
            return "faq", routed.confidence  # "are extra cards free?": names nothing we sell, and an article answers
        if routed.confidence >= CONFIDENT:
            return routed.intent, routed.confidence
        asking_for = searching and "want" in cues  # "show me gold ones instead": a search, whatever an article says
        told = bool(profile) and bool(self.catalog.pack.eligibility)
        if told and not asking_for and (routed.probability("eligibility_check") >= PLAUSIBLE or not self._article_for(spelled)):
            return "eligibility_check", routed.probability("eligibility_check")  # "amar salary 80k", "I'm a business owner"
        if not naming and not asking_for and self._article_for(spelled):  # unsure, an article answers, no item named
            return "faq", routed.confidence
        for cue in _CUE_INTENTS:
            if cue in cues and routed.probability(_CUE_INTENTS[cue]) >= PLAUSIBLE:
                return _CUE_INTENTS[cue], routed.probability(_CUE_INTENTS[cue])
        if searching and routed.intent == "product_info":  # the catalog's own words, and a search is likeliest
            return "product_info", routed.confidence
        if naming and "want" in cues:  # "show me the Legion 5": wanting an item by its name
            return "product_info", PLAUSIBLE
        return "unknown", routed.confidence

    def _rank(self, clean: str, cues: set[str]) -> Rank | None:
        """What the message ranks by: the pack's words for an attribute's end ("more powerful"),
        else its words for the cheapest by rank_by."""
        found = self.ranks.exact(clean)
        if found:
            attribute, best = found[0].split()
            return Rank.model_validate({"attribute": attribute, "best": best})  # the vocabulary's own ends
        return Rank(attribute=self.catalog.pack.search.rank_by, best="low") if "cheapest" in cues else None

    def _article_for(self, text: str) -> bool:
        """Whether the help centre is sure an article answers the message."""
        if self.help_centre is None:
            return False
        return self.help_centre.answer(text) is not None

    def _served(self, intent: str) -> str:
        """An intent the pack serves; a request for something it lacks is a help question."""
        pack = self.catalog.pack
        if intent == "eligibility_check":
            return intent if pack.eligibility else "faq"
        return "faq" if intent in ("booking", "support") and pack.flow_for(intent) is None else intent

    @cached_property
    def _speller(self) -> Speller:
        """Corrects the pack's words, never the model's nor a language's it reads in English:
        Banglish "jabe" (will go) is no typo of the examples' "pabe" (will get)."""
        texts = [t for ts in self.catalog.examples.intents.values() for t in ts]
        reading = self.router.reading
        return Speller(
            [w for t in [*texts, *self._known_words] for w in re.findall(r"[a-z]+", t.lower())],
            lambda word: self.router.embedder.knows(word) or (reading is not None and reading.glosses(word)),
        )

    def _without_filters(self, text: str, keep: str | None = None) -> str:
        """The message with its filter values blanked but `keep`'s: what it says besides naming
        items ("दिल्ली में इटालियन" names a city and a cuisine, which an article may name too)."""
        for name, matcher in self.filters.items():
            text = text if name == keep else matcher.without(text)
        return text

    @cached_property
    def _amount_words(self) -> frozenset[str]:
        """Words a number after is an amount ("price 30000", "ram 16"): what amounts are said of, and the currency's words."""
        return self.amounts.words | {normalise(w) for w in self.catalog.business.currency_words}

    @cached_property
    def _not_names(self) -> frozenset[str]:
        """Words a number after is an amount, not a model's: "price 30000", "ram 16", "suv 10-15 lakh"."""
        sections = self.vocabulary.filters.values()
        return self._amount_words | {
            w for section in sections for phrases in section.values() for p in phrases for w in normalise(p).split()
        }

    def _names_nothing(self, word: str) -> bool:
        """Whether a word is the business's or a language's, never what a number is said of
        that the pack doesn't know ("cars above 20 lakh", unlike "battery above 5000")."""
        return (
            word in self._known_words
            or word in self._filler
            or word in self._amount_words
            or word in self.vocabulary.words
            or self.languages.lists(word)
            or bool(self.names(word))
        )

    def _without_facts(self, clean: str) -> str:
        """The message without the phrases of several words that tell a fact about the customer
        ("my own shop", "I run a business"): their words are theirs, not a filter's."""
        for matcher in self._fact_phrases:
            clean = matcher.without(clean)
        return clean

    @cached_property
    def _fact_phrases(self) -> list[PhraseMatcher]:
        return [
            PhraseMatcher({value: [p for p in phrases if " " in p.strip()] for value, phrases in section.items()})
            for section in self.vocabulary.facts.values()
        ]

    def _known_word(self, word: str) -> bool:
        """A word of the business's own (no part of a name): "Islamic" is one, "Islam" is not."""
        return word.lower() in self.vocabulary.words

    def _only_catalog_words(self, text: str, amount_words: frozenset[str] = frozenset()) -> bool:
        """Whether the message says nothing but filter values, item words, little words and the
        words of its amounts, in any script ("โน้ตบุ๊คเปิดไม่ติด" says more than "laptop")."""
        return not set(re.findall(rf"{LETTER}+", self._without_filters(text))) - self._filler - amount_words

    def _own_features(self, clean: str) -> list[str]:
        """The items' features a message names, but for a one-word one said as the head of another
        thing's name ("today's exchange rate", "the transfer fee"): a word of ours stands before
        it, or a little one ("its rate", "gold card fee"), never one we don't know."""
        spans = self.features.spans(clean)
        return list(dict.fromkeys(s.value for s in spans if not self._modified(clean, s.start, clean[s.start : s.end])))

    def _own_words(self, clean: str) -> set[str]:
        """The message's words, less those only ever said as the head of another thing's name."""
        said = [(m.start(), m[0]) for m in re.finditer(r"\w+", clean)]
        heads = {word for at, word in said if self._modified(clean, at, word)}
        return {word for at, word in said if word not in heads or not self._modified(clean, at, word)}

    def _modified(self, clean: str, at: int, said: str) -> bool:
        """Whether a one-word name in Latin letters follows a Latin word we don't know ("exchange rate")."""
        before = re.findall(r"[a-z]+(?=\W*$)", clean[:at])
        known = self._known_words | self._filler | self.languages.stop_words | self.languages.pointer_words
        return bool(re.fullmatch(r"[a-z]+", said) and before and before[-1] not in known)

    @cached_property
    def _filler(self) -> frozenset[str]:
        """Little words and the item's own name ("card", "cards"): no request on their own."""
        return self.languages.stop_words | {w for key in ("item", "items") for w in self.catalog.text[key].lower().split()}

    def _spelled(self, clean: str) -> str:
        """The message with typos of the pack's words corrected ("credit crad"), for the router:
        one misspelt word can move a short message's embedding to another intent."""
        return re.sub(r"[a-z]{4,}", lambda m: self._speller.correct(m.group(0)), clean)

    def _amounts(self, said: str, name: str | None, awaiting: str | None, clean: str, pending: Pending | None) -> _Said:
        """What the message's amounts set: `said` is the message with native digits as ASCII
        ones; the numbers of models' names ("RTX 4060", "iPhone 15") and of the customer's own
        name are no amounts, nor, answering a question, those of the items' names."""
        text = _spaced(said, _BOUND_MARKS)
        if name:
            text = re.sub(rf"(?<!\w){re.escape(name.lower())}(?!\w)", lambda m: " " * len(m[0]), text)
        text = self.languages.unnamed(self.names.without(text) if awaiting else text, self._not_names.__contains__)
        facts = self.catalog.pack.profile
        told = [n for n, fact in facts.items() if fact.kind == "amount" and any(cue in clean for cue in fact.cues)]
        asked = pending if pending in facts else None
        amounts = [n for n, fact in facts.items() if fact.kind == "amount" and fact.question]
        bare = asked if asked in amounts else amounts[0] if asked and amounts else None  # what a bare amount answers
        return self.amounts.read(text, awaiting if awaiting in self.catalog.pack.filters else None, told, bare)

    def _filters(self, clean: str, words: list[str]) -> dict[str, FilterValue]:
        """The filters the vocabulary's phrases set, typos and all ("platnum"), and the amounts
        its phrases stand for ("no annual fee"). What the items are is not asked for inside
        another filter's phrase: "a laptop with a backlit keyboard" wants no keyboard."""
        found = {name: matcher.spans(clean) for name, matcher in self.filters.items()}
        inside = {(s.start, s.end) for spans in found.values() for s in outermost(spans)}
        filters: dict[str, FilterValue] = {}
        for name, matcher in self.filters.items():
            spans = found[name]
            if name in self._nouns:
                spans = [s for s in spans if not any(a <= s.start and s.end <= b and b - a > s.end - s.start for a, b in inside)]
            values = list(dict.fromkeys(span.value for span in spans))
            if name in self.numbers:  # a phrase for a number: "no annual fee" is 0
                if values:
                    filters[name] = _number(values[0])
                continue
            values += [v for v in matcher.fuzzy(words) if v not in values]
            if values:
                filters[name] = values[0] if len(values) == 1 else values
        return filters

    @cached_property
    def _nouns(self) -> frozenset[str]:
        """The filters that say what the items are ("laptop", "credit card")."""
        return frozenset(name for name, f in self.catalog.pack.filters.items() if f.filter.place == "noun")

    def _named(self, clean: str, filters: dict[str, FilterValue], shown: Sequence[str]) -> list[str]:
        """Items the message names, one per mention ("compare Thar and Scorpio"): of the items a
        name fits, those on screen, else those that fit the message's filters too, the first by rank_by."""
        named: list[str] = []
        for ids in self.names(clean):
            items = self.catalog.products_by_id(ids)
            on_screen = [p for p in items if p.id in shown]
            fitting = on_screen or [p for p in items if self.rules.matches(p, filters)] or items
            best = min(fitting, key=lambda p: rank_key(p, self.catalog)).id
            if best not in named:
                named.append(best)
        return named

    def _in_english(self, clean: str) -> str:
        """A message in another script read in English, whose sounded-out loanwords spell the
        catalog's names as the catalog has them: "ভিসা গোল্ড ক্রেডিট কার্ড" names the Visa Gold
        Credit Card. Latin messages are matched as written: a gloss's "city" is no Honda City."""
        english = None if clean.isascii() or self.router.reading is None else self.router.reading.english(clean)
        return normalise(english) if english else ""

    def _profile(self, clean: str, words: list[str], pending: Pending | None, amounts: dict[str, int]) -> dict[str, FactValue]:
        """The facts the message tells, as the pack declares them: a category by its words, an
        amount by its cues (`amounts`, read with the message's other amounts: a correction keeps
        the amount meant), a number by its cues or units. While a fact is asked for, answers
        come in any order: a bare amount answers the amount asked for, or else the first amount
        the pack asks about, and a bare number the number fact asked for."""
        facts = self.catalog.pack.profile
        asked = pending if pending in facts else None
        told: dict[str, FactValue | None] = {}
        for name, fact in facts.items():
            if fact.kind == "category":
                told[name] = next(iter(self.categories[name].find(clean, words)), None) if name in self.categories else None
            elif fact.kind == "amount":
                told[name] = amounts.get(name)
            else:
                told[name] = self.fact_numbers[name].read(clean, asked == name)
        return {name: value for name, value in told.items() if value is not None}


class Speller:
    """Corrects a word one typo away (a letter missing, extra, wrong, or two swapped) from a
    word of the pack, preferring the commonest; a word of the language ("wait") stays as it is.
    Known words' one-letter deletions are indexed once, so a lookup is a few dictionary hits rather than a scan of the lexicon."""

    def __init__(self, words: list[str], is_word: Callable[[str], bool]):
        self._frequency = Counter(words)
        self._is_word = is_word
        self._by_deletion: dict[str, set[str]] = {}
        for word in self._frequency:
            for variant in _deletions(word) | {word}:
                self._by_deletion.setdefault(variant, set()).add(word)
        self.correct = lru_cache(maxsize=4096)(self._correct)

    def _correct(self, word: str) -> str:
        if word in self._frequency or self._is_word(word):
            return word
        candidates = {c for v in _deletions(word) | {word} for c in self._by_deletion.get(v, ()) if _one_typo(word, c)}
        return max(sorted(candidates), key=self._frequency.__getitem__, default=word)


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _one_typo(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or swap of neighbours apart."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


class _NumberFact:
    """A number customers tell about themselves ("age 61", "34 years", "I'm 25"): right after
    one of its cues or right before one of its units, within its range, and never an amount
    ("I am 50 dollars short", "I'm 30%"); alone when it was asked for."""

    def __init__(self, fact: CustomerFact, currency: str):
        cues = "|".join(re.escape(c) for c in sorted(fact.cues, key=len, reverse=True))
        units = "|".join(re.escape(u) for u in sorted(fact.units, key=len, reverse=True))
        said = [rf"(?<!\w)(?:{cues})\s*(\d+)\b(?!\s*(?:{currency}|%))"] if cues else []
        said += [rf"(?<![\w.])(\d+)\s*-?\s*(?:{units})(?!\w)"] if units else []
        self.pattern = re.compile("|".join(said))
        self.fact = fact

    def read(self, clean: str, asked: bool) -> int | None:
        found = [int(n) for match in self.pattern.finditer(clean) for n in match.groups() if n]
        if asked and re.fullmatch(r"\d+", clean):
            found.append(int(clean))
        return next((n for n in found if self.fact.accepts(n)), None)


class _Names:
    """Mentions of items by name, or by the values of the pack's name attributes ("Thar",
    "Scorpio" for every Scorpio-N and Scorpio Classic), in order of mention."""

    def __init__(self, aliases: dict[str, set[str]]):
        self._aliases = aliases
        self._matcher = PhraseMatcher({alias: [alias] for alias in aliases})

    def __call__(self, clean: str) -> list[list[str]]:
        return [sorted(self._aliases[alias]) for alias in self._matcher.exact(clean)]

    def without(self, clean: str) -> str:
        """The text with every item name blanked: the 3 of "IdeaPad Gaming 3" is no budget."""
        return self._matcher.without(clean)


def _name_matcher(catalog: Catalog) -> _Names:
    aliases: dict[str, set[str]] = {}
    filter_words = {
        w
        for section in catalog.vocabulary.filters.values()
        for phrases in section.values()
        for phrase in phrases
        for w in normalise(phrase).split()
    }
    for item in catalog.products:
        aliases.setdefault(normalise(item.name), set()).add(item.id)
        for model in (normalise(str(item.value(a))) for a in catalog.pack.names if item.value(a)):
            first = re.split(r"[\s-]", model)[0]  # "Scorpio" for the Scorpio-N
            for alias in {model, first} if len(first) >= 4 else {model}:
                aliases.setdefault(alias, set()).add(item.id)
        words = normalise(item.name).split()
        # Customers shorten a name from its end, and often drop the brand in front: "galaxy a55",
        # "legion 5", or just the model code ("g502").
        starts = (0, 1) if words and words[0] in filter_words else (0,)
        for word in words if catalog.pack.short_names else ():  # a variant's code: "the AX7", "the 15ARH7"
            if len(word) >= 3 and re.search(r"\d", word) and re.search(r"[a-z]", word) and word not in filter_words:
                aliases.setdefault(word, set()).add(item.id)
        for start in starts if catalog.pack.short_names else ():
            code = words[start] if start < len(words) else ""
            if len(code) >= 4 and re.search(r"\d", code) and re.search(r"[a-z]", code):
                aliases.setdefault(code, set()).add(item.id)
            for cut in range(start + 2, len(words) + (start > 0)):
                if set(words[start:cut]) - filter_words:  # "Maruti Suzuki" is a brand, not a car
                    aliases.setdefault(" ".join(words[start:cut]), set()).add(item.id)
    return _Names(aliases)


def _number(said: str | Decimal) -> int | float:
    value = float(said)
    return int(value) if value.is_integer() else value
