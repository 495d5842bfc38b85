"""A Schema-Guided Dialogue service schema turned into an understanding of one user turn.

Nothing here is specific to restaurants: an SGD schema names its intents and slots and
describes them, and that is enough to read turns for it. Intents are scored by cue words taken
from their names and descriptions (widened by families of generic verbs, so "book" cues a
"ReserveRestaurant" and "look for" a "FindRestaurants"); each slot gets a kind guessed from its
name, description and possible values (a date, a time, a head count, a yes/no feature, a
categorical choice, a place, free text), and each kind has its finder. Free-text slots match
the known values a catalog supplies (VALUES.json) before falling back to span heuristics.
Categorical values and yes/no features are read with the languages' words for them (language
data, through wording.py): "budget-friendly" is cheap, "not too expensive" moderate, "no need
for outdoor seating" False, and a question about a place asks for nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypedDict

from assistant.language import Found, Languages, blank, shipped
from assistant.language.lexicon import key
from assistant.understanding.nlu.wording import Wording, any_of

DONTCARE = "dontcare"  # SGD's value for "any will do"
NO_INTENT = "NONE"  # SGD's intent for a turn that asks for nothing (closing the conversation)


class Prediction(TypedDict):
    """What a turn says: its intent, and the slots it sets (name to value)."""

    intent: str
    slots: dict[str, str]


class Kind(Enum):
    """What a slot holds, which decides how it is found and normalised."""

    DATE = "date"
    TIME = "time"
    COUNT = "count"
    BOOLEAN = "boolean"
    CATEGORICAL = "categorical"
    LOCATION = "location"
    TEXT = "text"


def words(text: str) -> list[str]:
    """Lower-case words of a name or description; snake_case and CamelCase are split."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")
    return re.findall(r"[a-z]+", spaced.lower())


def stem(word: str) -> str:
    """A crude stem, enough for "reservation"/"reserve"/"reserving" or "outdoors"/"outdoor" to meet."""
    for suffix in ("ations", "ation", "ings", "ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def stems(text: str) -> list[str]:
    return [stem(word) for word in words(text)]


_STOPWORDS = frozenset(
    "a an the of to for by at in on and or with from is are be make get do does user users its their "
    "which whether has have available tentative number name".split()
)

# Verb families: an intent whose own words touch a family gets the whole family as cues, so the
# many ways of saying "search" or "book" all count. Multi-word cues are matched as phrases.
_FAMILIES = (
    frozenset(
        {
            "find",
            "search",
            "look for",
            "looking for",
            "look around",
            "recommend",
            "suggest",
            "show",
            "browse",
            "discover",
            "get me some",
            "any other",
            "some other",
            "anything else",
            "something else",
            "another",
            "places",
            "list",
            "check out",
            "explore",
        }
    ),
    frozenset(
        {
            "reserve",
            "reservation",
            "book",
            "booking",
            "table",
            "schedule",
            "appointment",
            "buy",
            "purchase",
            "order",
            "set aside",
            "slot",
            "spot",
            "make it for",
            "rent",
            "hire",
            "transfer",
            "pay",
            "add",
        }
    ),
)
_SEARCH, _TRANSACT = _FAMILIES

# Words that name a yes/no feature in general rather than which feature it is.
_GENERIC_FEATURE = frozenset(
    stem(w)
    for w in (
        "has have is are allows allowed offers offered provides available options option seating serves "
        "facility facilities service services accepts welcome includes adequate good"
    ).split()
)

_CLAUSE = re.compile(r"[^.?!;।]+[.?!;।]*")
_AFFIRM = re.compile(
    r"^\W*(?:yes|yeah|yea|yep|yup|ye|sure|ok|okay|alright|all right|right|correct|exactly|perfect|great|fine|"
    r"good|sounds|that\W?s (?:right|correct|fine|good|great|perfect)|that (?:is|will|would|works|suits|sounds)|"
    r"it\W?s (?:fine|good|correct)|this (?:is|will)|works|go ahead|please do|i confirm|confirm|very well|"
    r"cool|excellent|wonderful|awesome|haan|ha|ji|theek|thik|i (?:like|think|'ll|will)|got it|you nailed)\b",
    re.IGNORECASE,
)
_DECLINE = re.compile(
    r"^\W*(?:no|nope|nah|not|nothing|that\W?s (?:all|it)|that is (?:all|it)|i\W?m good|"
    r"you can\W?t|no thanks)\b",
    re.IGNORECASE,
)
_MORE_HELP = re.compile(r"\b(?:else|more|another|other|further|still need|anything)\b", re.IGNORECASE)
_CAPITALISED = r"((?:[A-Z0-9][\w'&-]*)(?:\s+(?:[A-Z0-9][\w'&-]*|of|de|la|the|and|&))*)"
_PLACE_SPAN = re.compile(r"\b(?:in|around|near|at)\s+(?:the\s+city\s+(?:of\s+)?)?" + _CAPITALISED)
_NAME_SPAN = re.compile(r"\b(?:called|named|at|try|to)\s+(?:the\s+)?" + _CAPITALISED)
# Names made only of these words ("The Grill", "The City") are matched only as written, capitals and all.
_GENERIC_NAME_WORDS = frozenset(
    "the a of and city town grill bar restaurant cafe place kitchen house table spot diner inn club room "
    "garden corner one salon studio shop store centre center hotel clinic".split()
)
_NOT_NAMES = frozenset(
    "i monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december today tomorrow tonight noon".split()
)


@dataclass(frozen=True)
class Slot:
    """One slot of the schema, with what is needed to find it in a turn."""

    name: str
    kind: Kind
    possible_values: tuple[str, ...] = ()
    known_values: tuple[str, ...] = ()
    topic: tuple[str, ...] = ()  # stems that name a yes/no feature, or the subject of "any <topic>"

    @classmethod
    def from_schema(cls, raw: Mapping[str, Any], known: Iterable[str] = ()) -> Slot:
        name, description = raw["name"], raw.get("description", "")
        possible = tuple(str(value) for value in raw.get("possible_values") or ())
        return cls(name, _kind(name, description, bool(raw.get("is_categorical")), possible), possible, tuple(known), _topic(name))


def _kind(name: str, description: str, categorical: bool, possible: tuple[str, ...]) -> Kind:
    """The kind a slot's name, description and values suggest; the name speaks first."""
    name_words, all_words = set(words(name)), set(words(name + " " + description))
    if categorical and {value.lower() for value in possible} == {"true", "false"}:
        return Kind.BOOLEAN
    if categorical and possible and all(value.isdigit() for value in possible):
        return Kind.COUNT
    for vocabulary, kind in (({"date", "day"}, Kind.DATE), ({"time"}, Kind.TIME)):
        if name_words & vocabulary:
            return kind
    if categorical:
        return Kind.CATEGORICAL
    if name_words & {"city", "location", "area", "place", "destination", "origin"} or (
        all_words & {"city", "town"} and not name_words & {"name", "address"}
    ):
        return Kind.LOCATION
    if all_words & {"people", "persons", "seats", "guests", "tickets", "passengers", "travelers"} or (
        name_words & {"count", "number", "size"} and "phone" not in name_words
    ):
        return Kind.COUNT
    return Kind.TEXT


def _topic(name: str) -> tuple[str, ...]:
    return tuple(s for s in stems(name) if s not in _GENERIC_FEATURE and s not in _STOPWORDS) or tuple(stems(name))


@dataclass(frozen=True)
class Intent:
    """One intent of the schema: its cue phrases and the slots it reads."""

    name: str
    transactional: bool
    cues: frozenset[str]
    slots: frozenset[str]


@dataclass
class Reading:
    """What one text says: slots by name (with where they were said), intent cues and slot evidence."""

    slots: dict[str, Found] = field(default_factory=dict)
    cues: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, float] = field(default_factory=dict)

    def best(self, intents: Mapping[str, Intent], with_slots: bool = True) -> str | None:
        """The intent with the most evidence; a tie goes to the transactional one (it does more).

        Slot evidence counts for what a user says ("for 2 at 7 pm" is a booking), not for what
        the system says: a system naming a restaurant is not proposing to book it.
        """
        scores = {name: self.cues.get(name, 0) + (self.evidence.get(name, 0) if with_slots else 0) for name in intents}
        if not scores or max(scores.values()) <= 0:
            return None
        return max(scores, key=lambda name: (scores[name], intents[name].transactional))


class SchemaUnderstanding:
    """Reads user turns for one SGD service: `read(user, system, today)` -> intent and slots."""

    def __init__(self, service: str, slots: list[Slot], intents: list[Intent], languages: Languages | None = None) -> None:
        """`languages`: those the users write in; all the engine ships by default."""
        self.service = service
        self.slots = {slot.name: slot for slot in slots}
        self.intents = {intent.name: intent for intent in intents}
        self.languages = languages or shipped()
        self.wording = Wording(self.languages)
        # how each categorical slot's values, and each yes/no feature, are said
        self._scales = {slot.name: self.wording.scale(slot.possible_values) for slot in slots if slot.kind is Kind.CATEGORICAL}
        self._values = {
            slot.name: {
                form: value
                for value in slot.possible_values
                for term in {key(value), *self.wording.names(_naming(value))}
                for form in _forms(term)
            }
            for slot in slots
            if slot.kind is Kind.CATEGORICAL
        }
        self._said = {name: any_of(values) for name, values in self._values.items()} | {
            slot.name: any_of(form for term in self.wording.names(_naming(*slot.topic)) for form in _forms(term))
            for slot in slots
            if slot.kind is Kind.BOOLEAN
        }
        self._open = {
            slot.name: self.wording.leaving_open(
                form for term in {*_nouns(slot), *self.wording.names(_naming(*_nouns(slot)))} for form in _forms(term)
            )
            for slot in slots
        }

    @classmethod
    def from_schema(
        cls, schema: Mapping[str, Any], values: Mapping[str, Iterable[str]] | None = None, languages: Languages | None = None
    ) -> SchemaUnderstanding:
        """Build from a parsed SGD schema and, optionally, known values per free-text slot."""
        values = values or {}
        slots = [Slot.from_schema(raw, values.get(raw["name"], ())) for raw in schema["slots"]]
        slot_words = {stem(w) for slot in slots for w in words(slot.name)}
        own = {
            raw["name"]: {stem(w) for w in words(raw["name"] + " " + raw.get("description", ""))} - {stem(w) for w in _STOPWORDS}
            for raw in schema["intents"]
        }
        shared = set.intersection(*own.values()) if len(own) > 1 else set()
        intents = []
        for raw in schema["intents"]:
            transactional = bool(raw.get("is_transactional"))
            cues = own[raw["name"]] - shared - slot_words
            families = [family for family in _FAMILIES if cues & {stem(w) for w in family}]
            for family in families or [_TRANSACT if transactional else _SEARCH]:
                cues |= family
            reads = set(raw.get("required_slots", ())) | set(raw.get("optional_slots", {}) or ())
            intents.append(Intent(raw["name"], transactional, frozenset(cues), frozenset(reads)))
        return cls(schema.get("service_name", ""), slots, intents, languages)

    # ------------------------------------------------------------ one turn

    def read(self, user: str, system: str = "", today: dt.date | None = None) -> Prediction:
        """The intent of a turn read alone and the slots it sets, including an accepted offer."""
        today = today or dt.date.today()
        said = self.scan(user, today)
        intent = self.intent_of(said, user, system, today)
        slots = self.slots_for(intent, said, self.accepted(user, system, today)) if intent != NO_INTENT else {}
        return {"intent": intent, "slots": slots}

    def intent_of(self, said: Reading, user: str, system: str, today: dt.date, current: str | None = None) -> str:
        """The turn's intent given the one under way (`current`), if a conversation is being followed.

        With no cue in the turn, the system's words decide when nothing is under way yet, or when
        the user says yes to what the system proposed ("Shall I book it?" - "Yes"); otherwise the
        current intent goes on. A transactional intent, once under way, is not dropped for a
        search: "find it in Bandra" while booking is finding the place to book.
        """
        if closes(user, system):
            return NO_INTENT
        current = current if current in self.intents else None
        best = said.best(self.intents)
        if best is None and system and (current is None or affirms(user)):
            best = self.scan(system, today).best(self.intents, with_slots=False)
        if current and self.intents[current].transactional and (best is None or not self.intents[best].transactional):
            return current
        return best or current or self._opening(user, said)

    def _opening(self, user: str, said: Reading) -> str:
        """With nothing under way and no cue, someone who wants something is searching first;
        a bare yes or no ("No need for a patio" says what is wanted) asks for nothing."""
        if (affirms(user) or _DECLINE.search(user) or not user.strip()) and not said.slots:
            return NO_INTENT
        return next((name for name, intent in self.intents.items() if not intent.transactional), NO_INTENT)

    def slots_for(self, intent: str | None, said: Reading, offered: dict[str, str]) -> dict[str, str]:
        """The offer the user accepted, overridden by what they said, kept to what the intent reads."""
        reads = self.intents[intent].slots if intent in self.intents else set(self.slots)
        slots = {name: value for name, value in offered.items()}
        slots.update({name: found.value for name, found in said.slots.items() if name in reads})
        return slots

    def accepted(self, user: str, system: str, today: dt.date) -> dict[str, str]:
        """Values from the system's offer or confirmation, when the user says yes to it.

        Only the slots a transactional intent takes are offered (what to book, where, when, for
        how many); a yes/no feature or a rating the system mentions is information, not an offer.
        """
        return self.proposed(system, today) if affirms(user) else {}

    def proposed(self, system: str, today: dt.date) -> dict[str, str]:
        """The bookable values a system utterance puts forward (see `accepted`)."""
        if not system:
            return {}
        bookable = {name for intent in self.intents.values() if intent.transactional for name in intent.slots}
        offered = self.scan(system, today).slots
        return {
            name: found.value
            for name, found in offered.items()
            if name in bookable and self.slots[name].kind not in (Kind.BOOLEAN, Kind.CATEGORICAL)
        }

    def scan(self, text: str, today: dt.date) -> Reading:
        """Every slot value the text states, and how strongly it cues each intent."""
        reading = Reading()
        if not text:
            return reading
        rest = text
        rest = self._known_values(rest, reading)
        finders = (
            (Kind.TIME, self.languages.find_time),
            (Kind.DATE, lambda t: self.languages.find_date(t, today)),
            (Kind.COUNT, self.languages.find_count),
        )
        for kind, finder in finders:
            targets = [slot for slot in self.slots.values() if slot.kind is kind]
            found = finder(rest) if targets else None
            if found and (not targets[0].possible_values or found.value in targets[0].possible_values):
                reading.slots[targets[0].name] = found
            rest = blank(rest, found)
        for slot in self.slots.values():
            if slot.name not in reading.slots:
                found = self._by_kind(slot, rest)
                if found:
                    reading.slots[slot.name] = found
                    rest = blank(rest, found)
        reading.cues, reading.evidence = self._scores(text, reading)
        return reading

    def _known_values(self, text: str, reading: Reading) -> str:
        """Catalog values said in the text, longest first, each span read once."""
        lowered = text.lower()
        candidates = sorted(
            ((value, slot.name) for slot in self.slots.values() for value in slot.known_values), key=lambda pair: -len(pair[0])
        )
        for value, name in candidates:
            if name in reading.slots or not value.strip():
                continue
            generic = set(words(value)) <= _GENERIC_NAME_WORDS
            m = re.search(rf"(?<![\w'&]){re.escape(value if generic else value.lower())}(?![\w'&])", text if generic else lowered)
            if m:
                reading.slots[name] = Found(value, m.start(), m.end())
                text = blank(text, reading.slots[name])
                lowered = text.lower()
        return text

    def _by_kind(self, slot: Slot, text: str) -> Found | None:
        """A value for a categorical, yes/no, place or name slot from the text's own words."""
        lowered = text.lower()
        if slot.kind is not Kind.BOOLEAN and (found := self._dontcare(slot, lowered)):
            return found
        if slot.kind is Kind.BOOLEAN:
            return self._feature(slot, lowered)
        if slot.kind is Kind.CATEGORICAL:
            return self._categorical(slot, lowered)
        if slot.kind is Kind.LOCATION and not slot.known_values:
            return _span(_PLACE_SPAN, text)
        if slot.kind is Kind.TEXT and not slot.known_values and set(words(slot.name)) & {"name", "title"}:
            return _span(_NAME_SPAN, text)
        return None

    def _clauses(self, text: str) -> list[re.Match[str]]:
        """Sentences and clauses that are not questions about a business ("do they have...?")."""
        return [m for m in _CLAUSE.finditer(text) if not self.wording.question(m.group())]

    def _feature(self, slot: Slot, lowered: str) -> Found | None:
        """ "True" when a clause asks for the feature, "False" when it asks for its absence ("no
        need for outdoor seating", "bahar nahi"), "dontcare" when it leaves it open."""
        true, false = _pick(slot.possible_values, "true"), _pick(slot.possible_values, "false")
        for clause in self._clauses(lowered):
            text = clause.group()
            mention = self._said[slot.name].search(text) or _by_stems(slot, text)
            if mention is None:
                continue
            left = self.wording.left_open(text, self._open[slot.name])
            if left:
                value = false if left[1] else DONTCARE
            else:
                value = false if self.wording.negated(text, mention.start(), mention.end()) else true
            return Found(value, clause.start() + mention.start(), clause.start() + mention.end())
        return None

    def _categorical(self, slot: Slot, lowered: str) -> Found | None:
        """A value named outright or another way, outside questions, or by where a word of its
        scale stands ("not too expensive" is the middle one); a value said unwanted is none."""
        scale = self._scales[slot.name]
        for clause in self._clauses(lowered):
            text = clause.group()
            for m in (scale.words if scale else self._said[slot.name]).finditer(text):
                if scale:
                    value = self.wording.placed(scale, text, m.start(), m.end())
                else:
                    value = None if self.wording.negated(text, m.start(), m.end()) else self._values[slot.name][key(m.group())]
                if value:
                    return Found(value, clause.start() + m.start(), clause.start() + m.end())
        return None

    def _dontcare(self, slot: Slot, lowered: str) -> Found | None:
        """ "Any price", "I don't care what date", "price doesn't matter": the slot left open."""
        left = self.wording.left_open(lowered, self._open[slot.name])
        return Found(DONTCARE, left[0].start(), left[0].end()) if left else None

    def _scores(self, text: str, reading: Reading) -> tuple[dict[str, float], dict[str, float]]:
        """Cue phrases said per intent; and, where two or more slots only one intent reads are
        given, half a point each for it (one stray "today" is not a booking)."""
        said = " " + " ".join(stems(text)) + " "
        cues: dict[str, float] = {}
        evidence: dict[str, float] = {}
        for intent in self.intents.values():
            cues[intent.name] = sum(1 for cue in intent.cues if f" {' '.join(stems(cue))} " in said)
            exclusive = sum(
                1
                for name in reading.slots
                if name in intent.slots and not any(name in other.slots for other in self.intents.values() if other is not intent)
            )
            evidence[intent.name] = 0.5 * exclusive if exclusive >= 2 else 0.0
        return cues, evidence


def affirms(user: str) -> bool:
    """Whether the turn says yes (to an offer or a confirmation)."""
    return bool(_AFFIRM.search(user)) and not _DECLINE.search(user)


def closes(user: str, system: str) -> bool:
    """Whether the user declines more help: the system asked if there is anything else, and they said no."""
    return bool(system and _MORE_HELP.search(system) and system.rstrip().endswith("?") and _DECLINE.search(user))


def _pick(possible: tuple[str, ...], lowered: str) -> str:
    return next((value for value in possible if value.lower() == lowered), lowered.capitalize())


def _naming(*named: str) -> Callable[[str], bool]:
    """Whether a word the languages give other names for is one of these ("outdoors" is "outdoor")."""
    wanted = {stem(name) for name in named}
    return lambda word: stem(word) in wanted


def _nouns(slot: Slot) -> tuple[str, ...]:
    """The words a slot is called by ("price", "range"; "outdoor"), as a customer leaving it open
    names it ("any price range")."""
    return slot.topic if slot.kind is Kind.BOOLEAN else tuple(word for word in words(slot.name) if word not in _STOPWORDS)


def _forms(term: str) -> tuple[str, ...]:
    """A term and its plurals, as the schema's English names take them ("patios", "facials")."""
    return (term, f"{term}s", f"{term}es")


def _by_stems(slot: Slot, clause: str) -> re.Match[str] | None:
    """Where a clause names a feature by every word of its name ("rooftop seating"), if it does."""
    if not slot.topic or not set(slot.topic) <= set(stems(clause)):
        return None
    return re.search(rf"(?<!\w){re.escape(slot.topic[0])}\w*", clause)


def _span(pattern: re.Pattern[str], text: str) -> Found | None:
    """A capitalised name after a cue word ("in Bandra", "called Blue Tokai"), not a day or month."""
    for m in pattern.finditer(text):
        name = m.group(1).strip(" .,'")
        if name.split()[0].lower() not in _NOT_NAMES and not name.isdigit():
            return Found(name, m.start(1), m.start(1) + len(name))
    return None
