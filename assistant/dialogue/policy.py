"""The one dialogue policy: applies a message's commands to the session's goals and decides the
one next question.

Understanding says what a message asks (assistant/dialogue/command_reader.py); only here
does that change the goals: a flow continues, starts, is set aside by a quicker request and
resumed after it, or is cancelled; what a goal committed to (a booking made) changes only on a
command that names it, and only once the customer confirms the change shown old -> new. Which
requests set a flow aside is the flow's data (`interrupted_by`, beside `priority`).

A turn asks at most one question, decided here and nowhere else: before any agent runs, which
item the message means or a filter a search needs (`clarify`); after the agents, the question
of their work (a flow's next slot, an extension's, a fact a verdict waits on: `ask`); after
the reply, the question of a goal resumed (`settle`). `ask` and `settle` return the question;
the pipeline applies it to the turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.booking.desk import PROPOSED
from assistant.dialogue.command_reader import Understood
from assistant.dialogue.commands import (
    AskAttribute,
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
    StartFlow,
    act_of,
    first,
)
from assistant.dialogue.goals import QUICK_PRIORITY, Goal
from assistant.dialogue.state import SessionState
from assistant.dialogue.work import Question, Resumed, TurnWork
from assistant.pack import texts as formatting
from assistant.pack.model import NEEDS_PRODUCTS, Catalog, Filter, Product
from assistant.tools.eligibility import check
from assistant.tools.retrieval import CatalogIndex
from assistant.understanding.reader import Intent, Wishes

CLARIFYING = "clarify_product"  # what the session waits for after a clarifying question


@dataclass(frozen=True)
class Asked:
    """A question asked before any agent works: its text, quick replies, and what it fills."""

    text: str
    choices: list[str]
    fills: str  # "item", or the filter it asks for


@dataclass
class Plan:
    """What the policy made of a message: the act the agents perform (the reading, with the act
    decided), the goal it serves, and the commands it came from."""

    act: Intent
    goal: Goal | None
    commands: list[Command]


class DialoguePolicy:
    """Applies commands to goals, and decides each turn's one question."""

    def __init__(self, catalog: Catalog, index: CatalogIndex, max_products: int):
        self.catalog = catalog
        self.index = index
        self.rules = index.rules
        self.max_products = max_products

    def plan(self, understood: Understood, state: SessionState) -> Plan:
        """The act and the goal of a message; a goal it starts, continues, reopens or cancels."""
        commands = understood.commands
        act = understood.reading.model_copy(
            update={
                "type": act_of(commands),
                "feature_topics": ask.topics if (ask := first(commands, AskAttribute)) else understood.reading.feature_topics,
                "wants_comparison": first(commands, Compare) is not None,
                "wants_eligibility": first(commands, CheckEligibility) is not None and bool(self.catalog.pack.eligibility),
            }
        )
        if state.handed_back():  # people had the conversation: nothing of before asks again unbidden
            for goal in state.goals.open():
                goal.quiet = True
        if self._ruled_out(act, state):  # "I'm a student, I want a credit card": why not, and what they can get
            state.reset_products()
            act = act.model_copy(update={"type": "eligibility_check", "wants_eligibility": True})
            commands = [CheckEligibility(), *commands]
        return Plan(act, self._goal(commands, act, state), commands)

    def _ruled_out(self, act: Intent, state: SessionState) -> bool:
        """Whether what the customer told of themselves rules out every item a search of theirs asks for."""
        pack = self.catalog.pack
        if act.type != "product_info" or not (pack.eligibility and state.profile) or act.named:
            return False
        filters = {**pack.search.always, **state.filters, **act.filters}
        matching = [p for p in self.catalog.products if self.rules.matches(p, filters)]
        return bool(matching) and all(check(p, state.profile, self.catalog).eligible is False for p in matching)

    def _goal(self, commands: list[Command], act: Intent, state: SessionState) -> Goal | None:
        """The goal this message serves. A flow waiting for an answer takes it; a request the pack
        groups with the active goal (a sale's follow-ups) continues it; a change to what a kept
        goal made reopens it, to show the change before making it; anything else starts a new
        goal, suspending the active one if it matters more. "Never mind" cancels whatever is
        active; "thanks" closes a sale that stays open, or a troubleshooting that waits for an answer."""
        board, active = state.goals, state.goals.active
        changing = active is not None and active.id == board.kept_id and active.status == "blocked"
        if active and changing and not (first(commands, ConfirmChange) or first(commands, ChangeCommitted)):
            active.slots = {k: v for k, v in active.slots.items() if k != PROPOSED}  # what was made stays as it is
            board.finish(active, "the change was not confirmed", status="cancelled")
            active = board.active
        continuing = first(commands, ContinueFlow) or first(commands, ConfirmChange)
        if continuing and active and continuing.goal == active.id:
            active.quiet = False
            return active
        if first(commands, Cancel):
            return active
        change = first(commands, ChangeCommitted)
        if change:
            goal = board.goals[change.goal]
            if goal is not active:
                board.reopen(goal, "customer asks to change what it made")
            return goal
        goal_type, kind = self.catalog.pack.goal_kind(act.type)
        if active and active.type == goal_type and kind and kind.stays_open:
            return active
        if active and active.type == goal_type and first(commands, Extended):  # one extension goal, however many questions it asks
            return active
        greeting = first(commands, Greet)
        collecting = active and active.status == "blocked" and active.type in self.catalog.pack.flows
        support = collecting and active is not None and self.catalog.pack.flows[active.type].agent == "support"
        if active and greeting and greeting.thanks and (self._stays_open(active) or support):
            board.finish(active, "customer said thanks")
        flow = first(commands, StartFlow)
        priority = kind.priority if kind else QUICK_PRIORITY
        return board.start(flow.flow if flow else goal_type, f"customer asked: {act.type}", priority)

    def clarify(self, plan: Plan, state: SessionState, selection: list[Product]) -> Asked | None:
        """The question to ask before any agent works: which of the items on screen the message
        means, or, for a search, a filter the pack requires (a budget) or, once only, the first
        unanswered filter when the search would be too broad. The goal waits for its answer."""
        asked = self._which_one(plan) or (None if selection else self._filter_question(plan.act, state))
        if asked and plan.goal is not None:
            plan.goal.missing = [asked.fills]
        return asked

    def _which_one(self, plan: Plan) -> Asked | None:
        unsure = first(plan.commands, Clarify)
        if unsure is None:
            return None
        names = [p.name for p in self.catalog.products_by_id(unsure.candidates)]
        return Asked(formatting.say(self.catalog, "which_one", items=formatting.one_of(names, self.catalog)), names, "item")

    def _filter_question(self, act: Intent, state: SessionState) -> Asked | None:
        if act.type not in NEEDS_PRODUCTS or state.has_products() or act.named or act.absent:
            return None  # items the customer named need no narrowing down, nor the closest to a name we lack
        search, filters = self.catalog.pack.search, self.catalog.pack.filter_attributes()
        ranked = act.rank is not None  # "the cheapest gaming laptops": the ranking needs no ceiling on what it ranks by
        told = self.catalog.pack.said  # "above 20 lakh" says a budget as much as "under 15 lakh" does
        required = [
            name for name in search.require if not told(name, state.filters) and not (ranked and filters[name][0] == search.rank_by)
        ]
        if required:
            return _question(filters[required[0]][1].filter, required[0])
        if state.pending == CLARIFYING:
            return None
        said = [name for name in state.filters if name not in search.always]
        broad = len(said) <= 1 and self.index.count_products(state.filters) > self.max_products
        if not broad:
            return None
        for name in search.clarify:
            if not told(name, state.filters):
                return _question(filters[name][1].filter, name)
        return None

    def ask(self, work: TurnWork, asked: Asked | None) -> Question | None:
        """The turn's question, from what the agents did: a flow's next slot, an extension's question,
        or the first fact a verdict waits on, in the order the pack lists them (None: no question;
        the pipeline applies it)."""
        out, catalog = work.out, self.catalog
        if asked:
            return Question(asked.text, asked.choices, CLARIFYING)
        if out.part:
            return Question(out.part.question, out.part.choices)
        if out.flow_step:
            return Question(out.flow_step.question, out.flow_step.choices)
        if out.verdicts:
            waiting = [v for v in out.verdicts if v.eligible is None]
            fact = next((name for name in catalog.pack.profile if any(name in v.missing for v in waiting)), None)
            if fact:
                spec = catalog.pack.profile[fact]
                return Question(spec.question, list(spec.choices), fact)
        return None

    def settle(self, plan: Plan, work: TurnWork, state: SessionState) -> Resumed | None:
        """Close or block the goal with the slots its agent returned, and what the session waits
        for next; a suspended goal resumed is returned, its question then the turn's (the
        pipeline applies it)."""
        resumed = self._settle_goal(plan, work, state)
        state.pending = work.out.pending
        state.wishes = plan.act.wishes() if work.out.pending == CLARIFYING else Wishes()
        return resumed

    def _settle_goal(self, plan: Plan, work: TurnWork, state: SessionState) -> Resumed | None:
        board, goal = state.goals, plan.goal
        if goal is None:
            return None
        step = work.out.flow_step
        if step is not None:  # the flow's slots as they now stand: agents return them, the policy keeps them
            goal.slots, goal.missing = step.slots, step.missing
        finished = step is not None and step.done
        if first(plan.commands, Cancel):
            resumed = board.finish(goal, "customer said never mind", status="cancelled")
        elif work.out.ask_user and not finished:
            board.block(
                goal,
                goal.missing or [work.out.pending or "answer"],
                work.out.ask_user,
                work.out.choices,
                "waiting for the customer's answer",
            )
            return None
        elif self._stays_open(goal):  # answered, but the sale goes on until the customer is done
            board.answered(goal, "answered; the customer may ask more")
            return None
        else:
            resumed = board.finish(goal, "answered", keep=bool(step and step.booking))
        if resumed and not resumed.quiet:
            return Resumed(_resumed(resumed, self.catalog), resumed.next_question, resumed.choices)
        return None

    def _stays_open(self, goal: Goal) -> bool:
        kind = self.catalog.pack.goal_kinds.get(goal.type)
        return bool(kind and kind.stays_open)


def _question(spec: Filter | None, name: str) -> Asked:
    assert spec is not None and spec.question, "start-up made sure a required or clarifying filter has a question"
    return Asked(spec.question, list(spec.choices), name)


def _resumed(goal: Goal, catalog: Catalog) -> str:
    """A goal taken up again: the pack's words for it (or the engine's), and its next question."""
    kind = catalog.pack.goal_kinds.get(goal.type)
    back = kind.resumed if kind else formatting.say(catalog, "resumed")
    return f"{back} {goal.next_question}" if goal.next_question else back
