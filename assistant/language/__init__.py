"""Language knowledge: declared per language as data (assistant/language/data/<code>.yml), read here only.

A pack names the languages its customers write in pack.yaml (`languages: [en, bn]`); English is
always loaded too, as customers everywhere mix it in. `load_languages` reads and checks those
files into one `Languages`, which turns native digits and spoken amounts into digits and reads
dates, times and head counts with the words of all of them. How a date in digits reads (3/4:
day or month first) is the country's convention, not the language's, so the pack's
`business.date_order` comes with the codes. Callers with no pack at hand use `shipped()`,
every language the engine ships.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache, cached_property
from operator import attrgetter
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from assistant.language.bounds import REACH, Bound, Bounds, Direction
from assistant.language.detect import Detector, Written
from assistant.language.dropping import Dropping
from assistant.language.lexicon import Language, Table, key
from assistant.language.names import Names
from assistant.language.numbers import Numbers
from assistant.language.pointers import Pointers, Pointing
from assistant.language.reading import Reading
from assistant.language.reminders import Reminders
from assistant.language.when import DateOrder, Found, When, WhenParts, blank

__all__ = [
    "FOLDER",
    "REACH",
    "Bound",
    "DateOrder",
    "Direction",
    "Found",
    "Language",
    "Languages",
    "Pointing",
    "WhenParts",
    "Written",
    "blank",
    "load_languages",
    "phrases",
    "pieces",
    "shipped",
]

FOLDER = Path(__file__).resolve().parent / "data"
ALWAYS = "en"
_CODE = re.compile(r"^[a-z]{2,3}$")


class Languages(BaseModel):
    """The languages one business's customers write in, merged: a word means the same in all."""

    model_config = ConfigDict(frozen=True)

    codes: tuple[str, ...]
    languages: tuple[Language, ...]
    date_order: DateOrder = "day_first"
    _numbers: Numbers = PrivateAttr()
    _detector: Detector = PrivateAttr()
    _when: When = PrivateAttr()
    _names: Names = PrivateAttr()
    _reminders: Reminders = PrivateAttr()
    _pointers: Pointers = PrivateAttr()
    _dropping: Dropping = PrivateAttr()
    _resend: re.Pattern[str] = PrivateAttr()
    _another: re.Pattern[str] = PrivateAttr()
    _change: re.Pattern[str] = PrivateAttr()
    _together: re.Pattern[str] = PrivateAttr()
    _more: re.Pattern[str] = PrivateAttr()
    _agree: re.Pattern[str] = PrivateAttr()
    _decline: re.Pattern[str] = PrivateAttr()
    _talk: re.Pattern[str] = PrivateAttr()
    _humans: re.Pattern[str] = PrivateAttr()
    _wanting: re.Pattern[str] = PrivateAttr()
    _promises: re.Pattern[str] = PrivateAttr()
    _person_alone: re.Pattern[str] = PrivateAttr()
    _stop_words: frozenset[str] = PrivateAttr()
    _bounds: Bounds = PrivateAttr()
    _also: re.Pattern[str] = PrivateAttr()
    _joins: re.Pattern[str] = PrivateAttr()
    _others: re.Pattern[str] = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        self._numbers = Numbers(self.languages)
        self._detector = Detector(self.codes, self.languages)
        self._when = When(self.languages, self._numbers, self.date_order)
        self._names = Names(self.languages)
        self._reminders = Reminders(self.languages, self._numbers)
        self._pointers = Pointers(self.languages, self._numbers)
        self._dropping = Dropping(self.languages)
        self._resend = re.compile(Table.words(self.languages, "resend", lambda lang: lang.resend).pattern, re.IGNORECASE)
        self._another = re.compile(Table.words(self.languages, "another", lambda lang: lang.another).pattern, re.IGNORECASE)
        self._change = re.compile(Table.words(self.languages, "change", attrgetter("change")).pattern, re.IGNORECASE)
        self._together = re.compile(Table.words(self.languages, "together", attrgetter("together")).pattern, re.IGNORECASE)
        self._more = re.compile(Table.words(self.languages, "more", attrgetter("more")).pattern, re.IGNORECASE)
        self._agree = _whole_answer(Table.words(self.languages, "agree", attrgetter("agree")).pattern)
        self._decline = _whole_answer(Table.words(self.languages, "decline", attrgetter("decline")).pattern)
        talk, humans, anyone, wanting, alone = (
            Table.words(self.languages, kind, attrgetter(kind)).pattern
            for kind in ("talk", "humans", "someone", "wanting", "person_alone")
        )
        near = r"(?:\s+\S+){0,2}?\s+"  # a word or two between: "need (a real) person", "agent (hi) chahiye"
        self._promises = re.compile(Table.words(self.languages, "promises", attrgetter("promises")).pattern, re.IGNORECASE)
        self._talk = re.compile(talk, re.IGNORECASE)
        self._humans = re.compile(f"{humans}|{anyone}", re.IGNORECASE)
        self._wanting = re.compile(f"{wanting}{near}{humans}|{humans}{near}{wanting}", re.IGNORECASE)
        self._person_alone = re.compile(rf"^\W*(?:{alone})\W*$", re.IGNORECASE)
        self._stop_words = frozenset(key(word) for lang in self.languages for word in lang.stop_words)
        self._bounds = Bounds(self.languages, self._numbers)
        self._also = re.compile(Table.words(self.languages, "also", attrgetter("also")).pattern, re.IGNORECASE)
        joins = Table.words(self.languages, "joins", attrgetter("joins")).pattern
        self._joins = re.compile(rf"[,;.!?¡¿]+(?=\s|$)|\n|\s(?:{joins})\s", re.IGNORECASE)
        self._others = re.compile(Table.words(self.languages, "others", attrgetter("others")).pattern, re.IGNORECASE)

    @property
    def stop_words(self) -> frozenset[str]:
        """Every language's words too common to tell one question from another, lower-cased."""
        return self._stop_words

    def name_of(self, code: str) -> str:
        """A language's name in English ("Bangla"), as a model is told which to write in."""
        return next((lang.name for c, lang in zip(self.codes, self.languages, strict=True) if c == code), code)

    def script(self, code: str) -> str:
        """The Unicode script a language is written in ("BENGALI", "THAI", "LATIN")."""
        return self._detector.scripts[code]

    def written_in(self, text: str) -> Written | None:
        """Which of these languages the message is in, and whether in its own script (not Banglish
        or Hinglish); None where no word of it tells ("ok", "12:30")."""
        return self._detector.written_in(text)

    def asked_for(self, text: str) -> str | None:
        """The language the message asks replies in ("Bangla te bolun", "in English please")."""
        return self._detector.asked_for(text)

    def reading(self, english: Iterable[str]) -> Reading:
        """Messages in these languages read in English, a business's loanwords matched to its
        own English texts (`english`: its help articles)."""
        return Reading(self._detector, self.codes, self.languages, english)

    def digits(self, text: str) -> str:
        """Native digits (০-৯, ०-९, ๐-๙) as ASCII ones; the text keeps its length."""
        return self._numbers.digits(text)

    def amounts(self, text: str) -> str:
        """Spelled-out or scaled amounts as plain digits ("two hundred fifty thousand" -> "250000",
        "সাড়ে তিন হাজার" -> "3500", "80k" -> "80000"); a lone number word is left as it is."""
        return self._numbers.amounts(text)

    def number(self, said: str) -> int | None:
        """A whole number written in digits or as one number word ("7", "seven", "saat")."""
        value = self._numbers.value(said.strip())
        return int(value) if value is not None and value == int(value) else None

    def bounds(self, text: str) -> list[Bound]:
        """Every amount the text says, in order, each with the bound it is said to be: a ceiling
        ("under 15 lakh", "60k or less", ไม่เกิน), a floor ("above 20 lakh", "16GB or more", "se
        zyada") or a range's two ("between 10 and 15 lakh"), or none; an amount taken back for
        another ("3,500... no, 3.5 lakh") is left out. Positions are the text's own; read it
        before `amounts` rewrites it, with the numbers of names blanked (`unnamed`)."""
        return self._bounds.read(text)

    def lists(self, word: str) -> bool:
        """Whether some language file lists the word ("above", "log", "the"), whatever for: a word
        of the languages, not a name or a thing of its own."""
        return self._bounds.lists(word)

    def unnamed(self, text: str, known: Callable[[str], bool] = lambda word: False) -> str:
        """The text with the numbers that are part of a name ("iPhone 15", "RTX 4060", "Legion 5")
        blanked out, its length kept, so that none is read as an amount: a number in digits right
        after a word in Latin letters that no language lists and `known(word)` does not claim (the
        business's words a number after is an amount: "price 30000"), with no scale, unit or "or
        less" after it ("iphone 30k" is an amount). Read it before `amounts`."""
        return self._bounds.unnamed(text, known)

    def parse_when(self, text: str, now: dt.datetime, earlier: dt.time | None = None) -> WhenParts:
        """The date and/or time a message mentions, relative to `now` (in the business's zone);
        `earlier`, a time the conversation already holds, keeps its half of the day for an hour
        said bare ("tomorrow evening", then "half past eight": 20:30)."""
        return self._when.parse(text, now, earlier)

    def find_time(self, text: str) -> Found | None:
        """The last time of day the text names, as HH:MM, and where."""
        return self._when.time(text)

    def find_date(self, text: str, today: dt.date) -> Found | None:
        """The last date the text names, as YYYY-MM-DD relative to `today`, and where."""
        return self._when.date(text, today)

    def person(self, text: str, known: Callable[[str], bool] = lambda word: False, ending_at: int | None = None) -> str | None:
        """The name a customer gives ("my name is Nusrat Jahan", "naam Arjun Rao"), title-cased;
        `known(word)` says which words are the business's own and so no name. With `ending_at`
        (where a phone number starts, or the end of an answer to "your name?"), also a name said
        bare just before it ("Rahul Verma, 9811122233")."""
        return self._names.find(text, known, ending_at)

    def reminder_start(self, text: str) -> int | None:
        """Where a request for a reminder starts in the text ("remind me", "yaad dila dena")."""
        return self._reminders.start(text)

    def reminder_lead(self, text: str) -> Found | None:
        """How many minutes ahead a reminder is asked for ("an hour before", "30 minute pehle"),
        as digits, and where."""
        return self._reminders.lead(text)

    def asks_again(self, text: str) -> bool:
        """Whether the text asks for a code to be sent again ("resend", "code nahi aaya")."""
        return bool(self._resend.search(text))

    def asks_another(self, text: str) -> bool:
        """Whether the text asks for one more of something ("another one", "ek aur") rather than
        a change to the one had."""
        return bool(self._another.search(text))

    def asks_change(self, text: str) -> bool:
        """Whether the text asks to change something made ("move it to Monday", "7pm instead",
        "kal kar do badal ke"): without such words, a date in a question is no change."""
        return bool(self._change.search(text))

    def asks_more(self, text: str) -> bool:
        """Whether the text asks for the next ones of a list ("show me more", "next", "aur dikhao")."""
        return bool(self._more.search(text))

    def asks_total(self, text: str) -> bool:
        """Whether the text asks what several things come to together ("both together", "in total", "รวม")."""
        return bool(self._together.search(text))

    def agrees(self, text: str) -> bool:
        """Whether the whole answer says yes ("yes please", "haan ji", "sí, vale"); words of
        either answer alone ("please", "ji") say neither."""
        return bool(self._agree.search(text)) and not self._decline.search(text)

    def declines(self, text: str) -> bool:
        """Whether the whole answer says no ("no, keep it", "nahi", "না")."""
        return bool(self._decline.search(text)) and not self._agree.search(text)

    def promises(self, text: str) -> set[str]:
        """The actions the text says are taken or done ("we'll call", "i've booked"), as keys."""
        return {key(found.group(0)) for found in self._promises.finditer(text)}

    def asks_for_person(self, text: str) -> bool:
        """Whether the text asks for a person rather than the assistant: a word for talking with
        one for a person or anyone, in either order ("I want to talk to someone", "kisi insaan se
        baat karni hai"), a person of the business wanted ("I need a human", "ekjon agent
        dorkar"), or a whole message that is such a request ("agent please")."""
        return bool(
            self._person_alone.search(text) or self._wanting.search(text) or (self._talk.search(text) and self._humans.search(text))
        )

    def pointing(self, text: str, nouns: Iterable[str] = ()) -> Pointing:
        """What the text points at among the items on screen ("the first two", "it", "that
        card"); `nouns` are the business's words for its items."""
        return self._pointers.read(text, nouns)

    @cached_property
    def pointer_words(self) -> frozenset[str]:
        """The words that point at an item on screen ("first", "tar", "oitar"), lower-cased: said
        before a feature ("prothom tar lounge"), they make it that item's, never another thing's name."""
        said = [
            phrase
            for lang in self.languages
            for phrase in [*(w for ws in lang.pointers.positions.values() for w in ws), *lang.pointers.ones, *lang.pointers.single]
        ]
        return frozenset(key(word) for phrase in said for word in phrase.split())

    @property
    def articles(self) -> frozenset[str]:
        """Words before an item asked for by its name ("a Corolla"), lower-cased."""
        return frozenset(key(word) for lang in self.languages for word in lang.pointers.articles)

    def dropped(self, text: str, nouns: Mapping[str, Iterable[str]], leading: bool = False) -> list[str]:
        """The filters the text takes back ("forget the fee limit", "any brand"), of those whose
        names `nouns` gives; `leading`: only if the text starts by taking one back."""
        return self._dropping.read(text, nouns, leading)

    def find_count(self, text: str) -> Found | None:
        """How many people (or seats, tickets) the text asks for, as digits, and where."""
        return self._when.count(text)

    def adds(self, text: str) -> bool:
        """Whether the text adds to what was asked rather than asking anew ("and a headlight too",
        "¿y si le sumo los intermitentes?")."""
        return bool(self._also.search(text))

    def statements(self, text: str) -> list[tuple[int, int]]:
        """Where each statement of the text starts and ends: a message says several things, split
        at punctuation, line breaks and the words that join them ("my number is 98..., and my
        wife's is 97...")."""
        return pieces(text, self._joins)

    def someone_elses(self, text: str) -> list[tuple[int, int]]:
        """Where the text says that what it gives is someone else's ("my friend's number is",
        "el teléfono del taller"), not the customer's own; none: it says no such thing."""
        return [found.span() for found in self._others.finditer(text)]


def _whole_answer(words: str) -> re.Pattern[str]:
    """A whole message of these words and nothing else: "yes please", "no, keep it"."""
    return re.compile(rf"^\W*(?:{words})(?:\W*(?:{words}))*\W*$", re.IGNORECASE)


def pieces(text: str, separators: re.Pattern[str]) -> list[tuple[int, int]]:
    """Where each piece of the text between separators starts and ends, without the spaces
    around it; pieces of nothing but spaces are left out."""
    cuts = [0, *(at for found in separators.finditer(text) for at in found.span()), len(text)]
    spans = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=True):
        part = text[start:end]
        if part.strip():
            spans.append((start + len(part) - len(part.lstrip()), end - len(part) + len(part.rstrip())))
    return spans


def phrases(said: Iterable[str]) -> re.Pattern[str]:
    """Any of these words or phrases, whole and regardless of case: how a pack's own words for
    something (a channel, "text message") are found in a message. Built once per list of words:
    a turn asks for the same pack words every time."""
    return _phrases(tuple(said))


@cache
def _phrases(said: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(Table(((key(word), key(word), True) for word in said), "phrases").pattern, re.IGNORECASE)


def load_languages(codes: Iterable[str], folder: Path = FOLDER, *, date_order: DateOrder = "day_first") -> Languages:
    """The languages with these codes, English included, reading dates in digits in `date_order`.
    ValueError names an unknown code, or the file and field that are wrong."""
    return _load(tuple(dict.fromkeys([ALWAYS, *codes])), folder, date_order)


def shipped() -> Languages:
    """Every language shipped with the engine, for callers with no pack at hand."""
    return load_languages(sorted(path.stem for path in FOLDER.glob("*.yml")))


@cache
def _load(codes: tuple[str, ...], folder: Path, date_order: DateOrder) -> Languages:
    languages = []
    for code in codes:
        path = folder / f"{code}.yml"
        if not _CODE.match(code) or not path.is_file():
            known = ", ".join(sorted(p.stem for p in folder.glob("*.yml")))
            raise ValueError(f"unknown language {code!r}: no {code}.yml in {folder} (known: {known})")
        try:
            languages.append(Language.model_validate(yaml.safe_load(path.read_text(encoding="utf-8"))))
        except (yaml.YAMLError, ValidationError) as exc:
            raise ValueError(f"{path}: {exc}") from exc
    try:
        return Languages(codes=codes, languages=tuple(languages), date_order=date_order)
    except ValueError as exc:  # a word that means two things across the files
        raise ValueError(f"languages {', '.join(codes)}: {exc}") from exc
