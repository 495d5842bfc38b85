"""A message as commands, read in the context of what the conversation holds.

The reader (understanding/reader.py) says what one message says on its own: its intent, filters,
items and facts. Here that reading meets the conversation: whether the message answers the flow
waiting on the customer or sets it aside, whether it asks to change something committed (and
names it), whether it is for the quotation, which items on screen it points at. The result is
the list of commands the dialogue policy applies (assistant/dialogue/commands.py); nothing
after this rewrites what the message was understood to ask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from assistant.booking.desk import CONFIRMING, BookingDesk
from assistant.dialogue.case import CaseDesk
from assistant.dialogue.commands import (
    AnswerFromHelp,
    AskAttribute,
    Calculate,
    Cancel,
    ChangeCommitted,
    CheckEligibility,
    Clarify,
    Command,
    Compare,
    ConfirmChange,
    ContinueFlow,
    Greet,
    NotUnderstood,
    OutOfScope,
    Quote,
    Refer,
    Search,
    StartFlow,
    TellFacts,
)
from assistant.dialogue.goals import Goal
from assistant.dialogue.quote import wants as wants_quote
from assistant.dialogue.state import SessionState
from assistant.language import phrases
from assistant.pack.model import Catalog, IntentType, Product
from assistant.tools.filters import FilterRules
from assistant.understanding.reader import CONFIDENT, NEEDS_PRODUCTS, Intent, Understanding
from assistant.understanding.references import refer

if TYPE_CHECKING:  # crewai is imported only when an LLM is configured
    from assistant.llm.crew_mode import CrewTurn

CANCEL_WORDS = 3  # "never mind", "cancel that please": longer, with nothing active, it asks about something else


@dataclass(frozen=True)
class Understood:
    """What a message says (the reading the agents work from) and the commands it carries."""

    reading: Intent
    commands: list[Command]


class CommandReader:
    """Reads each message of a conversation into commands."""

    def __init__(self, catalog: Catalog, understanding: Understanding, desk: BookingDesk, cases: CaseDesk | None):
        self.catalog = catalog
        self.understanding = understanding
        self.desk = desk
        self.cases = cases
        self.rules = FilterRules(catalog)
        self.languages = catalog.languages

    def read(self, text: str, state: SessionState, files: bool = False, crew: CrewTurn | None = None) -> Understood:
        """`files`: the message brought attachments; `crew`: LLM mode's turn, whose model reads
        what the rules could not place."""
        active = state.goals.active
        # What "that card" or "the fees" can be about: products found or discussed, or being narrowed down.
        in_context = state.has_products() or bool(state.last_discussed()) or state.pending == "clarify_product"
        awaiting = active.missing[0] if active and active.missing and state.pending == "clarify_product" else None
        reading = self.understanding.detect(text, in_context, state.pending, awaiting, state.shown)
        quoting = self._quoting(reading, state, text)
        if crew and not reading.sure and not quoting and not self.collecting(active):  # slot answers go to Booking or Support
            reading = crew.understand(text, reading)
        if state.pending == "clarify_product":  # "which one?" answered: what was asked before comes back
            reading = reading.resumed(state.wishes)
        reading, unsure = self._refer(reading, state)
        reading = self._set_aside_unavailable(reading)
        commands = self._in_context(reading, state, text, files, quoting)
        if unsure:
            commands.append(Clarify(candidates=[p.id for p in unsure]))
        return Understood(reading, commands)

    def collecting(self, goal: Goal | None) -> IntentType | None:
        """The intent of the flow this goal runs, when it waits for the customer's answer."""
        if goal is None or goal.status != "blocked" or goal.type not in self.catalog.pack.flows:
            return None
        return cast(IntentType, self.catalog.pack.flows[goal.type].intent)  # start-up checked it is an intent

    def _in_context(self, reading: Intent, state: SessionState, text: str, files: bool, quoting: bool) -> list[Command]:
        """The commands of a message that continues, changes or sets aside what the conversation
        holds; otherwise those of the message on its own."""
        board, active = state.goals, state.goals.active
        collecting = self.collecting(active)
        if active and collecting and active.id == board.kept_id:  # a change to what was made, under way
            if active.missing == [CONFIRMING] and (self.languages.agrees(text) or self.languages.declines(text)):
                return [ConfirmChange(goal=active.id, intent=collecting, accept=self.languages.agrees(text))]
            if reading.type == "cancel" or self.languages.declines(text):
                return [ConfirmChange(goal=active.id, intent=collecting, accept=False)]
            if self._changes(active, reading, text) or self._answers(collecting, active, reading, text):
                return [ChangeCommitted(goal=active.id, intent=collecting)]  # "no, Thursday", "7 pm then": shown again
            collecting = None  # anything else leaves what was made as it is
        if quoting:
            return [Quote()]
        if reading.type == "cancel" and active and collecting and self._chooses(active, text):
            return [ContinueFlow(goal=active.id, intent=collecting)]  # "no" answers its yes-or-no question
        kept = None if collecting else board.kept
        if kept and self._changes(kept, reading, text):  # "make it 9pm instead", whatever else it sounds like
            return [ChangeCommitted(goal=kept.id, intent=cast(IntentType, self.catalog.pack.flows[kept.type].intent))]
        if reading.type == "cancel":
            if active is None and len(text.split()) > CANCEL_WORDS:
                return [AnswerFromHelp()]  # nothing of ours to cancel: "cancel my transfer" is a question for the help centre
            return [Cancel()]
        opens = self._opens(state, text)
        if opens:  # "dale, adelante" after a quote: the words of a flow start it
            return [StartFlow(flow=opens, intent=cast(IntentType, self.catalog.pack.flows[opens].intent))]
        if active and collecting and self._answers(collecting, active, reading, text, files):
            return [ContinueFlow(goal=active.id, intent=collecting)]
        if kept and reading.type == "unknown" and self.languages.asks_another(text):  # "book another one"
            return [StartFlow(flow=kept.type, intent=cast(IntentType, self.catalog.pack.flows[kept.type].intent))]
        if reading.follow_up and state.last_asked() == "eligibility_check" and self.catalog.pack.eligibility:
            return [CheckEligibility(), *self._shaping(reading)]  # "what about the Amex Platinum?"
        return self._own(reading)

    def _own(self, reading: Intent) -> list[Command]:
        """The commands of a message on its own: the act it asks for, then what shapes it."""
        kind = reading.type
        acts: dict[str, Command] = {
            "product_info": Search(),
            "comparison": Compare(),
            "eligibility_check": CheckEligibility(),
            "feature_query": AskAttribute(topics=reading.feature_topics),
            "faq": AnswerFromHelp(),
            "out_of_scope": OutOfScope(),
            "unknown": NotUnderstood(),
            "cancel": Cancel(),
            "quote": Quote(),
        }
        flow = self.catalog.pack.flow_for(kind)
        if kind == "greeting":
            return [Greet(thanks=reading.thanks, name=reading.name), *self._shaping(reading)]
        if kind == "calculate":
            act: Command = Calculate(expression=reading.expression or "")
        elif flow:
            act = StartFlow(flow=flow, intent=kind)
        else:
            act = acts[kind]
        return [act, *self._shaping(reading)]

    def _shaping(self, reading: Intent) -> list[Command]:
        """What shapes the act: the items named or pointed at, a comparison or eligibility check
        asked for besides, facts told, a name given."""
        shaping: list[Command] = []
        if reading.named:
            shaping.append(Refer(items=reading.named))
        if reading.wants_comparison and reading.type != "comparison":
            shaping.append(Compare())
        if reading.wants_eligibility and reading.type != "eligibility_check":
            shaping.append(CheckEligibility())
        if reading.profile:
            shaping.append(TellFacts(facts=reading.profile))
        if reading.name and reading.type != "greeting":
            shaping.append(Greet(name=reading.name))
        return shaping

    def _quoting(self, reading: Intent, state: SessionState, text: str) -> bool:
        """Whether the quote desk takes the message (a pack with quote:): not a cancel, nor an
        answer to a flow under way (the case), and one `wants_quote` says is for the quote."""
        setup, elements, active = self.catalog.pack.quote, self.catalog.elements, state.goals.active
        if setup is None or elements is None or reading.type == "cancel" or (active and active.type in self.catalog.pack.flows):
            return False
        return wants_quote(state.quote, text, setup, elements)

    def _answers(self, collecting: IntentType, goal: Goal, reading: Intent, text: str, files: bool = False) -> bool:
        """Whether a message is the answer a waiting goal asked for rather than a new request:
        a value for what was asked; other details of it, unless the message is clearly a
        question of its own ("what is today's exchange rate?" gives no day); anything that is
        not clearly another request ("which model?" may be answered with a product's name)."""
        flow = self.catalog.pack.flows[goal.type]
        if reading.type == collecting:
            return True
        details = self.desk.details(goal.type, goal.slots, text)
        asked = set(self.desk.engine.asked(flow, goal.missing))
        interrupts = reading.type in flow.interrupted_by
        if details & asked or (details and not self._asks_own(reading, text, flow.interrupted_by)):
            return True
        if flow.action == "submit" and self.cases:  # a case takes its files, its status, any value but a help question
            if files or self.cases.asks_progress(goal.type, text):
                return True
            asks = interrupts and "?" in text
            return not asks and (reading.type != "faq" or self.cases.answers(goal.type, goal.slots, text))
        if flow.agent == "support" and reading.thanks:  # "thanks" is no model or symptom
            return False
        if reading.type == "product_info" and goal.missing[:1] and flow.slot(goal.missing[0]).kind == "item":
            return True  # "which card?" answered with a card's name
        return not interrupts

    @staticmethod
    def _asks_own(reading: Intent, text: str, interrupted_by: list[str]) -> bool:
        """Whether a message is clearly a request of its own: a question, or read with
        confidence as one that sets the flow aside, or as one we don't serve."""
        setting_aside = reading.type in interrupted_by or reading.type == "out_of_scope"
        return "?" in text or (setting_aside and reading.confidence >= CONFIDENT)

    def _changes(self, goal: Goal, reading: Intent, text: str) -> bool:
        """Whether a message asks to change what a kept goal made: it says one of its details
        anew, and asks for a change ("move it", "7pm instead") or names what was made ("my test
        drive at 6"). A date in another question ("today's exchange rate?") changes nothing."""
        flow = self.catalog.pack.flows[goal.type]
        if not self.desk.changes(goal.type, goal.slots, text, reading.filters, reading.named):
            return False
        names = [flow.subject, *flow.called] if flow.subject else flow.called
        return self.languages.asks_change(text) or bool(names and phrases(names).search(text))

    def _chooses(self, goal: Goal, text: str) -> bool:
        """Whether a message picks an option of the choice a case waiting for an answer asked ("no")."""
        flow, cases = self.catalog.pack.flows.get(goal.type), self.cases
        return bool(flow and flow.action == "submit" and cases and cases.chooses(goal.type, goal.slots, text))

    def _opens(self, state: SessionState, text: str) -> str | None:
        """The flow whose own words the message says ("ok let's do it"), unless a flow is under way."""
        active = state.goals.active
        if active and active.type in self.catalog.pack.flows and active.status in ("active", "blocked"):
            return None
        flows = self.catalog.pack.flows.items()
        return next((name for name, f in flows if f.start_words and phrases(f.start_words).search(text)), None)

    def _refer(self, reading: Intent, state: SessionState) -> tuple[Intent, list[Product]]:
        """The reading with what the message points at on screen as the items it names (a
        booking's item slot and every agent read those), and the candidates when it can't tell
        which one is meant, unless a fact asked of each answers it anyway, or a flow already
        holds its item and "make it 5pm" is about the booking."""
        if reading.named or not (reading.type in NEEDS_PRODUCTS or self.catalog.pack.flow_for(reading.type)):
            return reading, []
        discussed = self.catalog.products_by_id(next((t.products for t in reversed(state.history) if t.products), []))
        shown = self.catalog.products_by_id(state.shown)
        referred = refer(reading.pointing, shown, discussed, reading.filters, self.rules)
        if referred is None:
            return reading, []
        if referred.unsure and reading.type == "feature_query" and reading.feature_topics:  # "is it in stock?": a line each
            return reading.model_copy(update={"named": [p.id for p in referred.unsure]}), []
        reading = reading.model_copy(update={"named": [p.id for p in referred.items]})
        return reading, referred.unsure if self.collecting(state.goals.active) is None else []

    def _set_aside_unavailable(self, reading: Intent) -> Intent:
        """An item named that the pack's always-on filters exclude (out of stock) is said to be so,
        never shown; when it was all the message named, the alternatives keep the rest of the
        request: the kind of item and the budget, not the brand."""
        always = self.catalog.pack.search.always
        named = self.catalog.products_by_id(reading.named)
        gone = [p for p in named if not self.rules.matches(p, always)]
        if not gone:
            return reading
        kept_named = [p.id for p in named if p not in gone]
        update: dict[str, object] = {"named": kept_named, "unavailable": [p.name for p in gone]}
        if kept_named:
            return reading.model_copy(update=update)
        filters = self.catalog.pack.filter_attributes()
        kinds = {name: gone[0].value(attribute) for name, (attribute, spec) in filters.items() if spec.as_filter.place == "noun"}
        by_name = self.understanding.detect(gone[0].name, False).filters  # "Acer": the brand is in its name
        kept = {name: value for name, value in reading.filters.items() if name not in by_name}
        for name in self.catalog.pack.search.require:  # no budget said: the item's own price is one
            attribute, spec = filters[name]
            if name not in kept and spec.type == "number" and isinstance(price := gone[0].value(attribute), (int, float)):
                kept[name] = price
        update["filters"] = {**{k: v for k, v in kinds.items() if v is not None}, **kept}
        if reading.type in NEEDS_PRODUCTS:
            update["type"] = "product_info"
        return reading.model_copy(update=update)
