"""When a conversation goes to people, what the customer is told, and what the queue shows of it.

The pipeline asks the desk before a turn (is a person handling this conversation, is the panic
switch on, does the message ask for a person) and after it (did the pack's rules or two
misunderstandings in a row hand it over). The desk words the honest answer: the expected wait
while people answer, else when they next do and whom to call meanwhile.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import numpy as np

from assistant.dialogue.state import SessionState
from assistant.dialogue.work import TurnWork
from assistant.handover.store import AlreadyWaiting, Handover, HandoverStore
from assistant.infra.allowance import ASKER
from assistant.language.lexicon import WEEKDAYS, Weekday
from assistant.language.privacy import words_masked
from assistant.pack.handover import HandoverRules
from assistant.pack.model import Catalog
from assistant.pack.texts import say, weekday_words
from assistant.tools.embeddings import MiniLMEmbedder

SUMMARY_ITEMS = 3  # items named in a queue's summary line


class PeopleDesk:
    def __init__(
        self, catalog: Catalog, pack: str, store: HandoverStore, clock: Callable[[], dt.datetime], embedder: MiniLMEmbedder
    ):
        """`pack`: the domain pack's name, which the queue shows; `embedder` reads what questions
        nobody answered mean, to group them."""
        self.catalog = catalog
        self.pack = pack
        self.store = store
        self.embedder = embedder
        self.clock = clock

    @property
    def rules(self) -> HandoverRules:
        """The pack's rules, in the reply's language (the phone to call outside hours)."""
        return self.catalog.pack.handover

    def before_turn(self, session_id: str, text: str) -> tuple[Handover | None, str | None]:
        """The conversation's hand-over if people have it, and the reason to hand it over now if
        not: the panic switch is on, or the message asks for a person."""
        held, panic = self.store.standing(session_id)
        if held is not None:
            return held, None
        if panic:
            return None, "panic"
        return None, "asked" if self.catalog.languages.asks_for_person(text) else None

    def after_turn(self, work: TurnWork, misunderstood: int) -> str | None:
        """Why the turn just answered hands the conversation to people, if it does: a pack rule,
        or `misunderstood` turns in a row not understood."""
        out, step, goal = work.out, work.out.flow_step, work.request.goal
        if out.faq and out.faq.id in self.rules.articles:
            return "article"
        if step and step.submitted and goal and goal.type in self.rules.flows:
            return "flow_done"
        if step and step.unplaced and self.rules.unplaced:
            return "unplaced"
        return "not_understood" if misunderstood >= self.rules.misunderstood else None

    def hand_over(self, state: SessionState, reason: str) -> tuple[str, bool]:
        """What the customer is told, and whether the conversation joined the queue: it does not
        while another of the same client (the signed-in customer, else the address) waits there."""
        asker = ASKER.get()
        client = f"customer:{state.customer_id}" if state.customer_id else f"address:{asker.client}" if asker else None
        try:
            self.store.hand_over(state.session_id, self.pack, reason, self.summary(state), client)
        except AlreadyWaiting as waiting:
            return say(self.catalog, "handover_already", place=waiting.place), False
        return self.announcement(), True

    def announcement(self) -> str:
        now = self.clock()
        if self.rules.open_at(now):
            return say(self.catalog, "handover_now", wait=self.rules.wait_minutes)
        opens = self.rules.opening(now)
        return say(
            self.catalog,
            "handover_later",
            hours=self.hours(),
            opens=f"{weekday_words(opens.date(), self.catalog)} {opens:%H:%M}" if opens else "",
            phone=self.rules.phone or self.catalog.business.support_contact,
        )

    def hours(self) -> str:
        """When people answer, days with the same hours together, in the replies' language:
        "Sunday-Thursday 09:00-20:00, Saturday 10:00-16:00"."""
        spans: dict[tuple[dt.time, dt.time], list[Weekday]] = {}
        for day in WEEKDAYS:
            if day in self.rules.hours:
                spans.setdefault(self.rules.hours[day], []).append(day)
        return ", ".join(f"{self._days(days)} {start:%H:%M}-{end:%H:%M}" for (start, end), days in spans.items())

    def _days(self, days: list[Weekday]) -> str:
        """ "Sunday-Thursday" for three or more days in a row (the week wraps), else the days listed."""
        at = sorted(WEEKDAYS.index(day) for day in days)
        starts = [i for i in at if (i - 1) % 7 not in at] or [0]  # every day: from Monday
        if len(at) > 2 and len(starts) == 1:  # one run of days
            return f"{self._day(starts[0])}-{self._day(starts[0] + len(at) - 1)}"
        return "/".join(self._day(i) for i in at)

    def _day(self, index: int) -> str:
        """The name of the week's day `index` (0 is Monday), in the reply's language."""
        return say(self.catalog, f"weekday_{WEEKDAYS[index % 7]}")

    def summary(self, state: SessionState) -> str:
        """A line for the queue: the goal and how far it got, the items discussed, the last question."""
        parts = []
        active = state.goals.active
        if active is not None:
            flow = self.catalog.pack.flows.get(active.type)
            done = len([s for s in flow.slots() if active.slots.get(s.slot)]) if flow else 0
            parts.append(f"{active.type}: {done} of {len(flow.slots())} details" if flow else active.type)
        names = [p.name for p in self.catalog.products_by_id(state.shown or state.product_ids)]
        if names:
            more = f" +{len(names) - SUMMARY_ITEMS}" if len(names) > SUMMARY_ITEMS else ""
            parts.append(", ".join(names[:SUMMARY_ITEMS]) + more)
        asked = state.recent_user_texts(1)
        if asked:
            parts.append(f"last asked: {words_masked(asked[0])}")
        return " · ".join(parts) or "nothing asked before"

    def note_unanswered(self, text: str, reason: str) -> None:
        """A question the assistant didn't answer, masked, with what it means to group it by."""
        said = words_masked(text)
        vector = None if self.embedder.blind(said) else self.embedder.embed_one(said).astype(np.float32).tobytes()
        self.store.note_unanswered(said, reason, vector)
