"""What a language file may say, and its words merged across languages into lookups and patterns.

Each language is one file, assistant/language/data/<code>.yml: values first, then the words for them
(`1: [ek, এক]`), native script and the romanisation customers type side by side. The engine
knows no word of any language itself; it reads them all from these files.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable, Mapping
from decimal import Decimal
from typing import Annotated, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]  # a language's words name them (`weekdays`)
WEEKDAYS: tuple[Weekday, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # date.weekday() order
Part = Literal["morning", "noon", "midday", "afternoon", "evening", "night"]
Word = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Words = list[Word]
V = TypeVar("V", bound=Hashable)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Fractions(_Strict):
    """Parts of a number said as words, by how much they add."""

    whole: dict[Decimal, Words] = {}  # a number on its own: dedh is 1.5
    before: dict[Decimal, Words] = {}  # added to the number after: sade teen is 3.5, sawa hazaar 1.25 thousand
    after: dict[Decimal, Words] = {}  # added to the number (or scale) before: "two and a half", สองพันครึ่ง
    clock: dict[Decimal, Words] = {}  # like `before`, but ahead of an hour only: "half past 7"


class PointerWords(_Strict):
    """Words pointing at the items on screen (assistant/language/pointers.py)."""

    positions: dict[int, Words] = {}  # 1: first, 2: second, -1: last
    determiners: Words = []  # before a position or an item's word: "the second", "that card"
    ones: Words = []  # after a position: "second one", "doosra wala"
    single: Words = []  # the one item at hand: "it", "that one"
    these: Words = []  # before an item's word, the item at hand: "that card", "this car"
    every: Words = []  # every item shown: "both", "all of them"
    among: Words = []  # a ranking among the items shown: "of these", "of the two"
    beyond: Words = []  # items besides those shown: "anything cheaper?", "any other"
    superlatives: Words = []  # the best of all, not of two: "most", "cheapest", "sabse", "ที่สุด"
    which: Words = []  # asking which of the items shown: "which", "which one", "kaunsa", "cuál", "อันไหน"
    articles: Words = []  # before an item asked for by its name: "a Corolla", "any Xbox"


class Between(_Strict):
    """Words that make two amounts a range, low to high."""

    before: Words = []  # before the first: "between", "entre", ระหว่าง
    to: Words = []  # between them, a range on their own: "to", "-", "se", "theke", ถึง, "hasta"
    joined: Words = []  # between them, a range only with a `before` or an `after` word: "and", "aur", "y"
    after: Words = []  # after the second: "ke beech", "er moddhe"


class Halves(_Strict):
    am: Words = []
    pm: Words = []


class CountedHours(_Strict):
    """Hour words that count from a fixed hour of the day rather than from midnight or noon:
    Thai สองทุ่ม is 18 + 2 (20:00) and ตีสอง 0 + 2 (02:00)."""

    after: dict[Annotated[int, Field(ge=0, le=23)], Words] = {}  # said after the number: ทุ่ม
    before: dict[Annotated[int, Field(ge=0, le=23)], Words] = {}  # said before it: ตี


class GuardWords(_Strict):
    """Words the prompt-injection guard reads (assistant/understanding/guard.py): how customers
    and attackers say that the assistant should drop its instructions, show them, take on another
    role, or that a price is now nothing. "Between" words may stand between the parts of each.
    Question words are read in the pack's own languages only, the ones its customers ask in."""

    drop: Words = []  # dropping what it was told: "ignore", "bhool jao", ভুলে যাও, ลืม, "(rules) are void"
    told: Words = []  # what it was told: "instructions", "rules", nirdesh, নির্দেশ, คำสั่ง
    between: Words = []  # words that may stand between those: "all", "previous", "your", sab, আগের, ทั้งหมด
    inner: Words = []  # what only the assistant has, suspect with "your" alone: "prompt", "backstory", প্রম্পট
    setup: Words = []  # how it was set up, suspect only as "your" (a laptop has a configuration too): "configuration"
    secret: Words = []  # marking them as its own, before or after: "system", "hidden", "initial", ระบบ
    yours: Words = []  # "your", before or after: apna, তোমার, ของคุณ
    reveal: Words = []  # asking to be shown, before or after: "show", "print", batao, দেখাও, แสดง
    given: Words = []  # what it was told, said of it, before or after: "(the rules) you were given", তোমাকে দেওয়া
    asked: Words = []  # asking outright what it was told: "what were you told", "the text above"
    become: Words = []  # taking on a role, said before or after it: "pretend to be", "you are now", ban jao
    roles: Words = []  # roles with power or no limits: "admin", "manager", "DAN", "unrestricted", ผู้จัดการ
    modes: Words = []  # names of jailbreaks, refused outside questions: "developer mode", "jailbreak"
    speakers: Words = []  # a chat transcript's roles, faked as "system:" or "<system>"
    fields: Words = []  # a structured message's key for who speaks, faked as {"role": "system"}: "role", "author"
    prices: Words = []  # what a price is called: "fee", "price", "interest rate", দাম, कीमत, ราคา
    change: Words = []  # telling a price to change, said before it: "set", "lower", เปลี่ยน
    to: Words = []  # between a price and its new value: "to", "at", เป็น, เหลือ
    made: Words = []  # telling a price to change, said after its new value: "kar do", করে দাও
    lower: Words = []  # a value that is only "less", said before `made`: kam, কম
    nothing: Words = []  # a value of nothing (like 0 and 1 in digits): "zero", "free", শূন্য, ฟรี
    changed: Words = []  # saying a price has changed: "is now", "has been set", "new", এখন, ตอนนี้
    every: Words = []  # every item: "all", "every", সব, ทุก
    being: Words = []  # between an item and what it is: "is", "are", hai, เป็น
    questions: Words = []  # making a sentence a question wherever they stand: kya, কি, ไหม
    asking: Words = []  # starting a question: "is", "what", "can"
    wishes: Words = []  # a customer's own wish, which tells nobody to change a price: "I want to", চাই, อยาก, quiero
    bounds: Words = []  # after an amount, making it a ceiling, a budget: "or less", "at most", "o menos", หรือน้อยกว่า


class SchemaWords(_Strict):
    """Words the schema-guided reader (assistant/understanding/nlu) reads any service's categorical and
    yes/no slots with. A schema names its values and features in English ("cheap", "outdoors");
    customers say them their own way, around words that turn them over or about."""

    names: dict[str, Words] = {}  # a word a schema names something with -> other ways to say it: outdoor: [patio, bahar]
    scales: dict[str, list[Words]] = {}  # values said on a scale, lowest first: price: [[cheap, sasta], [moderate], ...]
    more: Words = []  # just before a value on a scale, one step away from its middle: "very (pricey)", "bahut"
    most: Words = []  # just before it, its end: "the most (expensive)", "sabse"
    negations: Words = []  # a few words before a value or feature, wanting it not: "no", "without", "don't want to", "bina"
    negated: Words = []  # a few words after it, the same: "(outdoor seating) isn't necessary", "(bahar) nahi"
    asking: Words = []  # with `about` after it, a question about a business, not a request: "do (they)", "kya (woh)"
    about: Words = []  # what such a question is about: "they", "it", "the", "woh", "wahan"
    there: Words = []  # a question whether there is one: "is there", "are there"; a search with a `seeking` word
    seeking: Words = []  # what makes "is there ...?" a search: "any", "somewhere", "place"
    wondering: Words = []  # starting a question about something known: "how", "what", "kitna"


class Letters(_Strict):
    """How a script is written in Latin letters by the customers who write its language so
    (Banglish, Hinglish): each consonant carries `inherent`, unless a vowel sign or `virama`
    follows it. A message in the script is read in these letters (assistant/language/reading.py)."""

    inherent: str = ""
    virama: str = ""
    consonants: dict[str, str] = {}
    vowels: dict[str, str] = {}  # standing alone, at a word's start
    signs: dict[str, str] = {}  # written after a consonant
    marks: dict[str, str] = {}  # nasal and other marks


class Language(_Strict):
    """One language file. Words are matched whole (unless the language runs them together) and
    regardless of case; a phrase's spaces match any run of spaces."""

    name: str
    spaced: bool = True  # words stand apart; Thai runs them together, so its words are found anywhere
    digits: str = Field("", pattern=r"^(?:.{10})?$")  # its own digits, zero first; their script is the language's
    called: Words = []  # what customers call the language: "Bangla te bolun" asks replies in it
    speak: Words = []  # the words around its name in such a request: "te", "bolun", "mein", "please"
    telling: Words = []  # everyday words that tell a short message is in it, besides its stop words: "hello", "hola"

    numbers: dict[Annotated[int, Field(ge=0)], Words] = {}  # units, teens, tens: "fifty five" is 50 + 5
    clashes: Words = []  # number or fraction words that are everyday words too (Hindi "do" is English
    # "do"): read as numbers only where a scale, an hour word or people follow
    scales: dict[Annotated[int, Field(gt=1)], Words] = {}  # hundred, thousand, million, หมื่น
    abbreviations: dict[Annotated[int, Field(gt=1)], Words] = {}  # scales written after digits only: 80k, 2 cr
    one: Words = []  # one, before a scale only: "a thousand"
    joiners: Words = []  # between a scale and what follows it: "two thousand and fifty"
    fractions: Fractions = Fractions()
    # scales that are one of themselves with no number before them: พันห้าร้อย is 1,500, "mil euros" 1,000
    # (alone, only before a unit: "mil gracias" is thanks, แสนดี "very good")
    scales_alone: Words = []
    tails: bool = False  # a unit said last after a scale counts in the next scale down: สองหมื่นห้า is 25,000

    counts: dict[Annotated[int, Field(gt=0)], Words] = {}  # words that are head counts only: "a couple"
    people: Words = []  # after a head count: "4 people", "do log"
    groups: Words = []  # before a head count: "party of", "for"
    alone: Words = []  # a head count of one: "just me"
    units: Words = []  # after an amount or a length of time ("3 days", "50 dollars"): no date, hour or head count
    at_most: Words = []  # before an amount, a ceiling on it: "under", "no more than", ไม่เกิน
    or_less: Words = []  # after an amount, a ceiling on it: "or less", "tops", "tak", "er moddhe"
    at_least: Words = []  # before an amount, a floor under it: "above", "more than", "kam se kam", "más de"
    or_more: Words = []  # after an amount, a floor under it: "or more", "se zyada", "er beshi", ขึ้นไป
    between: Between = Between()  # two amounts said as a range: "between 10 and 15 lakh", "10 se 15 lakh"
    corrections: Words = []  # between an amount and the one meant instead: "3,500... no, 3.5 lakh", "sorry", "matlab"

    stop_words: Words = []  # words too common to tell one question from another in a word search: "the", "kya"
    remind: Words = []  # where a request for a reminder starts: "remind me", "yaad dilana", "মনে করিয়ে"
    lengths: dict[Annotated[int, Field(gt=0)], Words] = {}  # lengths of time, in minutes: 60 is "hour", "ghanta"
    before: Words = []  # after a length of time, how long ahead: "an hour before", "do ghante pehle"
    resend: Words = []  # asking for a code again: "resend", "send it again", "code nahi aaya"
    another: Words = []  # asking for one more of something, not to change the one had: "book another one", "ek aur"
    more: Words = []  # the next ones of the same search: "show me more", "next", "aur dikhao", "más opciones"
    together: Words = []  # a total asked for: "together", "in total", "dono milake", "মোট", "รวม", "en total"
    change: Words = []  # asking to change something made: "move", "reschedule", "make it", "instead", "badal do", "cambia"
    agree: Words = []  # a whole answer saying yes: "yes", "sure", "haan", "হ্যাঁ", "sí", "ใช่"
    decline: Words = []  # a whole answer saying no: "no", "keep it", "nahi", "না", "no, déjalo", "ไม่"
    promises: Words = []  # an action said to be taken or done: "we'll call you", "I've booked", "te llamaremos"
    # Asking for a person of the business rather than the assistant (Languages.asks_for_person).
    talk: Words = []  # talking to one: "talk to", "speak with", "baat karni", "hablar con"
    humans: Words = []  # a person of the business: "a human", "an agent", "customer service", "insaan", "manush"
    someone: Words = []  # anyone at all, a person only beside a talk word: "someone", "kisi se", "alguien"
    wanting: Words = []  # asking for one, a word or two from a `humans` word: "I need (a human)", "(agent) chahiye"
    person_alone: Words = []  # a whole message asking for a person: "agent please", "operator"

    names: Words = []  # before a person's name, whatever follows: "my name is", "amar nam", "मेरा नाम"
    self_names: Words = []  # before a name only when what follows looks like one: "I am", "this is"
    not_names: Words = []  # words that are never part of a name, so they end one: "and", "looking", "from"

    days: dict[Annotated[int, Field(ge=0)], Words] = {}  # days from today ("kal" is tomorrow: nobody books yesterday)
    weekdays: dict[Weekday, Words] = {}
    months: dict[Annotated[int, Field(ge=1, le=12)], Words] = {}
    this: Words = []  # by a weekday: this Saturday, today included
    next: Words = []  # by a weekday: next Saturday, after today; with `week`, the calendar week after this one
    week: Words = []
    month: Words = []  # "the 3rd of next month"
    the: Words = []  # before a day of the month: "the 3rd"
    of: Words = []  # "25th of December"
    ordinals: Words = []  # after a day of the month: 3rd
    day_words: bool = False  # a day of the month said in number words before its month: পনেরো ডিসেম্বর, "quince de diciembre"

    parts: dict[Part, Words] = {}  # parts of the day (the hours they stand for are the engine's)
    halves: Halves = Halves()  # am and pm
    hours: Words = []  # after an hour: "5 baje", "5 o'clock"
    counted_hours: CountedHours = CountedHours()
    bound: Words = []  # hour, counter or people words written onto a number word, no space between: আটটায়, পাঁচটা, চারজন
    counters: Words = []  # after an hour or a count of things: "5 ta" is an hour, "2 ta card" two cards,
    postpositions: Words = []  # so a counter is an hour only where no word follows but one of these ("5 ta te")
    links: Words = []  # between an hour and a part of the day: "6 in the evening", "evening at 6"
    times: dict[Annotated[str, Field(pattern=r"^(?:[01]\d|2[0-3]):[0-5]\d$")], Words] = {}  # noon, midnight

    pointers: PointerWords = PointerWords()
    drop: Words = []  # before a filter's name, taking it back: "forget the", "any", "no"
    dropped: Words = []  # after a filter's name, taking it back: "doesn't matter", "koi bhi chalega"
    also: Words = []  # adding to what was asked, not asking instead: "also", "too", "as well", "también", "bhi"
    joins: Words = []  # between two statements of one message: "and", "but", "y", "aur", "และ"
    # saying that a value is someone else's, not the customer's own: "my friend's (number)", "my wife's",
    # "the workshop's", "del taller", "de la sucursal", "su", "mere dost ka"
    others: Words = []
    guard: GuardWords = GuardWords()
    schema_words: SchemaWords = SchemaWords()

    # Reading a message in English, for the models that read English only (assistant/language/reading.py)
    letters: Letters = Letters()
    gloss: dict[str, Words] = {}  # English words and phrases, and the forms customers write them in: "how": [kivabe, কীভাবে]
    suffixes: Words = []  # endings written onto a word, left off to find it: "karder", "অ্যাকাউন্টে"
    not_endings: Words = []  # endings saying "not", read as the word and "not": "korini", "পারিনি"

    @model_validator(mode="after")
    def _alone_are_scales(self) -> Language:
        scales = {key(word) for said in self.scales.values() for word in said}
        stray = [word for word in self.scales_alone if key(word) not in scales]
        if stray:
            raise ValueError(f"scales_alone: {', '.join(stray)} not among the scales")
        return self

    @model_validator(mode="after")
    def _glossed_once(self) -> Language:
        meanings: dict[str, str] = {}
        for english, forms in self.gloss.items():
            for form in forms:
                said = unicodedata.normalize("NFC", key(form))
                if meanings.setdefault(said, english) != english:
                    raise ValueError(f"gloss: {form!r} is both {meanings[said]!r} and {english!r}")
        return self

    @field_validator("digits")
    @classmethod
    def _digits_differ(cls, digits: str) -> str:
        if len(set(digits)) != len(digits):
            raise ValueError("the ten digits must all differ")
        return digits


# ---------------------------------------------------------------- words merged into patterns


def _class_of(category: str) -> str:
    """A regex character class body of the Basic Multilingual Plane's characters in a Unicode category."""
    codes = [code for code in range(0x80, 0x10000) if unicodedata.category(chr(code)).startswith(category)]
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "".join(f"\\u{low:04x}-\\u{high:04x}" for low, high in ranges)


# Vowel signs and other combining marks sit inside words, but regex's \w leaves them out.
_MARK = f"[{_class_of('M')}]"
LETTER = rf"(?:[^\W\d_]|{_MARK})"  # digits may touch a word: "80k", "5pm"
_START = rf"(?<![^\W\d_])(?<!{_MARK})"
END = rf"(?!{LETTER})"
NOTHING = "(?!)"  # the pattern of no words: never matches


def key(said: str) -> str:
    """How a word or a stretch of text is looked up: case and runs of spaces don't count."""
    return " ".join(said.casefold().split())


def _forms(word: str) -> set[str]:
    """The ways one word may be encoded (Bengali য় and Devanagari ज़ come composed or not)."""
    return {key(unicodedata.normalize(form, word)) for form in ("NFC", "NFD")} | {key(word)}


def _phrase(word: str) -> str:
    return r"\s+".join(re.escape(piece) for piece in word.split())


class Table(Generic[V]):
    """One kind of word of every loaded language: a regex matching any of them, and their values."""

    def __init__(self, entries: Iterable[tuple[str, V, bool]], kind: str):
        self.values: dict[str, V] = {}
        spaced: set[str] = set()
        joined: set[str] = set()
        for word, value, is_spaced in entries:
            for form in _forms(word):
                if self.values.setdefault(form, value) != value:
                    raise ValueError(f"{kind}: {word!r} is both {self.values[form]} and {value}")
                (spaced if is_spaced else joined).add(form)
        alternatives = [f"{_START}(?:{_any(spaced)}){END}" if spaced else "", f"(?:{_any(joined)})" if joined else ""]
        self.pattern = "(?:" + "|".join(a for a in alternatives if a) + ")" if spaced or joined else NOTHING

    @classmethod
    def of(cls, languages: Iterable[Language], kind: str, words: Callable[[Language], Mapping[V, list[str]]]) -> Table[V]:
        """Values and their words, as a language file gives them."""
        return cls(((word, value, lang.spaced) for lang in languages for value, said in words(lang).items() for word in said), kind)

    @classmethod
    def words(cls, languages: Iterable[Language], kind: str, words: Callable[[Language], list[str]]) -> Table[str]:
        """Words that only need finding; each stands for itself."""
        return Table(((key(word), key(word), lang.spaced) for lang in languages for word in words(lang)), kind)

    def get(self, said: str) -> V | None:
        return self.values.get(key(said))

    def __contains__(self, said: str) -> bool:
        return key(said) in self.values


def _any(words: set[str]) -> str:
    """Longest first, so "day after tomorrow" wins over "tomorrow" and สามสิบ over สาม."""
    return "|".join(_phrase(word) for word in sorted(words, key=lambda word: (-len(word), word)))
