"""The guard on LLM replies: every figure, product name and verdict must come from the turn's data.

A model may rephrase, never invent. The facts a reply may use are the turn's tool results
(products, comparison, verdicts, FAQ answer), the deterministic draft reply, and what the
customer wrote. Figures are read as the pack writes them: its currency's sign and words, and the
number words and scales of its languages ("80k", "two thousand"). A figure counts as a claim
when it carries a currency mark or a percent sign, or is 100 or more; small bare numbers (list
markers, counts) are free. The pack's declared constraints (pack.yaml `constraints:`, "a price
requires the tariff tool") are checked here too, against the tools the turn ran.

Beyond facts, a reply must be language (no control characters), show nothing of the prompts it
was written from, use no currency but the pack's, name only dates and times the data names,
bind each figure to the item whose data has it, promise no action the turn's data doesn't
state ("we'll call you"), give no web address the data doesn't, and keep the question the
flow is waiting on.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache

from assistant.language import Found
from assistant.pack.constraints import Constraint, broken
from assistant.pack.model import Catalog

_LEAKS = re.compile(
    r"\b(?:search_products|search_faq|compare_products|check_eligibility)\b"
    r"|^\s*(?:Thought|Action|Action Input|Observation|Final Answer):",
    re.MULTILINE,
)
_MARKERS = ("<<<", ">>>")  # the prompts' data markers
_LINK = re.compile(r"(?:https?://|www\.)[^\s)\]>]*", re.IGNORECASE)  # a web address: a place to go the data must name
SHINGLE = 6  # words in a row repeated from a prompt's instructions: its text shown to the customer
_WORD = re.compile(r"\w+")
_SENTENCE = re.compile(r"[^\n.!?।]+(?:[.!?।](?!\d)|$)")  # up to its end (a danda's too), not a decimal point
MIN_LETTERS = 0.3  # the share of a reply's visible characters that are letters, at least
FRAMING_SENTENCES = 2  # the model's own sentences kept around the verified draft, at most
REPEAT_WORDS = 3  # words in a row a framing sentence shares with the draft: a repeat
_SAYS_ELIGIBLE = re.compile(r"\byou(?:'re| are)\s+(?:fully\s+)?eligible\b|\byou\s+qualify\b", re.IGNORECASE)
_SAYS_INELIGIBLE = re.compile(r"\b(?:not|n't|in)\s*eligible\b|\bdo(?:n't| not)\s+qualify\b", re.IGNORECASE)


def figures(text: str, catalog: Catalog, claims_only: bool = False) -> set[float]:
    """The numbers in a text, normalised: 300,000 after the currency's sign or before its word,
    and "300 thousand", are all 300000; 23% is 23."""
    found = set()
    for m in _numbers(catalog.business.currency_mark).finditer(catalog.languages.amounts(text)):
        value = float(m["number"].replace(",", ""))
        is_claim = bool(m["currency"] or m["after"] or m["percent"]) or value >= 100
        if is_claim or not claims_only:
            found.add(round(value, 4))
    return found


@cache
def _numbers(currency: str) -> re.Pattern[str]:
    """A figure, with the currency mark or percent sign that may come with it."""
    return re.compile(
        rf"(?P<currency>{currency})?\s*(?P<number>\d{{1,3}}(?:,\d{{2,3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
        rf"\s*(?:(?P<percent>%|percent\b)|(?=\s*(?P<after>{currency})))?",
        re.IGNORECASE,
    )


@dataclass
class Facts:
    """What one turn's reply may state."""

    text: str  # tool results, draft reply and the customer's message, as one text
    product_names: set[str]
    verdicts: list[bool | None] | None = None
    tools_run: set[str] = field(default_factory=set)  # what the pack's constraints require
    items: dict[str, str] = field(default_factory=dict)  # each item's name -> its own data, as text
    question: str | None = None  # the question the flow waits on: the reply must keep it
    instructions: str = ""  # the prompts the reply was written from: none of it may be shown


def violations(reply: str, facts: Facts, catalog: Catalog) -> list[str]:
    """What in the reply is not backed by the turn's facts; empty when the reply is grounded."""
    known = figures(facts.text, catalog)
    problems = [f"the figure {_show(n)}" for n in sorted(figures(reply, catalog, claims_only=True) - known)]
    known_names = {p.name for p in catalog.products}
    said = [name for name in known_names if name in reply]  # catalog products the reply names
    if catalog.pack.name_pattern:  # and names shaped like products, to catch invented ones
        said += [m.group(0) for m in re.finditer(catalog.pack.name_pattern, reply)]
    for name in dict.fromkeys(said):
        if not any(name.endswith(allowed) for allowed in facts.product_names):
            problems.append(
                f"the product '{name}'" + ("" if any(name.endswith(k) for k in known_names) else " (not in our catalog)")
            )
    if _LEAKS.search(reply):
        problems.append("the assistant's internal tool names or reasoning")
    verdicts = facts.verdicts or []
    if _claims(_SAYS_INELIGIBLE, reply) and False not in verdicts:
        problems.append("a 'not eligible' verdict the rules did not give")
    if _claims(_SAYS_ELIGIBLE, reply) and True not in verdicts:
        problems.append("an 'eligible' verdict the rules did not give")
    problems += [
        f"a statement the {' or '.join(c.requires)} tool did not back ({c.name})" for c in constrained(reply, facts, catalog)
    ]
    return problems + _form(reply, facts, catalog)


def _form(reply: str, facts: Facts, catalog: Catalog) -> list[str]:
    """What is wrong with the reply beyond its facts."""
    problems = []
    visible = [c for c in reply if not c.isspace()]
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn") for c in reply if c not in "\n\r\t") or (
        visible and sum(c.isalpha() for c in visible) / len(visible) < MIN_LETTERS
    ):
        problems.append("text that is not language")
    if any(marker in reply for marker in _MARKERS) or _shingles(reply) & (_shingles(facts.instructions) - _shingles(facts.text)):
        problems.append("the text of its instructions")
    problems += [f"the link {link}" for link in sorted(set(_LINK.findall(reply)) - set(_LINK.findall(facts.text)))]
    foreign = sorted({c for c in reply if unicodedata.category(c) == "Sc" and c not in catalog.business.currency_symbol})
    problems += [f"a price in another currency ({sign})" for sign in foreign]
    languages, today = catalog.languages, dt.date.today()
    for kind, find in (("time", languages.find_time), ("date", lambda text: languages.find_date(text, today))):
        problems += [f"the {kind} {value}" for value in sorted(_all(find, reply) - _all(find, facts.text))]
    problems += [f"the figure {_show(n)} said of {name}" for name, n in _misattributed(reply, facts, catalog)]
    promised = languages.promises(reply) - languages.promises(facts.text)
    problems += [f"a promise the data doesn't make ('{words}')" for words in sorted(promised)]
    if facts.question and _key_words(facts.question) - _key_words(reply):
        problems.append("the question the customer must answer next")
    return problems


def framing(reply: str, draft: str, catalog: Catalog, items: Iterable[str] = ()) -> str:
    """Grounding by construction: of what the model wrote, only its sentences that state nothing
    (no figure, item, date, time, verdict, promise or prompt text, and no words in a row from an
    item's own data, `items`: "it offers rewards for travel and office supplies"), that are
    finished, ask nothing (the draft asks what the flow needs) and that the draft doesn't already
    say, at most FRAMING_SENTENCES of them. The reply is then these and the draft, so every fact
    a customer reads comes from the engine's verified draft."""
    nothing = Facts(text="", product_names=set())
    data = set().union(*(_shingles(text, REPEAT_WORDS) for text in items))
    kept = []
    for sentence in (s.strip() for s in _SENTENCE.findall(reply)):
        if not sentence or sentence[0] in "|#>" or any(c.isdigit() for c in sentence):
            continue  # tables, headings, quotes and anything with a number are the draft's to say
        if sentence[-1] not in ".!।":
            continue  # a question is the draft's to ask; an unfinished end, the token cap's cut
        if violations(sentence, nothing, catalog) or _repeats(sentence, draft) or _shingles(sentence, REPEAT_WORDS) & data:
            continue
        kept.append(sentence.lstrip("-*• "))
    return " ".join(kept[:FRAMING_SENTENCES])


def _repeats(sentence: str, draft: str) -> bool:
    """Whether the draft already says most of the sentence."""
    said = _shingles(sentence, REPEAT_WORDS)
    words = {w.casefold() for w in _WORD.findall(sentence)}
    if not said:
        return words <= {w.casefold() for w in _WORD.findall(draft)}
    return len(said & _shingles(draft, REPEAT_WORDS)) * 2 >= len(said)


def _shingles(text: str, size: int = SHINGLE) -> set[tuple[str, ...]]:
    words = [w.casefold() for w in _WORD.findall(text)]
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def _all(find: Callable[[str], Found | None], text: str) -> set[str]:
    """Every value `find` finds in the text (it finds the last one: the text is cut before it)."""
    values = set()
    while (found := find(text)) is not None:
        values.add(found.value)
        text = text[: found.start]
    return values


def _misattributed(reply: str, facts: Facts, catalog: Catalog) -> list[tuple[str, float]]:
    """Figures a sentence naming one item gives it that its own data doesn't have (another item's fee)."""
    wrong = []
    for sentence in _SENTENCE.findall(reply):
        named = [name for name in facts.items if name in sentence]
        if len(named) != 1:
            continue  # none, or a comparison: several items' figures side by side
        own = figures(facts.items[named[0]], catalog)
        wrong += [
            (named[0], n) for n in sorted(figures(sentence, catalog, claims_only=True) - own) if n in figures(facts.text, catalog)
        ]
    return wrong


def _key_words(text: str) -> set[str]:
    """A question's words that carry it (three letters or more), to find it again in a reply."""
    return {w.casefold() for w in _WORD.findall(text) if len(w) > 2}


def constrained(reply: str, facts: Facts, catalog: Catalog) -> list[Constraint]:
    """The pack's constraints the reply breaks."""
    return broken(reply, facts.tools_run, catalog.pack.constraints)


def regenerable(reply: str, facts: Facts, catalog: Catalog) -> bool:
    """Whether the model may write the reply again: no constraint it breaks goes straight to its template."""
    return all("regenerate" in rule.on_violation for rule in constrained(reply, facts, catalog))


def _claims(pattern: re.Pattern[str], reply: str) -> bool:
    """A verdict stated, not asked about ("check whether you're eligible" states nothing)."""
    return any(
        not re.search(r"\b(?:whether|if)\s*$", reply[max(0, m.start() - 9) : m.start()], re.IGNORECASE)
        for m in pattern.finditer(reply)
    )


def _show(number: float) -> str:
    return f"{number:g}"
