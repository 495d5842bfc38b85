"""An example drawing a reply can send: what a good photo or document looks like (a file under the pack's images/)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict


class Example(BaseModel):
    """A photo or document someone needs, with a drawing of what a good one looks like."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    shown: ClassVar[tuple[str, ...]] = ("label",)

    key: str
    label: str
    example: str | None = None  # a file under the pack's images/ folder
