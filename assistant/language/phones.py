"""Phone numbers as customers write them: found in any text, read into E.164. A number's form is
language, like a date's, so readers, flows and the privacy masks share it here below the pack
(a pack's business only supplies its numbering plan)."""

from __future__ import annotations

import re
from typing import Protocol

PHONE_LIKE = re.compile(r"(?<![\d+])\+?\d[\d -]{6,17}\d(?!\d)")  # then e164() says whether it is one


class Numbering(Protocol):
    """A country's numbering plan (a pack's business is one)."""

    @property
    def country_code(self) -> str: ...  # "+880"

    @property
    def national_number_digits(self) -> int: ...


def e164(raw: str, plan: Numbering) -> str | None:
    """A phone number in E.164, or None if it is not one. A local number (the national number,
    with or without a leading 0) gets the plan's country code; another country's number needs its + (or 00).
    Digits may be any script's (০-৯, ०-९, ๐-๙)."""
    digits = "".join(str(int(c)) if c.isdigit() else c for c in re.sub(r"[\s-]", "", raw))  # ০১৭… is 017…
    country = plan.country_code
    if digits.startswith("00"):
        digits = "+" + digits[2:]
    elif digits.startswith(country[1:]):
        digits = "+" + digits
    elif not digits.startswith("+"):
        digits = country + digits.removeprefix("0")
    if digits.startswith(country):
        national = digits[len(country) :]
        return digits if len(national) == plan.national_number_digits else None
    return digits if 8 <= len(digits) - 1 <= 15 else None
