"""A message read in English, for models that read English only (MiniLM, and what it learnt).

Customers of a Bangladeshi bank write "নতুন কার্ড কীভাবে চালু করব?" or "notun card kivabe chalu
korbo". A model trained on English reads neither, though half the words are English ones
(কার্ড is "card") and the rest are everyday words. So such a message is read word by word:
- a word in the language's gloss is its English ("kivabe", "কীভাবে": "how"), found also with an
  ending written onto it ("karder", "অ্যাকাউন্টে");
- a word in the script is written in Latin letters as its customers write it (`Letters`): an
  English loanword then reads as English ("ট্রান্সফার": "transfar");
- a Latin word the business's own English doesn't have is matched to one of its words that
  sounds the same, consonant by consonant ("transfar": "transfer", "akaunt": "account").

What comes out ("new card how activate do?") is rough English, but a classifier over sentence
embeddings finds its meaning: blended with the multilingual model's reading, the bank's Bangla
dev questions get the right article for 0.585 of those an article answers, from 0.304 with that
model alone (bench/intent_eval.py --lang bn, docs/understanding.md).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from assistant.language.detect import LATIN, Detector, Written, script
from assistant.language.lexicon import LETTER, Language, key

_WORD = re.compile(rf"{LETTER}+")
_ENGLISH = Written("en", native=False)  # what a text no word of which tells is taken to be
_LATIN = re.compile(r"[a-z]+")
_VOWELS = frozenset("aeiou")
SOUNDS = 3  # consonants a word must have to be matched by its sound: fewer match too many words
# Spellings of one sound, as loanwords are written in Latin letters ("v" for "bh", "f" for "ph").
_SAME_SOUND = (
    ("ng", "n"), ("ph", "f"), ("bh", "b"), ("v", "b"), ("sh", "s"), ("th", "t"), ("dh", "d"), ("kh", "k"),
    ("gh", "g"), ("ck", "k"), ("q", "k"), ("z", "j"), ("w", ""),
)  # fmt: skip


def sound(word: str) -> str:
    """A Latin word's consonants as they sound: "transfar" and "transfer" are both "trnsfr",
    "kard" and "card" "krd", "exchenj" and "exchange" "ksxnj"."""
    word = re.sub(r"g(?=[eiy])", "j", word.lower()).replace("x", "ks")  # before "ch" is written x:
    word = word.replace("ch", "\0").replace("c", "k").replace("\0", "x")  # "parchhe" (can) is no "purchase"
    for spelt, said in _SAME_SOUND:
        word = word.replace(spelt, said)
    return re.sub(r"(.)\1+", r"\1", re.sub(r"[aeiouyh]", "", word))


class Romaniser:
    """Writes one language's script in Latin letters, longest run of letters first."""

    def __init__(self, language: Language):
        letters = language.letters
        self.letters = letters
        self.consonants = {_nfc(c): latin for c, latin in letters.consonants.items()}
        self.others = {_nfc(c): latin for table in (letters.vowels, letters.signs, letters.marks) for c, latin in table.items()}
        self.signs = {_nfc(c) for c in letters.signs}
        self.longest = max(map(len, [*self.consonants, *self.others]), default=1)

    def _at(self, word: str, at: int, table: dict[str, str]) -> str | None:
        return next((word[at : at + n] for n in range(self.longest, 0, -1) if word[at : at + n] in table), None)

    def __call__(self, word: str) -> str:
        out: list[str] = []
        at = 0
        while at < len(word):
            consonant = self._at(word, at, self.consonants)
            if consonant is None:
                other = self._at(word, at, self.others) or word[at]
                out.append(self.others.get(other, other if other != self.letters.virama else ""))
                at += len(other)
                continue
            out.append(self.consonants[consonant])
            at += len(consonant)
            sign = self._at(word, at, self.others)
            if sign in self.signs or word[at : at + 1] == self.letters.virama:
                continue  # its own vowel, or none
            # The vowel a consonant carries is said at a word's start and before another bare
            # consonant, not at its end nor before a consonant with a vowel of its own ("notun").
            following = self._at(word, at, self.consonants)
            bare = following is not None and self._at(word, at + len(following), self.others) not in self.signs
            if at == len(consonant) or bare:
                out.append(self.letters.inherent)
        return "".join(out)


class Reading:
    """A message of the business's languages read in English; `words`: the business's own
    English (its help articles; those in the other languages are left out), which loanwords are
    matched to."""

    def __init__(self, detector: Detector, codes: tuple[str, ...], languages: tuple[Language, ...], words: Iterable[str]):
        """`detector`: the languages' own, which tells a message's language."""
        self._detector = detector
        glossed = [(code, lang) for code, lang in zip(codes, languages, strict=True) if lang.gloss]
        self.codes = frozenset(code for code, _ in glossed)
        self._gloss = {_nfc(key(form)): english for _, lang in glossed for english, forms in lang.gloss.items() for form in forms}
        self._not_endings = [_nfc(key(e)) for _, lang in glossed for e in lang.not_endings]
        self._suffixes = sorted({_nfc(key(s)) for _, lang in glossed for s in lang.suffixes}, key=len, reverse=True)
        self._romanisers = {self._detector.scripts[code]: Romaniser(lang) for code, lang in glossed if lang.letters.consonants}
        english = [text for text in words if (self._detector.written_in(text) or _ENGLISH).code not in self.codes]
        known: Counter[str] = Counter(
            w for text in english for w in _LATIN.findall(text.lower()) if w not in self._gloss
        )  # the gloss's words are the other languages', whatever text they turn up in
        self._known = frozenset(known)
        by_sound: dict[str, Counter[str]] = {}
        for word, count in known.items():
            if len(sound(word)) >= SOUNDS:
                by_sound.setdefault(sound(word), Counter())[word] = count
        self._by_sound = {said: words.most_common(1)[0][0] for said, words in by_sound.items()}
        self.english = lru_cache(maxsize=1024)(self._english)

    def _english(self, text: str) -> str | None:
        """The message in English, or None where it is not in a language with a gloss (English
        itself, or a language the engine can't read in English yet)."""
        written = self._detector.written_in(text)
        if written is not None and written.native and self._detector.scripts[written.code] != LATIN:
            if self._detector.scripts[written.code] not in self._romanisers:  # Thai, Devanagari: read as written
                return None
        elif not any(key(word) in self._gloss for word in _LATIN.findall(_nfc(text.lower())) if word not in self._known):
            return None  # English: no word of it is one the gloss has as written and the business's English doesn't
        return _WORD.sub(lambda m: self._word(m.group()), _nfc(text.lower()))

    def glosses(self, word: str) -> bool:
        """Whether the gloss knows the word, or its stem with an ending written onto it."""
        return self._glossed(word) is not None

    def _word(self, word: str) -> str:
        if word in self._gloss or word in self._known:
            return self._gloss.get(word, word)
        glossed = self._glossed(word)
        if glossed:
            return glossed
        romaniser = self._romanisers.get(script(word[0]))
        if romaniser is None and not word.isascii():
            return word
        latin = romaniser(word) if romaniser else word
        return self._glossed(latin) or self._sounded(latin) or latin

    def _glossed(self, word: str) -> str | None:
        """The English of the word, or of its stem with an ending left off ("not" with it)."""
        word = key(word)
        for ending in self._not_endings:
            stem = word[: -len(ending)]
            if word not in self._gloss and word.endswith(ending) and len(stem) >= 2 and stem in self._gloss:
                return f"{self._gloss[stem]} not"
        for stem in self._stems(word):
            if stem in self._gloss:
                return self._gloss[stem]
        return None

    def _sounded(self, word: str) -> str | None:
        """The business's own word the Latin word is, or sounds the same as."""
        for stem in self._stems(word):
            if stem in self._known:
                return stem
            said = sound(stem)
            known = self._by_sound.get(said) if len(said) >= SOUNDS else None
            if known and (known[0] in _VOWELS) == (stem[0] in _VOWELS):  # "eimatro" is no "mother"
                return known
        return None

    def _stems(self, word: str) -> list[str]:
        """The word, then the word without each ending it may have written onto it."""
        word = key(word)
        return [word, *(word[: -len(s)] for s in self._suffixes if word.endswith(s) and len(word) - len(s) >= 2)]


def _nfc(text: str) -> str:
    """One encoding of a text: Bengali য় and Devanagari ज़ come composed or not."""
    return unicodedata.normalize("NFC", text)
