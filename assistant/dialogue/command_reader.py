"""A message as commands, read in the context of what the conversation holds.

The reader (understanding/reader.py) says what one message says on its own: its intent, filters,
items and facts. Here that reading meets the conversation: whether the message answers the flow
waiting on the customer or sets it aside, whether it asks to change something committed (and
names it), whether it is for one of the pack's extensions, which items on screen it points at. The result is
the list of commands the dialogue policy applies (assistant/dialogue/commands.py); nothing
after this rewrites what the message was understood to ask.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from assistant.booking.desk import CODE, CONFIRMING, BookingDesk
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
    Extended,
    Greet,
    NotUnderstood,
    OutOfScope,
    Refer,
    Search,
    SetSlot,
    ShowMore,
    StartFlow,
    TellFacts,
    first,
)
from assistant.dialogue.extension import FlowAction, Reader
from assistant.dialogue.goals import Goal
from assistant.dialogue.state import SessionState
from assistant.language import phrases
from assistant.pack.model import NEEDS_PRODUCTS, Catalog, IntentType, Product
from assistant.understanding.reader import CONFIDENT, SURE, Intent, PhraseMatcher, Understanding, normalise
from assistant.understanding.references import refer

FOLLOW_UPS = 4  # how far back "and the Creta?" looks for the question it repeats
CANCEL_WORDS = 3  # "never mind", "cancel that please": longer, with nothing active, it asks about something else


class SecondReading(Protocol):
    """What reads a message the rules were unsure of again (LLM mode's turn, assistant/llm): named
    here so the reader needs nothing of the layers above it."""

    def understand(self, query: str, intent: Intent) -> Intent: ...


@dataclass(frozen=True)
class Understood:
    """What a message says (the reading the agents work from) and the commands it carries."""

    reading: Intent
    commands: list[Command]


class CommandReader:
    """Reads each message of a conversation into commands."""

    def __init__(
        self,
        catalog: Catalog,
        understanding: Understanding,
        desk: BookingDesk,
        readers: Sequence[Reader] = (),
        actions: Mapping[str, FlowAction] | None = None,
    ):
        """`readers`: the pack's extensions, asked whether a message is for one of them;
        `actions`: the flow actions they add, which read a flow's answers their own way."""
        self.catalog = catalog
        self.understanding = understanding
        self.desk = desk
        self.readers = readers
        self.actions = actions or {}
        self.rules = understanding.rules
        self.languages = catalog.languages
        self._greetings = PhraseMatcher({"greeting": catalog.vocabulary.intents.get("greeting", [])})
        filters = catalog.pack.filter_attributes()
        self.kinds = {name for name, (_, spec) in filters.items() if spec.as_filter.place == "noun"}  # what an item is: "the mouse"

    def read(self, text: str, state: SessionState, files: bool = False, crew: SecondReading | None = None) -> Understood:
        """`files`: the message brought attachments; `crew`: LLM mode's turn, whose model reads
        what the rules could not place."""
        active = state.goals.active
        # What "that card" or "the fees" can be about: products found or discussed, or being narrowed down.
        in_context = state.has_products() or bool(state.last_discussed()) or state.pending == "clarify_product"
        awaiting = active.missing[0] if active and active.missing and state.pending == "clarify_product" else None
        reading = self.understanding.detect(text, in_context, state.pending, awaiting, state.shown)
        greeted, reading = self._greeting_first(
            text, reading, lambda rest: self.understanding.detect(rest, in_context, state.pending, awaiting, state.shown)
        )
        if reading.type == "cancel" and self._waits(state) and not self._said_cancel(text):
            reading = reading.model_copy(update={"type": "unknown"})  # "fijo" to "fixed or removable?" is no cancel
        reading = self._tapped(reading, text, state)
        extended = self._extended(reading, state, text)
        if crew and not reading.sure and not extended and not self.collecting(active):  # slot answers go to Booking or Support
            reading = crew.understand(text, reading)
        if state.pending == "clarify_product":  # "which one?" answered: what was asked before comes back
            reading = reading.resumed(state.wishes)
        reading = self._at_hand(reading, text, state)
        reading, unsure = self._refer(reading, state)
        reading = self._set_aside_unavailable(reading)
        commands = self._in_context(reading, state, text, files, extended)
        if greeted and not any(isinstance(c, Greet) for c in commands):  # "hi, I want a gaming laptop": hello first
            commands.insert(0, greeted)
        started: StartFlow | None = first(commands, StartFlow)
        if unsure and not (started and self.catalog.pack.flows[started.flow].asks_item):  # the flow asks, keeping the rest said
            commands.append(Clarify(candidates=[p.id for p in unsure]))
        return Understood(reading, commands)

    def _greeting_first(self, text: str, reading: Intent, detect: Callable[[str], Intent]) -> tuple[Greet | None, Intent]:
        """A greeting the message opens with, and the message read (`detect`) without it:
        "สวัสดีครับ อยากได้โน้ตบุ๊ค..." greets and asks for a laptop; a greeting alone stays one."""
        lowered = text.lower()
        blanked = self._greetings.without(lowered)
        if blanked == lowered or len(lowered) != len(text) or reading.thanks:
            return None, reading
        rest = "".join(" " if blank != low else said for said, low, blank in zip(text, lowered, blanked, strict=True))
        if not rest.strip(" ,.!?¡¿-"):
            return None, reading
        greeting = Greet(name=reading.name if reading.name and reading.name[0].isupper() else None)  # as written: a name
        if reading.type != "greeting":
            return greeting, reading
        without = detect(rest)
        if without.type in ("greeting", "unknown"):
            return None, reading
        return greeting, without

    def collecting(self, goal: Goal | None) -> IntentType | None:
        """The intent of the flow this goal runs, when it waits for the customer's answer."""
        if goal is None or goal.status != "blocked" or goal.type not in self.catalog.pack.flows:
            return None
        return cast(IntentType, self.catalog.pack.flows[goal.type].intent)  # start-up checked it is an intent

    def _in_context(self, reading: Intent, state: SessionState, text: str, files: bool, extended: Extended | None) -> list[Command]:
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
                changed = ChangeCommitted(goal=active.id, intent=collecting)  # "no, Thursday", "7 pm then": shown again
                return [changed, *self._slots(active, text)]
            collecting = None  # anything else leaves what was made as it is
        if extended:
            return [extended]
        if self._more(reading, text, state):  # "show me more": the next ones of the same search
            return [ShowMore()]
        if reading.type == "cancel" and active and collecting and self._corrects(active, text):
            corrected = ContinueFlow(goal=active.id, intent=collecting)  # "no" to its yes-or-no question; "nahi, 6 log"
            return [corrected, *self._slots(active, text)]
        kept = None if collecting else board.kept
        if kept and self._changes(kept, reading, text):  # "make it 9pm instead", whatever else it sounds like
            flow_intent = cast(IntentType, self.catalog.pack.flows[kept.type].intent)
            return [ChangeCommitted(goal=kept.id, intent=flow_intent), *self._slots(kept, text)]
        if reading.type == "cancel":
            if active is None and len(text.split()) > CANCEL_WORDS:
                return [AnswerFromHelp()]  # nothing of ours to cancel: "cancel my transfer" is a question for the help centre
            return [Cancel()]
        opens = self._opens(state, text)
        if opens:  # "dale, adelante": the words of a flow start it
            return [StartFlow(flow=opens, intent=cast(IntentType, self.catalog.pack.flows[opens].intent))]
        if active and collecting and self._answers(collecting, active, reading, text, files):
            return [ContinueFlow(goal=active.id, intent=collecting), *self._slots(active, text)]
        if kept and reading.type == "unknown" and self.languages.asks_another(text):  # "book another one"
            return [StartFlow(flow=kept.type, intent=cast(IntentType, self.catalog.pack.flows[kept.type].intent))]
        basket = self._basket(reading, text, state)
        if basket:  # "both together?", "add the mouse to the laptop": their prices added up
            return [Calculate(expression="", items=basket)]
        if reading.follow_up and state.last_asked() == "eligibility_check" and self.catalog.pack.eligibility:
            return [CheckEligibility(), *self._shaping(reading)]  # "what about the Amex Platinum?"
        asked = self._asked_again(reading, state)
        if asked:  # "how much is the Thar?", then "aur Scorpio N ka?": the same question of the one named
            return [AskAttribute(topics=asked), *self._shaping(reading)]
        return self._own(reading, text)

    def _own(self, reading: Intent, text: str) -> list[Command]:
        """The commands of a message on its own: the act it asks for, then what shapes it."""
        kind = reading.type
        acts: dict[IntentType, Command] = {  # by the intents of pack/model.py
            "product_info": Search(),
            "comparison": Compare(),
            "eligibility_check": CheckEligibility(),
            "feature_query": AskAttribute(topics=reading.feature_topics),
            "faq": AnswerFromHelp(),
            "out_of_scope": OutOfScope(),
            "unknown": NotUnderstood(),
            "cancel": Cancel(),
        }
        flow = self.catalog.pack.flow_for(kind)
        if kind == "greeting":
            return [Greet(thanks=reading.thanks, name=reading.name), *self._shaping(reading)]
        if kind == "calculate":
            act: Command = Calculate(expression=reading.expression or "")
        elif flow and self.catalog.pack.flows[flow].books and self._asks_about(reading, kind, text):  # a question, no booking
            act = AnswerFromHelp()
        elif flow:
            act = StartFlow(flow=flow, intent=kind)
        else:
            act = acts[kind]
        return [act, *self._shaping(reading)]

    def _asks_about(self, reading: Intent, kind: str, text: str) -> bool:
        """Whether a message read as starting a flow is a question about it instead: it asks
        something an article answers ("what documents do I need for the test drive?"), or, read
        without confidence, says none of the words that start one ("is the showroom open on Sunday?")."""
        if "?" not in text:
            return False
        unsure = reading.confidence < SURE and kind not in self.understanding.intents.exact(normalise(text))
        return unsure or bool(self.understanding.help_centre and self.understanding.help_centre.answer(text))

    def _tapped(self, reading: Intent, text: str, state: SessionState) -> Intent:
        """A quick reply the last answer offered beside a hand-over, sent back, is the help
        question it is, whatever its words would say ("What documents do I need to apply for a
        credit card?" names a card and says "need")."""
        offered = next((turn.choices for turn in reversed(state.history) if turn.role == "assistant"), [])
        help_centre = self.understanding.help_centre
        if text.strip() not in offered or help_centre is None or help_centre.repeated(text) is None:
            return reading
        return reading.model_copy(update={"type": "faq", "confidence": 1.0, "sure": True})

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

    def _at_hand(self, reading: Intent, text: str, state: SessionState) -> Intent:
        """A question about the items on screen that the words alone read as a help question, or
        as nothing ("which is the lightest?", "the refresh rate of the second one?"), is answered
        from their data; a fault said of one ("the second one won't charge") stays support."""
        pointing = reading.pointing
        if not state.shown or reading.type not in ("faq", "unknown", "out_of_scope", "support"):
            return reading
        if not (pointing or pointing.which or pointing.among or reading.named):
            return reading
        if "support" in self.understanding.intents.exact(normalise(text)):
            return reading
        helps = reading.type == "faq" and self.understanding.help_centre and self.understanding.help_centre.answer(text)
        if helps and not (pointing.which or pointing.among or pointing.positions or pointing.first):
            return reading  # "how do I charge it at home?": an article answers it, whatever "it" is
        among = pointing.which and not (pointing.positions or pointing.first or pointing.single)  # "which has...": all of them
        return reading.model_copy(update={"type": "feature_query", **({"named": list(state.shown)} if among else {})})

    def _asked_again(self, reading: Intent, state: SessionState) -> list[str]:
        """The facts the customer's last question asked of an item, when this message only names
        another item ("what about the Scorpio-N?"): the same facts, of that one."""
        lone = reading.type == "comparison" and len(reading.named) == 1  # "what about the XUV700?": nothing to compare it with
        names = (reading.follow_up or lone) and reading.named and not reading.feature_topics
        if not names:
            return []
        for turn in [t for t in reversed(state.history) if t.role == "user"][:FOLLOW_UPS]:  # "and the Creta?" after "and the Thar?"
            topics = self.understanding.detect(turn.text, True).feature_topics if turn.intent == "feature_query" else []
            if topics or turn.intent != "feature_query":
                return topics
        return []

    def _said_cancel(self, text: str) -> bool:
        """Whether a message says a cancel word, rather than only sounding like one to the router."""
        return "cancel" in self.understanding.intents.exact(normalise(text))

    def _waits(self, state: SessionState) -> bool:
        """Whether a question of ours waits for its answer: a flow's, or an extension's."""
        return bool(self.collecting(state.goals.active) or any(r.waits(state.extensions.get(r.name)) for r in self.readers))

    def _more(self, reading: Intent, text: str, state: SessionState) -> bool:
        """Whether a message asks for the next ones of the list shown and nothing else."""
        asks_nothing_else = not (reading.filters or reading.named or reading.rank or reading.feature_topics or reading.profile)
        routed_cancel = reading.type == "cancel" and not self._said_cancel(text)  # a cancel only the router read: no "no more"
        shopping = reading.type in ("product_info", "unknown", "faq", "out_of_scope") or routed_cancel
        return bool(state.seen) and asks_nothing_else and shopping and self.languages.asks_more(text)

    def _basket(self, reading: Intent, text: str, state: SessionState) -> list[str]:
        """The items a message asks the total price of ("both together", "all three in total",
        "add the mouse to the laptop"): those it names or points at, and those of a kind it names
        that the conversation showed last; none where no agent of the pack may calculate."""
        if not (self.understanding.calculates and self.languages.asks_total(text)):
            return []
        items = list(reading.named)
        shown = self.catalog.products_by_id(state.shown)
        discussed = self.catalog.products_by_id(state.last_discussed())
        referred = refer(reading.pointing, shown, discussed, {}, self.rules) if not items else None
        items += [p.id for p in referred.items] if referred else []
        kinds = {name: value for name, value in reading.filters.items() if name in self.kinds}
        seen = [p for ids in (t.products for t in reversed(state.history)) for p in self.catalog.products_by_id(ids)]
        for name, said in kinds.items():
            for value in said if isinstance(said, list) else [said]:
                last = next((p.id for p in seen if p.id not in items and self.rules.matches(p, {name: value})), None)
                items += [last] if last else []
        return list(dict.fromkeys(items)) if len(set(items)) > 1 else []

    def _extended(self, reading: Intent, state: SessionState, text: str) -> Extended | None:
        """The command for the pack's extension that takes the message: not a cancel, nor an
        answer to a flow under way; one the extension says is for it."""
        active = state.goals.active
        if reading.type == "cancel" or (active and active.type in self.catalog.pack.flows):
            return None
        for reader in self.readers:
            if reader.intent and reader.takes(text, state.extensions.get(reader.name)):
                return Extended(extension=reader.name, intent=reader.intent)
        return None

    def _answers(self, collecting: IntentType, goal: Goal, reading: Intent, text: str, files: bool = False) -> bool:
        """Whether a message is the answer a waiting goal asked for rather than a new request:
        a value for what was asked; other details of it, unless the message is clearly a
        question of its own ("what is today's exchange rate?" gives no day); anything that is
        not clearly another request ("which model?" may be answered with a product's name)."""
        flow = self.catalog.pack.flows[goal.type]
        if reading.type == collecting:
            return True
        details = self.desk.details(goal.type, goal.slots, text)
        if CODE in details or any(flow.slot(name).kind == "phone" for name in details - {CODE}):
            return True  # the code it waits for, or a phone number: no question says one
        asked = set(self.desk.engine.asked(flow, goal.missing))
        interrupts = reading.type in flow.interrupted_by
        other = interrupts or reading.type == "out_of_scope"
        confidently_other = other and reading.confidence >= CONFIDENT and "?" in text  # "today's exchange rate?"
        if (details & asked and not confidently_other) or (details and not self._asks_own(reading, text, flow.interrupted_by)):
            return True
        action = self.actions.get(flow.action)
        if action:  # an extension's flow (a case) takes its files, its status, any value but a help question
            if files or action.asks_progress(goal.type, text):
                return True
            asks = interrupts and "?" in text
            return not asks and (reading.type != "faq" or action.answers(goal.type, goal.slots, text))
        if flow.agent == "support" and reading.thanks:  # "thanks" is no model or symptom
            return False
        waits = goal.missing[0] if goal.missing else None  # a flow's slot, or "item": which of those on screen
        if reading.type == "product_info" and (waits == "item" or any(s.slot == waits and s.kind == "item" for s in flow.slots())):
            return True  # "which card?" answered with a card's name
        return not (interrupts or confidently_other)

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

    def _slots(self, goal: Goal, text: str) -> list[SetSlot]:
        """The values the message gives the goal's flow, each with where it came from: the slot
        asked, one the message names, or one another value implies (a branch: a visit); one
        that replaces a value held is a correction. The flow engine reads them again as it runs."""
        flow = self.catalog.pack.flows[goal.type]
        action = self.actions.get(flow.action)
        flow = action.flow(goal.type, goal.slots) if action else flow  # a flow built for this conversation
        asked = self.desk.engine.asked(flow, goal.missing)
        said = self.desk.said(flow, goal.slots, text, asked)
        implied = {other for s in flow.slots() if s.slot in said for other in s.if_}
        return [
            SetSlot(
                slot=slot,
                value=value,
                source="asked" if slot in asked else "inferred" if slot in implied else "named",
                correction=goal.slots.get(slot) not in (None, value),
            )
            for slot, value in said.items()
        ]

    def _corrects(self, goal: Goal, text: str) -> bool:
        """Whether a "no" answers the flow rather than cancelling it: it picks an option of the
        choice a case asked, or gives one of the flow's details anew ("nahi, 6 log")."""
        return self._chooses(goal, text) or bool(self.desk.details(goal.type, goal.slots, text))

    def _chooses(self, goal: Goal, text: str) -> bool:
        """Whether a message picks an option of the choice an extension's flow waiting for an answer asked ("no")."""
        flow = self.catalog.pack.flows.get(goal.type)
        action = self.actions.get(flow.action) if flow else None
        return bool(action and action.chooses(goal.type, goal.slots, text))

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
        last = [state.focus] if state.focus else next((t.products for t in reversed(state.history) if t.products), [])
        discussed = self.catalog.products_by_id(last)  # what "it" means: the item in focus, else the last reply's
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
