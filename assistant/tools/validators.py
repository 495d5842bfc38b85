"""The checks on a value a customer typed into a form (assistant/pack/checks.py says which): number bounds, a pattern, a length, and
named checks that are a country's or an industry's convention (a national id's check letter,
a vehicle identification number). Pack data selects them per field; the reasons are text
keys, so the pack words the refusal (assistant/pack/texts.yaml, `check_*`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from assistant.pack.checks import Check, NamedCheck

_ID_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_ID_PREFIXES = {"X": "0", "Y": "1", "Z": "2"}
_ID = re.compile(r"^([XYZ]?)(\d{7,8})([A-Z])$")
_VIN = re.compile(r"^[A-HJ-NPR-Z0-9]{17}$")  # 17 characters; I, O and Q are never used
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_DATE = (re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$"), re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$"))
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")
_SEPARATORS = re.compile(r"[\s.-]")


@dataclass(frozen=True)
class Verdict:
    """A value as kept (normalised), or the reason it is refused: a text key and its values."""

    value: str | float | None = None
    reason: str | None = None
    values: dict[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.reason is None


def check_number(said: str, check: Check | None) -> Verdict:
    """The number said ("98,5 dB" is 98.5), within the bounds."""
    found = _NUMBER.search(said)
    if found is None:
        return Verdict(reason="check_number")
    number = float(found.group(0).replace(",", "."))
    if check and check.min is not None and number < check.min:
        return Verdict(reason="check_min", values={"low": _plain(check.min)})
    if check and check.max is not None and number > check.max:
        return Verdict(reason="check_max", values={"high": _plain(check.max)})
    return Verdict(value=int(number) if number.is_integer() else number)


def check_text(said: str, check: Check | None) -> Verdict:
    """The text said, normalised by its named check, within its length and pattern."""
    value = said.strip()
    if check is None:
        return Verdict(value=value) if value else Verdict(reason="check_length", values={"low": 1})
    if check.named:
        verdict = NAMED[check.named](value)
        if not verdict.ok:
            return verdict
        value = str(verdict.value)
    if check.min_length is not None and len(value) < check.min_length:
        return Verdict(reason="check_length", values={"low": check.min_length})
    if check.max_length is not None and len(value) > check.max_length:
        return Verdict(reason="check_too_long", values={"high": check.max_length})
    if check.pattern and not re.fullmatch(check.pattern, value, re.IGNORECASE):
        return Verdict(reason="check_pattern")
    return Verdict(value=value.upper() if check.pattern and not check.named else value)  # a code, kept in capitals


def id_check_letter(said: str) -> Verdict:
    """A national id whose last letter is its number modulo 23; the kept value has no spaces."""
    value = _SEPARATORS.sub("", said.upper())
    found = _ID.fullmatch(value)
    if found is None or (found.group(1) and len(found.group(2)) != 7) or (not found.group(1) and len(found.group(2)) != 8):
        return Verdict(reason="check_id_format")
    number = int(_ID_PREFIXES.get(found.group(1), "") + found.group(2))
    if _ID_LETTERS[number % 23] != found.group(3):
        return Verdict(reason="check_id_letter")
    return Verdict(value=value)


def vin(said: str) -> Verdict:
    value = _SEPARATORS.sub("", said.upper())
    if len(value) != 17:
        return Verdict(reason="check_vin_length", values={"count": len(value)})
    return Verdict(value=value) if _VIN.fullmatch(value) else Verdict(reason="check_vin")


def email(said: str) -> Verdict:
    value = said.strip().strip(".").lower()
    return Verdict(value=value) if _EMAIL.fullmatch(value) else Verdict(reason="check_email")


def date(said: str) -> Verdict:
    """A day as dd/mm/yyyy (or with - or .) or yyyy-mm-dd, kept as yyyy-mm-dd."""
    value = said.strip()
    for order, pattern in enumerate(_DATE):
        found = pattern.fullmatch(value)
        if found:
            day, month, year = (int(g) for g in (found.groups() if order == 0 else reversed(found.groups())))
            try:
                return Verdict(value=dt.date(year, month, day).isoformat())
            except ValueError:
                break
    return Verdict(reason="check_date")


NAMED: dict[NamedCheck, Callable[[str], Verdict]] = {"id_check_letter": id_check_letter, "vin": vin, "email": email, "date": date}


def _plain(number: float) -> str:
    return f"{number:g}"
