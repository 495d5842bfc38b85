"""When a conversation goes to the business's people, and what the customer is told then.

Every pack hands over when the customer asks for a person and when the assistant failed to
understand twice in a row; a pack adds its own rules (a fraud report's article, a completed
case, a booking no hour can take) and says when its people answer.
"""

from __future__ import annotations

import datetime as dt
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from assistant.language.lexicon import WEEKDAYS, Weekday


class HandoverRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    shown: ClassVar[tuple[str, ...]] = ("phone",)

    wait_minutes: int = Field(default=10, ge=1, le=24 * 60)  # the wait customers are told, within hours
    hours: dict[Weekday, tuple[dt.time, dt.time]] = {}  # when people answer, in the business's time zone; none: always
    phone: str | None = None  # whom to call outside those hours; none: the business's support contact
    misunderstood: int = Field(default=2, ge=1)  # turns in a row not understood before people take over
    articles: list[str] = []  # help articles whose answer hands over: a fraud report, a complaint
    flows: list[str] = []  # flows whose completion hands over: a case for the office
    unplaced: bool = True  # a booking no hour can take goes to people

    def open_at(self, now: dt.datetime) -> bool:
        """Whether people answer at `now` (the business's local time)."""
        if not self.hours:
            return True
        span = self.hours.get(WEEKDAYS[now.weekday()])
        return span is not None and span[0] <= now.time() < span[1]

    def opening(self, now: dt.datetime) -> dt.datetime | None:
        """When people next answer, from `now` on (within a week); None: never, by these hours."""
        for ahead in range(8):
            day = now.date() + dt.timedelta(days=ahead)
            span = self.hours.get(WEEKDAYS[day.weekday()])
            if span is None:
                continue
            start = dt.datetime.combine(day, span[0], now.tzinfo)
            if ahead or now.time() < span[1]:
                return max(start, now)
        return None
