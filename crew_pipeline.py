"""One chat turn, top to bottom: understand (commands), plan (the dialogue policy), reset stale
cache, clarify, run agents, commit.

Only the agents a message needs run (a follow-up reuses the session's cached products
instead of retrieving again), and the Formatter always runs last. The pipeline decides no
dialogue rule itself: understanding reads the message into commands, and the dialogue policy
alone applies them to the goals and decides the turn's one question.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask

from agents import registry
from agents.spec import Asked
from assistant.attachments.store import ATTACHMENTS, AttachmentStore
from assistant.booking.codes import BookingStore
from assistant.booking.desk import BookingDesk
from assistant.booking.notifications import NOTIFIER
from assistant.booking.reminders import REMINDERS
from assistant.dialogue.command_reader import CommandReader
from assistant.dialogue.commands import Command, Extended, ShowMore, first
from assistant.dialogue.extension import FlowAction
from assistant.dialogue.policy import DialoguePolicy
from assistant.dialogue.preferences import PreferenceStore, learn, starting_state, welcome_back
from assistant.dialogue.reply_language import reply_language
from assistant.dialogue.sessions import COMMIT_ATTEMPTS, LOCKS, STORE, SessionLocks, SessionStore, VersionConflict
from assistant.dialogue.state import SessionState, Turn
from assistant.dialogue.turns import ChatRequest, ChatResponse, Handler, HelpResult, ImageLink, example_url
from assistant.dialogue.work import Services, TurnOutput, TurnRequest, TurnWork
from assistant.handover.desk import PeopleDesk
from assistant.handover.store import HANDOVERS
from assistant.infra import replay
from assistant.infra.allowance import allowances
from assistant.infra.collectors import collect
from assistant.infra.config import SETTINGS, Settings
from assistant.infra.counters import shared_counters
from assistant.infra.database import DATABASE
from assistant.infra.extensions import Slot
from assistant.language.privacy import phones_masked, redact_codes
from assistant.pack import texts as formatting
from assistant.pack.constraints import broken
from assistant.pack.display import public_product
from assistant.pack.flows import ENGINE_ACTIONS
from assistant.pack.model import HELP_INTENTS, NEEDS_PRODUCTS, Catalog, DataError, FactValue, FilterValue, Product
from assistant.pack.translations import speaking
from assistant.tools.filters import Filters
from assistant.tools.gateway import ToolGateway
from assistant.tools.retrieval import CATALOG, INDEX, CatalogIndex
from assistant.understanding import guard
from assistant.understanding.reader import Intent, Understanding
from assistant.understanding.router import Router
from extensions.base import EXTENSIONS, Extension

if TYPE_CHECKING:  # crewai is imported only when an LLM is configured
    from assistant.llm.crew_mode import CrewMode

EventSink = Callable[[str, dict[str, Any]], None]


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
        attachments: AttachmentStore | None = None,
        extensions: list[Extension] | None = None,
        *,
        people: PeopleDesk,
        actions: dict[str, FlowAction] | None = None,
    ):
        """`attachments`: where the files a message references are kept; `extensions`: the
        pack's, asked about every message; `actions`: the flow
        actions they add; `people`: the desk of the business's people, who take conversations over."""
        self.catalog = catalog
        self.index = index
        self.store = store
        self.locks = locks
        self.settings = settings
        self.desk = desk
        self.preferences = preferences
        self.extensions = {e.name: e for e in extensions or []}
        self._by_agent = {e.agent: e for e in self.extensions.values() if e.agent}  # the extensions' agents, by name
        details = next((d for e in self.extensions.values() if (d := e.details())), None)
        understanding = Understanding(catalog, Router.for_pack(catalog, index.embedder, index.help.reading), index.help, details)
        self.tools = ToolGateway(catalog, index, {name: tool for e in self.extensions.values() for name, tool in e.tools().items()})
        agents = {*registry.BY_NAME, *self._by_agent}
        _check_tools(catalog, self.tools, agents, settings.pack_dir / "pack.yaml")
        _check_actions(catalog, {*ENGINE_ACTIONS, *(actions or {})}, settings.pack_dir / "pack.yaml")
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
            actions or {},
        )
        self.reader = CommandReader(catalog, understanding, desk, list(self.extensions.values()), self.services.actions)
        self.policy = DialoguePolicy(catalog, index, self.services.max_products)

    def run(self, request: ChatRequest, on_event: EventSink | None = None, replay_key: str | None = None) -> ChatResponse:
        """Answer one message; retried on a fresh copy if another worker committed first.

        `on_event(kind, data)` hears each agent start and finish, for clients that stream. A
        session is its first caller's (SessionState.claim); a signed-in caller who sends a guest's
        session id gets a new session, with that id in the response, and the guest keeps theirs.
        `replay_key`: the client's id for this message. Its answer is saved with the turn, and a
        message sent again with it gets that answer back instead of a second turn; another message
        sent with it raises replay.KeyReused.
        """
        emit = on_event or (lambda kind, data: None)
        session_id = request.session_id or str(uuid.uuid4())
        if request.customer_id and (known := self.store.load(session_id)) and known.customer_id is None:
            session_id = str(uuid.uuid4())  # a guest's conversation stays theirs: a signed-in caller starts their own
        for _ in range(COMMIT_ATTEMPTS):
            with self.locks.lock(session_id):
                state = self.store.load(session_id) or SessionState(session_id=session_id)
                state.claim(request.customer_id)
                if replay_key and (stored := self.store.recall(session_id, replay_key)) is not None:
                    return ChatResponse.model_validate_json(replay.recalled(stored, request.query))
                language = reply_language(request.query, state, self.catalog)
                with speaking(language):  # everything the turn words is in the customer's language
                    attack = guard.check(
                        request.query,
                        state.recent_user_texts(guard.EARLIER),
                        self.catalog.business.currency_mark,
                        self.catalog.languages,
                    )
                    if attack:  # refused before any agent or model sees it, and nothing is saved
                        return self._refusal(state, attack, emit).model_copy(update={"language": language})
                    response = (
                        self._language_chosen(state, request, emit)
                        or self._with_people(state, request, emit)
                        or self._turn(state, request, emit)
                    )
                state.replied_in = response.language = language
                saved = state.model_copy(update={"version": state.version + 1})  # the state as the save below writes it
                response.state = saved.summary(self.catalog.pack.private_slots)
                answer = (replay_key, replay.kept(request.query, response.model_dump_json())) if replay_key else None
                try:
                    self.store.save(state, answer)
                except VersionConflict:
                    continue
                return response
        raise VersionConflict(session_id)

    def _refusal(self, state: SessionState, attack: str, emit: EventSink) -> ChatResponse:
        reply = formatting.say(self.catalog, "refusal")
        return self._said(state, reply, {"type": "refused", "filters": {}, "reason": attack}, emit)

    def _language_chosen(self, state: SessionState, request: ChatRequest, emit: EventSink) -> ChatResponse | None:
        """A message that only asks for a language ("Bangla te bolun"): said so, in it; nothing
        else changes."""
        if not self.catalog.languages.asked_for(request.query):
            return None
        reply = formatting.say(self.catalog, "language_chosen")
        state.remember(Turn(role="user", text=request.query, intent="language"), self.settings.history_limit)
        state.remember(Turn(role="assistant", text=reply, intent="language", agents=["formatter"]), self.settings.history_limit)
        return self._said(state, reply, {"type": "language", "filters": {}}, emit)

    def _with_people(self, state: SessionState, request: ChatRequest, emit: EventSink) -> ChatResponse | None:
        """A conversation people have, or one this message hands to them (the panic switch is on,
        or it asks for a person). The assistant then says only what happens next, and nothing
        once a person has it; the message waits in the transcript for them."""
        held, reason = self.people.before_turn(state.session_id, request.query)
        if held is None and reason is None:
            return None
        queued = True
        if reason is not None:
            reply, queued = self.people.hand_over(state, reason)
        else:
            assert held is not None, "no reason to hand over: people have it already"
            self.people.note_unanswered(request.query, held.reason)
            reply = "" if held.operator else formatting.say(self.catalog, "handover_waiting")
        limit = self.settings.history_limit
        state.remember(Turn(role="user", text=phones_masked(request.query, self.catalog.business), intent="handover"), limit)
        if reply:
            state.remember(Turn(role="assistant", text=reply, intent="handover", agents=["formatter"]), limit)
        why = reason or (held.reason if held else None)
        handled_by: Handler = "human" if queued else "assistant"  # not queued: another of the client's waits
        return self._said(state, reply, {"type": "handover", "filters": {}, "reason": why}, emit, handled_by=handled_by)

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

        # 1. Understand: the message as commands, read against what the conversation holds
        #    (in LLM mode the model reads what the rules could not).
        understood = self.reader.read(request.query, state, bool(request.attachments), crew)
        state.profile = _merge_profile(self.catalog, state.profile, understood.reading.profile, request.facts)

        # 2. The dialogue policy applies them: the act the agents perform, and the goal it serves.
        plan = self.policy.plan(understood, state)
        act = plan.act

        # 3. Reset the cached products if the filters in effect changed.
        filters, selection = self._resolve_products(act, state)
        across = self._across_catalog(act, state)
        said = {name: value for name, value in filters.items() if name not in act.guessed or state.filters.get(name) == value}
        if filters != state.filters:
            state.reset_products()
            state.filters = filters

        # 4. Ask one clarifying question if the message points at no one item, or a search needs a filter.
        question = self.policy.clarify(plan, state, selection)

        # 5. Run only the agents needed; the policy asks the turn's one question; the Formatter always runs last.
        agents = [] if question else self._select_agents(act, state, selection, plan.commands)
        out = TurnOutput(selection=selection, across_catalog=across and bool(selection))
        files = self.attachments.get(state.session_id, request.attachments) if self.attachments and request.attachments else []
        work = TurnWork(TurnRequest(request.query, act, state, plan.goal, files, plan.commands), self.services, out)
        for name in agents:
            self._run(name, work, emit)
        asking = self.policy.ask(work, question)
        if asking:
            work.out.take(asking)
        self._run("formatter", work, emit)
        work.out.reply = self._constrained(work.out.reply, work)
        if crew and not question:
            emit("draft", {"text": work.out.reply})  # verified already: a stream shows it while the model writes
            work.out.reply = crew.write_reply(agents, work)  # a model frames it, and weighs a comparison

        # 6. Settle the goal (resuming a suspended one), then commit the session and what the
        #    customer showed they prefer; a filter only a model read narrowed this search alone
        #    ("whats good" read as conventional cards isn't the customer's wish).
        state.filters = said
        resumed = self.policy.settle(plan, work, state)
        if resumed:
            work.out.take(resumed)
        if welcome:
            work.out.reply = f"{welcome}\n\n{work.out.reply}"
        extended: Extended | None = first(plan.commands, Extended)
        answered = extended.intent if extended else act.type  # an extension's act, by the name it gives it
        answered = "faq" if work.out.faq and act.type in HELP_INTENTS else answered  # an article answered it: a help question
        handed = self._hand_over_after(answered, work, state, bool(question))
        self._update_state(state, work, answered, [*agents, "formatter"], request.query)
        if known is not None and request.customer_id:
            learned = learn(known, state, request.query, self.catalog)
            if learned is not known:
                self.preferences.save(request.customer_id, learned)
        return ChatResponse(
            session_id=state.session_id,
            reply=work.out.reply,
            intent={"type": answered, "filters": dict(act.filters)},
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

    def _run(self, name: str, work: TurnWork, emit: EventSink) -> None:
        """One agent's work: it returns what it produced, and only here is that applied to the turn."""
        emit("agent", {"name": name, "status": "started"})
        extension = self._by_agent.get(name)
        work.out.take(extension.run(work) if extension else registry.BY_NAME[name].run(work))
        emit("agent", {"name": name, "status": "finished"})

    def _agent_of(self, extension: str) -> str:
        agent = self.extensions[extension].agent
        assert agent is not None, "an extension that takes messages has an agent"
        return agent

    def _hand_over_after(self, answered: str, work: TurnWork, state: SessionState, asked_back: bool) -> bool:
        """Whether this turn hands the conversation to people (a pack rule, or the assistant not
        understanding again), telling the customer so after the answer. A question nobody
        answered is kept for the console, masked."""
        understood = asked_back or work.out.faq is not None or answered not in ("unknown", "faq")
        state.misunderstood = 0 if understood else state.misunderstood + 1
        if not understood:
            self.people.note_unanswered(work.request.query, "not_understood")
        reason = self.people.after_turn(work, state.misunderstood)
        if reason is None:
            return False
        state.misunderstood = 0
        told, queued = self.people.hand_over(state, reason)
        work.out.reply = f"{work.out.reply}\n\n{told}".strip()
        return queued

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
        single = self.catalog.product(state.focus or discussed[0]) if state.focus or len(discussed) == 1 else None
        if intent.type == "feature_query" and not intent.filters and single:
            return state.filters, [single]  # "that card": the one just discussed
        if state.pending in self.catalog.pack.profile and intent.type == "eligibility_check" and not intent.filters:
            cached = [p for p in cached if p.id in state.last_discussed()] or cached
        if intent.type != "product_info" and cached:
            selection = [p for p in cached if self.rules.matches(p, intent.filters)]
            if selection:
                return state.filters, selection
        kept = {name: value for name, value in state.filters.items() if name not in intent.dropped}  # "any brand"
        narrowing, topic = self._narrowing(intent), self.catalog.pack.search.topic
        if any(name in topic and state.filters.get(name) not in (None, value) for name, value in narrowing.items()):
            kept = {}  # another kind of item: what was said of the last one doesn't carry
        kept = {name: value for name, value in kept.items() if not self._contradicted(name, value, narrowing)}
        merged = {**self.catalog.pack.search.always, **kept, **narrowing}
        return merged, cached if merged == state.filters else []  # other filters: a new search

    def _contradicted(self, name: str, value: FilterValue, said: Filters) -> bool:
        """Whether a bound held is the other end of one just said that leaves nothing between them
        ("above 20 lakh", then "under 15 lakh"): the customer changed their mind, the old one goes."""
        filters = self.catalog.pack.filters
        held = filters.get(name)
        if held is None or held.filter.match not in ("min", "max") or not isinstance(value, (int, float)):
            return False
        for other, new in said.items():
            spec = filters.get(other)
            if (
                spec
                and spec.attribute == held.attribute
                and spec.filter.match != held.filter.match
                and isinstance(new, (int, float))
            ):
                low, high = (value, new) if held.filter.match == "min" else (new, value)
                return low > high
        return False

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

    def _constrained(self, reply: str, work: TurnWork) -> str:
        """The reply, or the template of the first pack constraint it breaks (offline, no model can write it again)."""
        rules = broken(reply, work.out.tools_run, self.catalog.pack.constraints)
        return formatting.say(self.catalog, rules[0].template) if rules else reply

    def _select_agents(self, intent: Intent, state: SessionState, selection: list[Product], commands: list[Command]) -> list[str]:
        extended: Extended | None = first(commands, Extended)
        if extended:  # the extension's own agent alone
            return [self._agent_of(extended.extension)]
        active = state.goals.active
        collecting = self.catalog.pack.flows[active.type].agent if active and self.reader.collecting(active) else None
        asked = Asked(intent, state, selection, commands, self.catalog, self.tools, self._ranks_at_hand(intent, state), collecting)
        steps = [(step, agent.name) for agent in registry.AGENTS if (step := agent.needed(asked)) is not None]
        return [name for _, name in sorted(steps, key=lambda needed: needed[0])]  # by step; one step's in the registry's order

    def _update_state(self, state: SessionState, work: TurnWork, answered: str, agents: list[str], query: str) -> None:
        """The session after the turn: the items found and shown, what the extensions keep, and the two messages."""
        if work.out.retrieved or (work.request.intent.named and work.out.selection):  # found, or named by the customer
            state.product_ids = [p.id for p in work.out.selection]
        if work.out.retrieved:  # this search's items shown so far: a page more, or the first
            paged = first(work.request.commands, ShowMore) is not None
            state.seen = [*(state.seen if paged else []), *(p.id for p in work.out.selection)]
        if work.out.across_catalog:  # what they can get is what the conversation is now about
            state.product_ids = [p.id for p in work.out.products]
        state.across_catalog = work.out.across_catalog
        state.comparison_done |= "comparator" in agents
        state.eligibility_done |= "eligibility" in agents
        part = work.out.part
        kept = {
            name: part.kept if part and part.extension == name else extension.settle(state.extensions.get(name), work)
            for name, extension in self.extensions.items()
        }
        state.extensions = {name: held for name, held in {**state.extensions, **kept}.items() if held}
        shown = [p.id for p in work.out.products]
        state.focus = _focus(work, state.focus)
        if (work.out.retrieved and shown) or work.out.ranking or not set(shown) <= set(state.shown):
            state.shown = shown  # a new list, or the list in a new order; a reply about some of those, or none, keeps it
        limit = self.settings.history_limit
        said = phones_masked(query, self.catalog.business)  # the flow has read the number: history keeps it masked
        said = redact_codes(said) if work.out.flow_step else said  # a typed code is not kept
        files = [a.public() | {"name": a.name} for a in work.request.attachments]
        state.remember(Turn(role="user", text=said, intent=answered, files=files), limit)
        state.remember(
            Turn(
                role="assistant",
                text=work.out.reply,
                intent=answered,
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


def _check_tools(catalog: Catalog, tools: ToolGateway, agents: set[str], where: Path) -> None:
    """pack.yaml's `tools:` names agents and tools this app has (the registry's and the
    extensions' agents, the gateway's tools): a typo would otherwise leave an agent without a tool."""
    strangers = sorted(set(catalog.pack.tools) - agents)
    if strangers:
        raise DataError(f"{where}: tools: no agent {strangers}; the agents are {sorted(agents)}")
    unknown = sorted({tool for allowed in catalog.pack.tools.values() for tool in allowed} - tools.names)
    if unknown:
        raise DataError(f"{where}: tools: no tool {unknown}; the tools are {sorted(tools.names)}")


def _check_actions(catalog: Catalog, actions: set[str], where: Path) -> None:
    """Every flow's action is the engine's or one of the pack's extensions' (a case's `submit`)."""
    unknown = sorted({f"flows.{name}: {flow.action}" for name, flow in catalog.pack.flows.items() if flow.action not in actions})
    if unknown:
        raise DataError(f"{where}: {', '.join(unknown)}: no such action; the actions are {sorted(actions)}")


def _merge_profile(
    catalog: Catalog, old: dict[str, FactValue], said: dict[str, FactValue], sent: dict[str, FactValue]
) -> dict[str, FactValue]:
    """What the customer says in chat wins over older facts, and the facts the request sends (the
    page's profile field) over both; only the facts the pack declares, with values they take, are kept."""
    return catalog.pack.told({**old, **said, **sent})


def _focus(work: TurnWork, held: str | None) -> str | None:
    """The item the conversation is about after this turn: the winner a ranking names, the one
    item a reply is about, the one the message named; a new list of several has none; any
    other reply keeps the one held ("what about its lounge access?" after "the lowest fee?")."""
    named, shown = work.request.intent.named, [p.id for p in work.out.products]
    if work.out.ranking:
        return work.out.ranking[0].id
    if len(shown) == 1:
        return shown[0]
    if len(named) == 1:
        return named[0]
    return None if work.out.retrieved and shown else held


def _images(work: TurnWork) -> list[ImageLink]:
    """The example images the reply sends (an extension's, or a flow's asked for again), as links the page draws."""
    sent = [*(work.out.part.images if work.out.part else []), *(work.out.flow_step.images if work.out.flow_step else [])]
    return [ImageLink(url=example_url(i.example), label=i.label) for i in sent if i.example]


PIPELINE: Slot[CrewPipeline] = Slot("pipeline")


def init_app(app: Flask) -> None:
    """The chat pipeline over the app's catalog, index, sessions and booking desk, in LLM mode when
    LLM_MODEL names a model (only then is crewai imported: it costs seconds)."""
    settings, catalog, extensions = SETTINGS.get(app), CATALOG.get(app), EXTENSIONS.get(app)
    desk = BookingDesk(
        catalog,
        BookingStore(DATABASE.get(app)),
        REMINDERS.get(app),
        NOTIFIER.get(app),
        tables=next((r for e in extensions if (r := e.reserver())), None),
        allowances=allowances(app),
    )
    preferences = PreferenceStore(DATABASE.get(app))  # its own table, outliving any session
    crew_mode = None
    if settings.llm_model:
        from assistant.llm.breaker import Breaker
        from assistant.llm.crew_mode import CrewMode

        breaker = Breaker(shared_counters(app), settings)
        collect(app, breaker)
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
            ATTACHMENTS.get(app),
            extensions,
            people=PeopleDesk(catalog, settings.pack_dir.name, HANDOVERS.get(app), desk.clock, INDEX.get(app).embedder),
            actions={name: action for e in extensions for name, action in e.actions(desk, app).items()},
        ),
    )
