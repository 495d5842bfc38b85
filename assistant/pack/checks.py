"""What a form field's value must be, as pack data says it (a field's `validation`): number
bounds, a pattern, a length, or a named check that is a country's or an industry's convention.
assistant/tools/validators.py runs them."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# id_check_letter: 8 digits and a letter, or a letter, 7 digits and a letter, the last letter
# the number modulo 23 (the convention of Spain's DNI and NIE).
NamedCheck = Literal["id_check_letter", "vin", "email", "date"]


class Check(BaseModel):
    """What a field's value must be (pack data: a field's `validation`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: float | None = None  # numbers
    max: float | None = None
    pattern: str | None = None  # the whole value, regardless of case ("^\\d{4}\\s?[B-DF-HJ-NP-TV-Z]{3}$")
    min_length: int | None = Field(default=None, ge=0)
    max_length: int | None = Field(default=None, ge=1)
    named: NamedCheck | None = None

    @model_validator(mode="after")
    def _sane(self) -> Check:
        if self.pattern:
            re.compile(self.pattern)
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("validation: min is above max")
        return self
