"""Rule-based understanding: intent, product filters and profile facts from one message.

Everything it knows about words comes from the business's vocabulary file; the rules here
are generic: phrase matching on word boundaries, typo tolerance for longer words, and
amounts in the forms customers type ("80k", "1.5 lakh", "৳50,000", "50 hajar taka").
"""

from __future__ import annotations

import re
from difflib import get_close_matches
from functools import cached_property, lru_cache
from typing import Literal

from pydantic import BaseModel

from assistant.domain import FilterValue, Vocabulary
from assistant.state import PROFILE_FACTS, CustomerProfile, Pending, Wish

IntentType = Literal[
    "product_info", "comparison", "eligibility_check", "feature_query", "faq", "greeting", "booking", "cancel",
    "unknown",
]
NEEDS_PRODUCTS: tuple[IntentType, ...] = ("product_info", "comparison", "eligibility_check", "feature_query")

_BENGALI_DIGITS = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")
_MULTIPLIERS = {
    "k": 1_000, "thousand": 1_000, "hajar": 1_000, "hazar": 1_000, "hajaar": 1_000,
    "lakh": 100_000, "lakhs": 100_000, "lac": 100_000, "lacs": 100_000, "lakh.": 100_000,
    "crore": 10_000_000, "cr": 10_000_000, "m": 1_000_000, "million": 1_000_000,
}
_AMOUNT = re.compile(
    r"(?<![\w.])(?:(?:৳|tk\.?|bdt|taka)\s*)?(\d{1,3}(?:,\d{2,3})+|\d+(?:\.\d+)?)\s*"
    r"(k|thousand|hajaa?r|hazar|lakhs?|lacs?|crore|cr|million|m)?(?![a-z])\s*(৳|tk|taka|bdt)?"
)
_INCOME_CUES = (
    "earn", "income", "salary", "make", "per month", "a month", "monthly", "/month", "beton",
    "kamai", "kamata", "ay ", "aay", "income is", "take home",
)
_FEE_CUES = ("fee", "fees", "charge")
_NO_FEE = re.compile(r"\b(?:no|zero|without( an?)?|free of|0)\s+(?:annual|yearly)\s+fees?\b|\b(?:lifetime|fee)[ -]free\b")
_AGE = re.compile(
    r"(?:\bage(?:d)?\s*(?:is\s*)?(\d{2})\b|\b(\d{2})\s*(?:years?|yrs?|y/?o|bochor|saal|sal)\b"
    r"|\bi\s*(?:am|'m)\s*(\d{2})\b(?!\s*(?:k|lakh|taka|tk|%)))"
)
_FUZZY_MIN_LENGTH = 5
_FUZZY_CUTOFF = 0.84


class Intent(BaseModel):
    """What one message asks for. `filters` holds only what this message said."""

    type: IntentType
    filters: dict[str, FilterValue] = {}
    wants_comparison: bool = False
    wants_eligibility: bool = False
    feature_topics: list[str] = []
    cheapest_first: bool = False
    thanks: bool = False  # a "greeting" that closes rather than opens
    profile: CustomerProfile = CustomerProfile()
    sure: bool = True

    def wishes(self) -> list[Wish]:
        """What this message asked for beyond a plain list, to keep while we clarify."""
        flags = {"comparison": self.wants_comparison, "eligibility": self.wants_eligibility,
                 "cheapest": self.cheapest_first}
        return [wish for wish, wanted in flags.items() if wanted]

    def resume(self, wishes: list[Wish]) -> None:
        """Take back what the customer asked for before we stopped to ask a question."""
        self.wants_comparison |= "comparison" in wishes
        self.wants_eligibility |= "eligibility" in wishes
        self.cheapest_first |= "cheapest" in wishes

    def public(self) -> dict:
        return {"type": self.type, "filters": dict(self.filters)}


def normalise(text: str) -> str:
    text = text.translate(_BENGALI_DIGITS).lower()
    text = re.sub(r"[^\w\s৳.,'/%-]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


class PhraseMatcher:
    """Finds which values of a vocabulary section a text mentions."""

    def __init__(self, section: dict[str, list[str]]):
        self._patterns = {
            value: re.compile(
                r"(?<!\w)(?:" + "|".join(re.escape(p.lower()) for p in sorted(phrases, key=len, reverse=True)) + r")(?!\w)"
            )
            for value, phrases in section.items()
            if phrases
        }
        self._single_words = {
            phrase.lower(): value
            for value, phrases in section.items()
            for phrase in phrases
            if " " not in phrase and len(phrase) >= _FUZZY_MIN_LENGTH
        }

    def exact(self, text: str) -> list[str]:
        """Values mentioned, in order; a phrase inside a longer one ("islamic" in "non-islamic") does not count."""
        spans = [(m.start(), m.end(), value) for value, pattern in self._patterns.items()
                 for m in pattern.finditer(text)]
        found = {}
        for start, end, value in sorted(spans):
            if not any(s <= start and end <= e and (s, e) != (start, end) for s, e, _ in spans):
                found.setdefault(value, start)
        return sorted(found, key=found.get)

    def fuzzy(self, words: list[str]) -> list[str]:
        """Values whose single-word phrases are within a typo of some word ("platnum")."""
        return [value for word in words if len(word) >= _FUZZY_MIN_LENGTH and (value := self._closest(word))]

    @lru_cache(maxsize=4096)  # customers reuse words; difflib is the rules' most expensive step
    def _closest(self, word: str) -> str | None:
        close = get_close_matches(word, self._single_words, n=1, cutoff=_FUZZY_CUTOFF)
        return self._single_words[close[0]] if close else None

    def find(self, text: str, words: list[str]) -> list[str]:
        values = self.exact(text)
        values += [v for v in self.fuzzy(words) if v not in values]
        return values


class Understanding:
    """Turns a message (and what is pending in the session) into an `Intent`."""

    def __init__(self, vocabulary: Vocabulary):
        self.vocabulary = vocabulary
        self.filters = {name: PhraseMatcher(section) for name, section in vocabulary.filters.items()}
        self.employment = PhraseMatcher(vocabulary.employment)
        self.intents = PhraseMatcher(vocabulary.intents)
        self.features = PhraseMatcher(vocabulary.features)

    @cached_property
    def _known_words(self) -> set[str]:
        """Words that are in the vocabulary as they are: never 'corrected' by typo matching."""
        sections = [*self.vocabulary.filters.values(), self.vocabulary.employment,
                    self.vocabulary.intents, self.vocabulary.features]
        return {w for s in sections for phrases in s.values() for p in phrases for w in p.split()}

    def detect(self, text: str, has_products: bool, pending: Pending | None = None) -> Intent:
        clean = normalise(text)
        words = [w for w in re.findall(r"[a-z]+", clean) if w not in self._known_words]
        filters = self._filters(clean, words)
        profile = self._profile(clean, words, pending)
        cues = set(self.intents.exact(clean))
        topics = self.features.exact(clean)
        wants_comparison = "comparison" in cues
        wants_eligibility = "eligibility" in cues

        if "cancel" in cues:
            kind = "cancel"
        elif wants_comparison:
            kind = "comparison"
        elif wants_eligibility:
            kind = "eligibility_check"
        elif pending in PROFILE_FACTS and profile.model_dump(exclude_none=True):
            kind, wants_eligibility = "eligibility_check", True
        elif "booking" in cues:
            kind = "booking"
        elif "faq" in cues:
            kind = "faq"
        elif topics and (has_products or filters):
            kind = "feature_query"
        elif topics:
            kind = "faq"
        elif filters or cues & {"want", "cheapest"}:
            kind = "product_info"
        elif cues & {"greeting", "thanks"} or not clean:
            kind = "greeting"
        else:
            kind = "unknown"
        return Intent(
            type=kind,
            filters=filters,
            wants_comparison=wants_comparison,
            wants_eligibility=wants_eligibility or kind == "eligibility_check",
            feature_topics=topics,
            cheapest_first="cheapest" in cues,
            thanks=kind == "greeting" and "thanks" in cues,
            profile=profile,
            sure=kind != "unknown",
        )

    def _filters(self, clean: str, words: list[str]) -> dict[str, FilterValue]:
        filters: dict[str, FilterValue] = {}
        for name, matcher in self.filters.items():
            values = matcher.find(clean, words)
            if values:
                filters[name] = values[0] if len(values) == 1 else values
        fee_cap = self._amount_near(clean, _FEE_CUES)
        if fee_cap is not None and re.search(r"\b(under|below|less than|max|maximum|within|upto|up to|no more than)\b", clean):
            filters["max_annual_fee"] = fee_cap
        elif _NO_FEE.search(clean):
            filters["max_annual_fee"] = 0
        return filters

    def _profile(self, clean: str, words: list[str], pending: Pending | None) -> CustomerProfile:
        employment = self.employment.find(clean, words)
        income = self._amount_near(clean, _INCOME_CUES)
        if income is None and pending in ("employment", "monthly_income"):  # answers come in any order
            income = first_amount(clean)
        age_match = _AGE.search(clean)
        age = int(next(g for g in age_match.groups() if g)) if age_match else None
        if age is None and pending == "age" and re.fullmatch(r"\d{2}", clean):
            age = int(clean)
        return CustomerProfile(
            employment=employment[0] if employment else None,
            monthly_income=income,
            age=age if age is not None and 16 <= age <= 100 else None,
        )

    @staticmethod
    def _amount_near(clean: str, cues: tuple[str, ...]) -> int | None:
        if not any(cue in clean for cue in cues):
            return None
        return first_amount(clean)


def parse_amount(number: str, unit: str | None) -> int:
    value = float(number.replace(",", ""))
    return int(round(value * _MULTIPLIERS.get(unit or "", 1)))


def first_amount(clean: str) -> int | None:
    """The first money amount in normalised text, in whole taka ("1.5 lakh" -> 150000)."""
    for match in _AMOUNT.finditer(clean):
        number, unit, currency_after = match.groups()
        has_currency = bool(unit or currency_after or re.match(r"(৳|tk|bdt|taka)", match.group(0)))
        amount = parse_amount(number, unit)
        if has_currency or amount >= 1000:
            return amount
    return None
