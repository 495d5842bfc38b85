"""Declared rules on replies (pack.yaml `constraints:`): a statement of some kind, found by its
pattern, is allowed only in a turn where the tool that backs it ran ("price requires tool").

A reply that breaks one is written again by the model where the rule allows (LLM mode), and
otherwise replaced by the rule's template text; offline replies are checked the same way.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Remedy = Literal["regenerate", "template"]


class Constraint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    pattern: str  # what the statement looks like in a reply (an amount in euros)
    # the tools, any one of which must have run in the same turn to back it (a price: the
    # tariff, or the catalog's search over the same prices); one tool may be written alone
    requires: list[str] = Field(min_length=1)
    on_violation: list[Remedy] = Field(default=["regenerate", "template"], min_length=1)
    template: str = "constraint_broken"  # the text said instead (assistant/pack/texts.yaml)

    @field_validator("requires", mode="before")
    @classmethod
    def _one_or_more(cls, requires: str | list[str]) -> list[str]:
        return [requires] if isinstance(requires, str) else requires

    @model_validator(mode="after")
    def _valid(self) -> Constraint:
        re.compile(self.pattern)
        if self.on_violation[-1] != "template" or len(set(self.on_violation)) != len(self.on_violation):
            raise ValueError(f"constraints.{self.name}: on_violation ends with template, each remedy once")
        return self

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)

    def broken_by(self, reply: str, tools_run: Collection[str]) -> bool:
        return not set(self.requires) & set(tools_run) and bool(self.regex.search(reply))


def broken(reply: str, tools_run: Collection[str], constraints: Collection[Constraint]) -> list[Constraint]:
    """The constraints a reply breaks, given the tools that ran in its turn."""
    return [c for c in constraints if c.broken_by(reply, tools_run)]
