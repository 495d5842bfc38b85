"""One chat turn, top to bottom: understand, reset stale cache, clarify, run agents, commit.

Only the agents a message needs run (a follow-up reuses the session's cached products
instead of retrieving again), and the Formatter always runs last.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from flask import Flask

from agents.crew import OFFLINE as AGENTS
from agents.work import HELP_INTENTS, Services, TurnOutput, TurnRequest, TurnWork
from assistant.attachments.store import ATTACHMENTS, AttachmentStore
from assistant.booking.codes import BookingStore, redact_codes
from assistant.booking.desk import BookingDesk
from assistant.booking.notifications import NOTIFIER
from assistant.booking.reminders import REMINDERS
from assistant.cases.store import CASES
from assistant.dialogue.case import CaseDesk, Submitter
from assistant.dialogue.goals import QUICK_PRIORITY, Goal
from assistant.dialogue.preferences import PreferenceStore, learn, starting_state, welcome_back
from assistant.dialogue.quote import wants as wants_quote
from assistant.dialogue.sessions import COMMIT_ATTEMPTS, LOCKS, STORE, SessionLocks, SessionStore, VersionConflict
from assistant.dialogue.state import SessionState, Turn, Wishes
from assistant.handover.desk import PeopleDesk
from assistant.handover.store import HANDOVERS
from assistant.infra.config import SETTINGS, Settings, bookings_file, sessions_file
from assistant.infra.counters import shared_counters
from assistant.infra.extensions import Slot
from assistant.language import phrases
from assistant.pack import texts as formatting
from assistant.pack.constraints import broken
from assistant.pack.display import public_product
from assistant.pack.model import Catalog, FactValue, Filter, IntentType, Product
from assistant.tools.filters import Filters
from assistant.tools.gateway import ToolGateway
from assistant.tools.retrieval import CATALOG, INDEX, CatalogIndex
from assistant.understanding import guard
from assistant.understanding.reader import NEEDS_PRODUCTS, Details, Intent, Understanding
from assistant.understanding.references import refer
from assistant.understanding.router import Router
from assistant.web import telemetry
from assistant.web.concierge import SERVICE_READER, TABLES
from assistant.web.pack_files import example_url
from assistant.web.schemas import ChatRequest, ChatResponse, Handler, HelpResult, ImageLink

if TYPE_CHECKING:  # crewai is imported only when an LLM is configured
    from assistant.llm.crew_mode import CrewMode

EventSink = Callable[[str, dict[str, Any]], None]
# What a message must be to set aside a goal waiting for the customer's answer.
INTERRUPTIONS = {
    "booking": ("faq", "feature_query", "comparison", "eligibility_check", "calculate", "support", "product_info"),
    "support": ("booking", "comparison", "eligibility_check", "calculate"),
}
CANCEL_WORDS = 3  # "never mind", "cancel that please": longer, with nothing active, it asks about something else


class CrewPipeline:
    def __init__(
        self,
        catalog: Catalog,
        index: CatalogIndex,
        store: SessionStore,
        locks: SessionLocks,
        settings: Settings,
        desk: BookingDesk,
        preferences: PreferenceStore,
        crew_mode: CrewMode | None = None,
        details: Details | None = None,
        attachments: AttachmentStore | None = None,
        cases: Submitter | None = None,
        *,
        people: PeopleDesk,
    ):
        """`details`: the pack's service reader, where it has one (the restaurants' schema);
        `attachments`: where the files a message references are kept; `cases`: where a case
        flow hands its cases to the office; `people`: the desk of the business's people, who
        take conversations over."""
        self.catalog = catalog
        self.index = index
        self.store = store
        self.locks = locks
        self.settings = settings
        self.desk = desk
        self.preferences = preferences
        self.understanding = Understanding(catalog, Router.for_pack(catalog, index.embedder), index.help, details)
        self.tools = ToolGateway(catalog, index)
        self.rules = index.rules
        self.crew_mode = crew_mode  # None: no LLM configured, every turn is offline
        self.attachments = attachments
        self.people = people
        self.services = Services(
            catalog,
            index,
            self.tools,
            min(settings.max_products, catalog.pack.search.max_results),
            settings.faq_min_similarity,
            desk,
            CaseDesk(catalog, desk.engine, cases, desk.clock) if cases and catalog.elements else None,
        )

    def run(self, request: ChatRequest, on_event: EventSink | None = None, replay_key: str | None = None) -> ChatResponse:
        """Answer one message; retried on a fresh copy if another worker committed first.

        `on_event(kind, data)` hears each agent start and finish, for clients that stream.
        `replay_key`: the client's id for this message. Its answer is saved with the turn, and a
        message sent again with it gets that answer back instead of a second turn.
        """
        emit = on_event or (lambda kind, data: None)
        session_id = request.session_id or str(uuid.uuid4())
        for _ in range(COMMIT_ATTEMPTS):
            with self.locks.lock(session_id):
                state = self.store.load(session_id) or SessionState(session_id=session_id)
                state.claim(request.customer_id)
                if replay_key and (answer := self.store.recall(session_id, replay_key)) is not None:
                    return ChatResponse.model_validate_json(answer)
                attack = guard.check(
                    request.query,
                    state.recent_user_texts(guard.EARLIER),
                    self.catalog.business.currency_mark,
                    self.catalog.languages,
                )
                if attack:  # refused before any agent or model sees it, and nothing is saved
                    return self._refusal(state, attack, emit)
                response = self._with_people(state, request, emit) or self._turn(state, request, emit)
                saved = state.model_copy(update={"version": state.version + 1})  # the state as the save below writes it
                response.state = saved.summary(self.catalog.pack.private_slots)
                try:
                    self.store.save(state, (replay_key, response.model_dump_json()) if replay_key else None)
                except VersionConflict:
                    continue
                return response
        raise VersionConflict(session_id)

    def _refusal(self, state: SessionState, attack: str, emit: EventSink) -> ChatResponse:
        reply = formatting.say(self.catalog, "refusal")
        return self._said(state, reply, {"type": "refused", "filters": {}, "reason": attack}, emit)

    def _with_people(self, state: SessionState, request: ChatRequest, emit: EventSink) -> ChatResponse | None:
        """A conversation people have, or one this message hands to them (the panic switch is on,
        or it asks for a person). The assistant then says only what happens next, and nothing
        once a person has it; the message waits in the transcript for them."""
        held, reason = self.people.before_turn(state.session_id, request.query)
        if held is None and reason is None:
            return None
        if reason is not None:
            reply = self.people.hand_over(state, reason)
        else:
            assert held is not None, "no reason to hand over: people have it already"
            self.people.note_unanswered(request.query, held.reason)
            reply = "" if held.operator else formatting.say(self.catalog, "handover_waiting")
        limit = self.settings.history_limit
        state.remember(Turn(role="user", text=request.query, intent="handover"), limit)
        if reply:
            state.remember(Turn(role="assistant", text=reply, intent="handover", agents=["formatter"]), limit)
        why = reason or (held.reason if held else None)
        return self._said(state, reply, {"type": "handover", "filters": {}, "reason": why}, emit, handled_by="human")

    def _said(
        self, state: SessionState, reply: str, intent: dict[str, Any], emit: EventSink, handled_by: Handler = "assistant"
    ) -> ChatResponse:
        """A reply that no agent but the Formatter (none, for an empty one) had to work on."""
        agents = ["formatter"] if reply else []
        for name in agents:
            emit("agent", {"name": name, "status": "started"})
            emit("agent", {"name": name, "status": "finished"})
        return ChatResponse(
            session_id=state.session_id,
            reply=reply,
            intent=intent,
            agents=agents,
            products=[],
            comparison=None,
            eligibility=None,
            ask_user=None,
            choices=[],
            mode="offline",
            handled_by=handled_by,
            help=HelpResult(handover=handled_by == "human"),
            state=state.summary(self.catalog.pack.private_slots),
        )

    def _turn(self, state: SessionState, request: ChatRequest, emit: EventSink) -> ChatResponse:
        crew = self.crew_mode.start_turn() if self.crew_mode and request.mode != "offline" else None
        known = self.preferences.get(request.customer_id) if request.customer_id else None
        welcome = None
        if known and not known.is_empty() and not state.history:  # a returning customer's new session
            starting_state(known, state, self.catalog)
            welcome = welcome_back(known, self.catalog)

        # 1. Detect intent and filters (and what the customer told us about themselves);
        #    in LLM mode the model reads what the rules could not.
        # What "that card" or "the fees" can be about: products found or discussed, or being narrowed down.
        in_context = state.has_products() or bool(state.last_discussed()) or state.pending == "clarify_product"
        active = state.goals.active
        awaiting = active.missing[0] if active and active.missing and state.pending == "clarify_product" else None
        intent = self.understanding.detect(request.query, in_context, state.pending, awaiting, state.shown)
        quoting = self._quoting(intent, state, request.query)  # what to homologate, a variant, the example images
        if crew and not intent.sure and not quoting and not self._collecting(active):  # slot answers go to Booking or Support
            intent = crew.understand(request.query, intent)
        if intent.type == "cancel" and active is None and len(request.query.split()) > CANCEL_WORDS:
            intent.type = "faq"  # nothing of ours to cancel: "cancel my transfer" is a question for the help centre
        if quoting:
            intent.type = "quote"
        opens = self._opens(state, request.query)
        if opens:  # "dale, adelante" after a quote: the words of a flow start it
            intent.type = opens
        if state.pending == "clarify_product":
            intent.resume(state.wishes)
        if intent.follow_up and state.last_asked() == "eligibility_check" and self.catalog.pack.eligibility:
            intent.type, intent.wants_eligibility = "eligibility_check", True  # "what about the Amex Platinum?"
        unsure = self._refer(intent, state)  # "the second one", "it": the items on screen it means
        self._set_aside_unavailable(intent)  # "is the Nitro V 15 any good?" when none is in stock
        state.profile = _merge_profile(self.catalog, state.profile, intent.profile, request.page_fact)

        # 2. Continue the active goal or start one; a higher-priority request suspends it.
        goal = self._plan_goal(intent, state, request.query, bool(request.attachments))

        # 3. Reset the cached products if the filters in effect changed.
        filters, selection = self._resolve_products(intent, state)
        across = self._across_catalog(intent, state)
        said = {name: value for name, value in filters.items() if name not in intent.guessed or state.filters.get(name) == value}
        if filters != state.filters:
            state.reset_products()
            state.filters = filters

        # 4. Ask one clarifying question if a search needs a filter (a budget) or is too broad.
        question = self._which_one(unsure) if unsure else None if selection else self._clarifying_question(intent, state)

        # 5. Assemble only the agents needed; the Formatter always runs last.
        agents = [] if question else self._select_agents(intent, state, selection)
        out = TurnOutput(selection=selection, across_catalog=across and bool(selection))
        files = self.attachments.get(state.session_id, request.attachments) if self.attachments and request.attachments else []
        work = TurnWork(TurnRequest(request.query, intent, state, goal, files), self.services, out)
        if question:
            (work.out.ask_user, work.out.choices, missing), work.out.pending = question, "clarify_product"
            if goal is not None:
                goal.missing = [missing]
        for name in [*agents, "formatter"]:
            emit("agent", {"name": name, "status": "started"})
            AGENTS[name](work)
            emit("agent", {"name": name, "status": "finished"})
        if work.out.faq and intent.type in HELP_INTENTS:  # an article answers it: a help question after all
            intent.type = "faq"
        work.out.reply = self._constrained(work.out.reply, work)
        if crew and not question:
            emit("draft", {"text": work.out.reply})  # verified already: a stream shows it while the model writes
            work.out.reply = crew.write_reply(agents, work)  # a model frames it, and weighs a comparison

        # 6. Close or block the goal (resuming a suspended one), then commit the session
        #    and what the customer showed they prefer; a filter only a model read narrowed
        #    this search alone ("whats good" read as conventional cards isn't the customer's wish).
        state.filters = said
        self._settle_goal(goal, work, state)
        if welcome:
            work.out.reply = f"{welcome}\n\n{work.out.reply}"
        handed = self._hand_over_after(intent, work, state, bool(question))
        self._update_state(state, work, [*agents, "formatter"], request.query)
        if known is not None and request.customer_id:
            learned = learn(known, state, request.query, self.catalog)
            if learned is not known:
                self.preferences.save(request.customer_id, learned)
        return ChatResponse(
            session_id=state.session_id,
            reply=work.out.reply,
            intent=intent.public(),
            agents=[*agents, "formatter"],
            products=[public_product(p, self.catalog) for p in work.out.products],
            comparison=work.out.comparison.model_dump() if work.out.comparison else None,
            eligibility=[v.model_dump() for v in work.out.verdicts] if work.out.verdicts is not None else None,
            ask_user=work.out.ask_user,
            choices=work.out.choices,
            mode=crew.mode if crew else "offline",
            grounding=crew.grounding if crew else None,
            llm_calls=crew.calls if crew else 0,
            booking=work.out.flow_step.booking if work.out.flow_step else None,
            images=_images(work),
            help=HelpResult(
                article=work.out.faq.id if work.out.faq else None,
                suggested=[e.id for e in work.out.suggestions],
                handover=work.out.handover or handed,
            ),
            handled_by="human" if handed else "assistant",
            state=state.summary(self.catalog.pack.private_slots),
        )

    def _hand_over_after(self, intent: Intent, work: TurnWork, state: SessionState, asked_back: bool) -> bool:
        """Whether this turn hands the conversation to people (a pack rule, or the assistant not
        understanding again), telling the customer so after the answer. A question nobody
        answered is kept for the console, masked."""
        understood = asked_back or work.out.faq is not None or intent.type not in ("unknown", "faq")
        state.misunderstood = 0 if understood else state.misunderstood + 1
        if not understood:
            self.people.note_unanswered(work.request.query, "not_understood")
        reason = self.people.after_turn(work, state.misunderstood)
        if reason is None:
            return False
        state.misunderstood = 0
        work.out.reply = f"{work.out.reply}\n\n{self.people.hand_over(state, reason)}".strip()
        return True

    def _plan_goal(self, intent: Intent, state: SessionState, text: str, files: bool = False) -> Goal | None:
        """The goal this message serves. A booking or troubleshooting goal waiting for an answer
        takes it; a request the pack groups with the active goal (a sale's follow-ups) continues
        it; a message that changes a booking made ("make it 7pm instead") reopens its goal, and
        one that is unclear but for asking for another ("book another one") books another;
        anything else starts a new goal, suspending the active one if it matters more.
        "Never mind" cancels whatever is active; "thanks" closes a sale that stays open, or a
        troubleshooting that waits for an answer."""
        board, active = state.goals, state.goals.active
        if intent.type == "cancel" and active and self._chooses(active, text):
            intent.type = cast(IntentType, self.catalog.pack.flows[active.type].intent)  # "no" answers its yes-or-no question
            return active
        if intent.type == "cancel":
            return active
        goal_type, kind = self.catalog.pack.goal_kind(intent.type)
        collecting = self._collecting(active)
        if collecting and active and self._answers(collecting, active, intent, text, files):
            intent.type = collecting
            return active
        kept = None if collecting else board.kept
        if kept and self._changes(kept, intent, text):
            board.reopen(kept, "customer changes what it made")
            intent.type = cast(IntentType, self.catalog.pack.flows[kept.type].intent)  # a kept goal is a flow's
            return kept
        if kept and intent.type == "unknown" and self.desk.engine.languages.asks_another(text):
            intent.type = cast(IntentType, self.catalog.pack.flows[kept.type].intent)  # "book another one"
            goal_type, kind = self.catalog.pack.goal_kind(intent.type)
        if active and active.type == goal_type and kind and kind.stays_open:
            return active
        if active and active.type == goal_type == "quote":  # one quote, however many questions it asks
            return active
        if active and intent.thanks and (self._stays_open(active) or collecting == "support"):
            board.finish(active, "customer said thanks")
        return board.start(goal_type, f"customer asked: {intent.type}", kind.priority if kind else QUICK_PRIORITY)

    def _answers(self, collecting: str, goal: Goal, intent: Intent, text: str, files: bool = False) -> bool:
        """Whether a message is the answer a waiting goal asked for rather than a new request:
        anything that fills one of a booking's details, or anything that is not clearly
        another request ("which model?" may be answered with a product's name)."""
        if intent.type == collecting or self.desk.answers(goal.type, goal.slots, text):
            return True
        flow = self.catalog.pack.flows[goal.type]
        cases = self.services.cases
        if flow.action == "submit" and cases:  # a case takes its files, its status, any value but a help question
            if files or cases.asks_progress(goal.type, text):
                return True
            asks = intent.type in HELP_INTENTS and "?" in text
            return not asks and (intent.type != "faq" or cases.answers(goal.type, goal.slots, text))
        if collecting == "support" and intent.thanks:  # "thanks" is no model or symptom
            return False
        if intent.type == "product_info" and goal.missing[:1] and flow.slot(goal.missing[0]).kind == "item":
            return True  # "which card?" answered with a card's name
        return intent.type not in INTERRUPTIONS[collecting]

    def _chooses(self, goal: Goal, text: str) -> bool:
        """Whether a message picks an option of the choice a case waiting for an answer asked ("no")."""
        flow, cases = self.catalog.pack.flows.get(goal.type), self.services.cases
        return bool(
            flow and flow.action == "submit" and cases and self._collecting(goal) and cases.chooses(goal.type, goal.slots, text)
        )

    def _opens(self, state: SessionState, text: str) -> IntentType | None:
        """The intent of a flow whose own words the message says ("ok let's do it"), unless a flow is under way."""
        active = state.goals.active
        if active and active.type in self.catalog.pack.flows and active.status in ("active", "blocked"):
            return None
        flows = self.catalog.pack.flows.values()
        return next((cast(IntentType, f.intent) for f in flows if f.start_words and phrases(f.start_words).search(text)), None)

    def _stays_open(self, goal: Goal) -> bool:
        kind = self.catalog.pack.goal_kinds.get(goal.type)
        return bool(kind and kind.stays_open)

    def _collecting(self, goal: Goal | None) -> IntentType | None:
        """The intent of the flow this goal runs, when it waits for the customer's answer."""
        if goal is None or goal.status != "blocked" or goal.type not in self.catalog.pack.flows:
            return None
        intent = self.catalog.pack.flows[goal.type].intent
        return cast(IntentType, intent) if intent in INTERRUPTIONS else None  # the pack's flows start on known intents

    def _settle_goal(self, goal: Goal | None, work: TurnWork, state: SessionState) -> None:
        board = state.goals
        if goal is None:
            return
        step = work.out.flow_step
        if step is not None:  # the flow's slots as they now stand: agents return them, the pipeline keeps them
            goal.slots, goal.missing = step.slots, step.missing
        finished = step is not None and step.done
        if work.request.intent.type == "cancel":
            resumed = board.finish(goal, "customer said never mind", status="cancelled")
        elif work.out.ask_user and not finished:
            board.block(
                goal,
                goal.missing or [work.out.pending or "answer"],
                work.out.ask_user,
                work.out.choices,
                "waiting for the customer's answer",
            )
            return
        elif self._stays_open(goal):  # answered, but the sale goes on until the customer is done
            board.answered(goal, "answered; the customer may ask more")
            return
        else:
            resumed = board.finish(goal, "answered", keep=bool(step and step.booking))
        if resumed:
            work.out.reply = f"{work.out.reply}\n\n{formatting.resumed(resumed, self.catalog)}"
            work.out.ask_user, work.out.choices = resumed.next_question, resumed.choices

    def _refer(self, intent: Intent, state: SessionState) -> list[Product]:
        """Turns what the message points at on screen into the items it names (a booking's item
        slot and every agent read those); returns the candidates when it can't tell which one is
        meant, unless a fact asked of each answers it anyway, or a flow already holds its item
        and "make it 5pm" is about the booking."""
        if intent.named or not (intent.type in NEEDS_PRODUCTS or self.catalog.pack.flow_for(intent.type)):
            return []
        discussed = self.catalog.products_by_id(next((t.products for t in reversed(state.history) if t.products), []))
        shown = self.catalog.products_by_id(state.shown)
        referred = refer(intent.pointing, shown, discussed, intent.filters, self.rules)
        if referred is None:
            return []
        if referred.unsure and intent.type == "feature_query" and intent.feature_topics:  # "is it in stock?": a line each
            intent.named = [p.id for p in referred.unsure]
            return []
        intent.named = [p.id for p in referred.items]
        return referred.unsure if self._collecting(state.goals.active) is None else []

    def _set_aside_unavailable(self, intent: Intent) -> None:
        """An item named that the pack's always-on filters exclude (out of stock) is said to be so,
        never shown; when it was all the message named, the alternatives keep the rest of the
        request: the kind of item and the budget, not the brand."""
        always = self.catalog.pack.search.always
        named = self.catalog.products_by_id(intent.named)
        gone = [p for p in named if not self.rules.matches(p, always)]
        if not gone:
            return
        intent.named = [p.id for p in named if p not in gone]
        intent.unavailable = [p.name for p in gone]
        if intent.named:
            return
        filters = self.catalog.pack.filter_attributes()
        kinds = {name: gone[0].value(attribute) for name, (attribute, spec) in filters.items() if spec.as_filter.place == "noun"}
        by_name = self.understanding.detect(gone[0].name, False).filters  # "Acer": the brand is in its name
        kept = {name: value for name, value in intent.filters.items() if name not in by_name}
        for name in self.catalog.pack.search.require:  # no budget said: the item's own price is one
            attribute, spec = filters[name]
            if name not in kept and spec.type == "number" and isinstance(price := gone[0].value(attribute), (int, float)):
                kept[name] = price
        intent.filters = {**{k: v for k, v in kinds.items() if v is not None}, **kept}
        if intent.type in NEEDS_PRODUCTS:
            intent.type = "product_info"

    def _which_one(self, candidates: list[Product]) -> tuple[str, list[str], str]:
        names = [p.name for p in candidates]
        return formatting.say(self.catalog, "which_one", items=formatting.one_of(names, self.catalog)), names, "item"

    def _resolve_products(self, intent: Intent, state: SessionState) -> tuple[Filters, list[Product]]:
        """The filters in effect after this message, and the cached products it is about.

        Items the message names ("compare Thar and Scorpio") are the selection. A new search
        merges the message's filters into the session's (and the pack's always-on filters). A
        follow-up that names some of the cached products ("the Mastercard one") selects among
        them instead; only if it names something not cached does it become a new search.
        """
        if intent.type not in NEEDS_PRODUCTS:
            return state.filters, []
        if self._ranks_at_hand(intent, state):  # "which of these is cheaper?"
            return state.filters, self.catalog.products_by_id(intent.named or state.shown)
        if intent.named and (intent.type != "product_info" or set(intent.named) <= set(state.shown)):
            return state.filters, self.catalog.products_by_id(intent.named)  # named, or pointed at on screen
        if intent.named:  # "tell me about the XUV700": the Retriever finds what was named
            return state.filters, []
        if self._across_catalog(intent, state):  # "which cards can I get?": every match
            merged = {**self.catalog.pack.search.always, **state.filters, **self._narrowing(intent)}
            return merged, [p for p in self.catalog.products if self.rules.matches(p, merged)]
        cached = self.catalog.products_by_id(state.product_ids)
        discussed = state.last_discussed()
        single = self.catalog.product(discussed[0]) if len(discussed) == 1 else None
        if intent.type == "feature_query" and not intent.filters and single:
            return state.filters, [single]  # "that card": the one just discussed
        if state.pending in self.catalog.pack.profile and intent.type == "eligibility_check" and not intent.filters:
            cached = [p for p in cached if p.id in state.last_discussed()] or cached
        if intent.type != "product_info" and cached:
            selection = [p for p in cached if self.rules.matches(p, intent.filters)]
            if selection:
                return state.filters, selection
        kept = {name: value for name, value in state.filters.items() if name not in intent.dropped}  # "any brand"
        merged = {**self.catalog.pack.search.always, **kept, **self._narrowing(intent)}
        return merged, cached if merged == state.filters else []  # other filters: a new search

    def _across_catalog(self, intent: Intent, state: SessionState) -> bool:
        """Whether an eligibility question is about every item ("which cards can I get?" or a fact
        told with nothing on screen, and what follows such an answer)."""
        if intent.type != "eligibility_check" or intent.named:
            return False
        return not state.has_products() or state.across_catalog

    @staticmethod
    def _narrowing(intent: Intent) -> Filters:
        """The filters a message adds to the search: not those of an enquiry about items it names
        ("is the Galaxy S23 any good?" asks about one phone, it doesn't narrow later searches to Samsung)."""
        return {} if intent.named else intent.filters

    @staticmethod
    def _ranks_at_hand(intent: Intent, state: SessionState) -> bool:
        """Whether a ranking is of the items on screen ("which is cheaper?", "the better rated of
        the two") rather than of the catalog ("the cheapest SUV", "anything cheaper?", "the card
        with the lowest fee"): it points at them, or asks for nothing new, nothing beyond them,
        and is no superlative that says what kind of item it ranks."""
        if intent.rank is None or len(intent.named or state.shown) < 2 or intent.pointing.beyond:
            return False  # one item is no ranking: "any cheaper ones?" after one is a search
        if intent.rank_all and not (intent.named or intent.pointing.among or intent.pointing.every):
            return False  # "the lowest-fee card I can get": a superlative that says what it ranks
        asks_new = any(state.filters.get(name) != value for name, value in intent.filters.items())
        return bool(intent.named or intent.pointing or intent.pointing.among) or not asks_new

    def _clarifying_question(self, intent: Intent, state: SessionState) -> tuple[str, list[str], str] | None:
        """The question for a filter the pack requires before searching (a budget), or, once only,
        for the first unanswered filter when a search would be too broad."""
        if intent.type not in NEEDS_PRODUCTS or state.has_products() or intent.named or intent.absent:
            return None  # items the customer named need no narrowing down, nor the closest to a name we lack
        search, filters = self.catalog.pack.search, self.catalog.pack.filter_attributes()
        ranked = intent.rank is not None  # "the cheapest gaming laptops": the ranking needs no ceiling on what it ranks by
        required = [
            name for name in search.require if name not in state.filters and not (ranked and filters[name][0] == search.rank_by)
        ]
        if required:
            return self._question(filters[required[0]][1].filter, required[0])
        if state.pending == "clarify_product":
            return None
        said = [name for name in state.filters if name not in search.always]
        broad = len(said) <= 1 and self.index.count_products(state.filters) > self.services.max_products
        if not broad:
            return None
        for name in search.clarify:
            if name not in state.filters:
                return self._question(filters[name][1].filter, name)
        return None

    @staticmethod
    def _question(spec: Filter | None, name: str) -> tuple[str, list[str], str]:
        assert spec is not None and spec.question, "start-up made sure a required or clarifying filter has a question"
        return spec.question, list(spec.choices), name

    def _quoting(self, intent: Intent, state: SessionState, text: str) -> bool:
        """Whether the quote desk takes the message (a pack with quote:): not a cancel, nor an
        answer to a flow under way (the case), and one `wants_quote` says is for the quote."""
        setup, elements, active = self.catalog.pack.quote, self.catalog.elements, state.goals.active
        if setup is None or elements is None or intent.type == "cancel" or (active and active.type in self.catalog.pack.flows):
            return False
        return wants_quote(state.quote, text, setup, elements)

    def _constrained(self, reply: str, work: TurnWork) -> str:
        """The reply, or the template of the first pack constraint it breaks (offline, no model can write it again)."""
        rules = broken(reply, work.out.tools_run, self.catalog.pack.constraints)
        return formatting.say(self.catalog, rules[0].template) if rules else reply

    def _select_agents(self, intent: Intent, state: SessionState, selection: list[Product]) -> list[str]:
        if intent.type == "quote":
            return ["quote"]
        agents: list[str] = []
        at_hand = self._ranks_at_hand(intent, state)
        fresh = not state.has_products() or (intent.rank is not None and not at_hand) or (bool(intent.named) and not selection)
        searching = intent.type in NEEDS_PRODUCTS and fresh
        searching &= not (intent.type in ("feature_query", "comparison", "eligibility_check") and selection)  # at hand
        if intent.type in HELP_INTENTS:  # whichever agent the pack lets read the help centre
            agents.append(self.tools.agent_with("search_faq", "retriever"))
        elif searching:
            agents.append("retriever")
        if intent.wants_comparison or at_hand:  # a table, or the items at hand ranked
            agents.append("comparator")
        if intent.wants_eligibility and self.catalog.pack.eligibility:
            agents.append("eligibility")
        flow = self.catalog.pack.flow_for(intent.type)
        if flow:
            agents.append(self.catalog.pack.flows[flow].agent)
        if intent.type == "calculate":  # by the agent of the goal at hand, if its pack lets it
            active = state.goals.active
            preferred = "support" if active and self._collecting(active) == "support" else "retriever"
            agents.append(self.tools.agent_with("calculate", preferred))
        return agents

    def _update_state(self, state: SessionState, work: TurnWork, agents: list[str], query: str) -> None:
        if work.out.retrieved or (work.request.intent.named and work.out.selection):  # found, or named by the customer
            state.product_ids = [p.id for p in work.out.selection]
        if work.out.across_catalog:  # what they can get is what the conversation is now about
            state.product_ids = [p.id for p in work.out.products]
        state.across_catalog = work.out.across_catalog
        state.comparison_done |= "comparator" in agents
        state.eligibility_done |= "eligibility" in agents
        state.pending = work.out.pending
        if work.out.quote:
            state.quote = work.out.quote.quote
        elif work.out.flow_step and work.out.flow_step.submitted:
            state.quote = None  # handed in with its case: "let's do it" again opens no second case
        elif work.request.intent.type == "cancel" and state.quote and state.quote.asking:
            state.quote = None  # "never mind" while we asked about a variant: no quote waits for it
        shown = [p.id for p in work.out.products]
        if work.out.retrieved or work.out.ranking or not set(shown) <= set(state.shown):
            state.shown = shown  # a new list, or the list in a new order; a reply about some of those keeps it
        state.wishes = work.request.intent.wishes() if work.out.pending == "clarify_product" else Wishes()
        limit = self.settings.history_limit
        said = redact_codes(query) if work.out.flow_step else query  # a typed code is not kept
        files = [a.public() | {"name": a.name} for a in work.request.attachments]
        state.remember(Turn(role="user", text=said, intent=work.request.intent.type, files=files), limit)
        state.remember(
            Turn(
                role="assistant",
                text=work.out.reply,
                intent=work.request.intent.type,
                agents=agents,
                products=[p.id for p in work.out.products],
                booking=work.out.flow_step.booking if work.out.flow_step else None,
                eligibility=[v.model_dump() for v in work.out.verdicts or []],
                choices=work.out.choices,
                ask_user=work.out.ask_user,
                images=[image.model_dump() for image in _images(work)],
            ),
            limit,
        )

    def _changes(self, goal: Goal, intent: Intent, text: str) -> bool:
        """Whether a message changes what a kept goal booked rather than asking anew."""
        return self.desk.changes(goal.type, goal.slots, text, intent.filters, intent.named)


def _merge_profile(
    catalog: Catalog, old: dict[str, FactValue], said: dict[str, FactValue], page_value: str | None
) -> dict[str, FactValue]:
    """What the customer says in chat wins over older facts, and the page's profile field over
    both; only the facts the pack declares, with values they take, are kept."""
    page = catalog.pack.page_fact
    return catalog.pack.told({**old, **said, **({page: page_value} if page and page_value else {})})


def _images(work: TurnWork) -> list[ImageLink]:
    """The example images the reply sends (a quote's documentation), as links the page draws."""
    quoted = work.out.quote
    return [ImageLink(url=example_url(i.example), label=i.label) for i in quoted.images if i.example] if quoted else []


PIPELINE: Slot[CrewPipeline] = Slot("pipeline")


def init_app(app: Flask) -> None:
    """The chat pipeline over the app's catalog, index, sessions and booking desk, in LLM mode when
    LLM_MODEL names a model (only then is crewai imported: it costs seconds)."""
    settings, catalog = SETTINGS.get(app), CATALOG.get(app)
    desk = BookingDesk(catalog, BookingStore(bookings_file(app)), REMINDERS.get(app), NOTIFIER.get(app), tables=TABLES.find(app))
    preferences = PreferenceStore(sessions_file(app))  # its own table, outliving any session
    crew_mode = None
    if settings.llm_model:
        from assistant.llm.breaker import Breaker
        from assistant.llm.crew_mode import CrewMode

        breaker = Breaker(shared_counters(app), settings)
        telemetry.collect(app, breaker)
        crew_mode = CrewMode(settings, catalog, breaker)
    PIPELINE.put(
        app,
        CrewPipeline(
            catalog,
            INDEX.get(app),
            STORE.get(app),
            LOCKS.get(app),
            settings,
            desk,
            preferences,
            crew_mode,
            SERVICE_READER.find(app),
            ATTACHMENTS.get(app),
            CASES.find(app),
            people=PeopleDesk(catalog, settings.pack_dir.name, HANDOVERS.get(app), desk.clock, INDEX.get(app).embedder),
        ),
    )
