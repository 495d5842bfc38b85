"""Prompt-injection guard: messages that try to override the assistant's instructions, extract
its prompt, or change prices are refused before any agent or model sees them.

Attackers disguise the words, so a message is checked as written, with its spacing and
look-alike characters undone, with any base64, hex or rot13 payload decoded, and joined to
the customer's previous two messages (an attack split across turns).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from collections.abc import Callable
from functools import cache
from typing import Literal

Attack = Literal["override_instructions", "extract_prompt", "change_prices"]

_PATTERNS: dict[Attack, str] = {
    "override_instructions": (
        r"\b(ignore|disregard|forget|override|bypass|skip)\b.{0,40}\b(instructions?|rules?|prompts?|guidelines?|"
        r"polic(y|ies)|restrictions?|directives?)\b"
        r"|\byou are (now|no longer)\b|\b(pretend|act|behave) (to be|as|like) (an?|the|my)\b"
        r"|\b(developer|god|admin|debug|jailbreak|dan) mode\b|\bjailbreak\b|\bnew instructions?\b"
        r"|^\s*(system|assistant)\s*:|<\s*/?\s*(system|instructions?)\s*>|\bfrom now on,? (you|your)\b"
        r"|\b(bhool|bhul|bhule) (jao|ja|jaao|jaiye)\b|\b(ignore|nazarandaz) kar ?(o|do)\b"
        r"|\b(nirdesh|niyom|niyam|instructions?|rules?) (bhule|bhul|bhool) (jao|ja|jaiye)\b"
    ),
    "extract_prompt": (
        r"\b(system|initial|hidden|original|secret|internal) (prompt|instructions?|message|rules?)\b"
        r"|\b(reveal|show|print|repeat|output|display|tell|leak|dump|give)\b.{0,30}\byour\b.{0,20}"
        r"\b(prompt|instructions?|configuration|config|backstory|source code)\b|\bthe (system )?prompt\b"
        r"|\b(repeat|print) (the|everything) (text |words )?(above|before)\b|\bwhat were you told\b"
        r"|\b(prompt|instructions?|rules?) (batao|bataiye|dikhao|dekhao|bolo)\b"
    ),
    "change_prices": (  # CURRENCY: the pack's currency marks, so "to <sign>0" is caught whatever the currency
        r"\b(set|change|make|update|lower|reduce|drop|cut)\b.{0,40}\b(fee|fees|price|prices|rate|interest|"
        r"charges?)\b.{0,60}\b(to|=)\s*(?:CURRENCY)?\s*\d"
        r"|\b(fee|fees|price|rate|interest)\b.{0,20}\b(is now|are now|should now be|will now be)\b"
        r"|\bfrom now on\b.{0,60}\b(costs?|fee|price|free)\b"
        r"|\b(fee|price|rate|dam|daam)\b.{0,20}\b(kam|zero|0|free|shunno|mukt)\b.{0,10}\b(kar ?(o|do)|kore dao|koro)\b"
    ),
}
_SPACED = re.compile(r"\b(?:\w[ .\-_*]){3,}\w\b")
_B64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){8,}\b")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))


def check(message: str, earlier: list[str], currency: str) -> Attack | None:
    """The kind of attack this message makes (alone or with the customer's last two messages);
    `currency` is a regex of the pack's currency as written (Business.currency_mark)."""
    texts = [message, " ".join([*earlier[-2:], message])]
    patterns = _compiled(currency)
    for text in texts:
        for variant in _variants(text):
            for kind, pattern in patterns.items():
                if pattern.search(variant):
                    return kind
    return None


@cache
def _compiled(currency: str) -> dict[Attack, re.Pattern[str]]:
    return {kind: re.compile(pattern.replace("CURRENCY", currency), re.IGNORECASE) for kind, pattern in _PATTERNS.items()}


def _variants(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    despaced = _SPACED.sub(lambda m: re.sub(r"[ .\-_*]", "", m.group(0)), plain)
    variants = [plain, despaced]
    variants += [_decoded(token, base64.b64decode) for token in _B64.findall(plain)]
    variants += [_decoded(token, bytes.fromhex) for token in _HEX.findall(plain)]
    if re.search(r"\brot ?13\b", plain, re.IGNORECASE):
        variants.append(codecs.decode(plain, "rot13"))
    return [v for v in variants if v]


def _decoded(token: str, decode: Callable[[str], bytes]) -> str:
    try:
        return decode(token).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return ""
