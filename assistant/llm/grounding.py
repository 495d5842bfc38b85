"""The guard on LLM replies: every figure, product name and verdict must come from the turn's data.

A model may rephrase, never invent. The facts a reply may use are the turn's tool results
(products, comparison, verdicts, FAQ answer), the deterministic draft reply, and what the
customer wrote. Figures are read as the pack writes them: its currency's sign and words, and the
number words and scales of its languages ("80k", "two thousand"). A figure counts as a claim
when it carries a currency mark or a percent sign, or is 100 or more; small bare numbers (list
markers, counts) are free. The pack's declared constraints (pack.yaml `constraints:`, "a price
requires the tariff tool") are checked here too, against the tools the turn ran.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from assistant.pack.constraints import Constraint, broken
from assistant.pack.model import Catalog

_LEAKS = re.compile(
    r"\b(?:search_products|search_faq|compare_products|check_eligibility)\b"
    r"|^\s*(?:Thought|Action|Action Input|Observation|Final Answer):",
    re.MULTILINE,
)
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
    return problems


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
