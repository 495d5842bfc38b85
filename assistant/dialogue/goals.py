"""Goals: each request is a goal; a higher-priority request suspends the active one onto a stack.

A booking takes several turns (slots, then a one-time code); a question asked in between
("wait, what's the annual fee?") is a quicker, higher-priority goal that suspends it, is
answered, and then the booking resumes where it stopped. A goal that made something the
customer may come back to (a booking: "make it 7pm instead") is kept after it ends, until
another takes its place, and can be reopened. Every change is recorded with its reason so a
conversation can be audited.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Collection
from typing import Any, Literal

from pydantic import BaseModel, Field

from assistant.language.privacy import masked

GoalStatus = Literal["active", "blocked", "suspended", "done", "cancelled"]
# A higher priority interrupts a lower one: the pack sets them (a booking 1, so a quick
# question at the default 2 interrupts it, never the other way round).
QUICK_PRIORITY = 2
TRANSITIONS_KEPT = 200


class Goal(BaseModel):
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    type: str
    status: GoalStatus = "active"
    priority: int = QUICK_PRIORITY
    slots: dict[str, Any] = {}
    missing: list[str] = []
    next_question: str | None = None
    choices: list[str] = []
    quiet: bool = False  # people had the conversation since: resumed without asking again, until the customer returns to it
    updated_at: float = Field(default_factory=time.time)

    def public(self, private: Collection[str] = ()) -> dict[str, Any]:
        """The goal as clients see it, with the `private` slots (a name, a phone) masked."""
        shown = self.model_dump(include={"id", "type", "status", "slots", "missing", "next_question", "choices"})
        shown["slots"] = {name: masked(value) if name in private and value else value for name, value in self.slots.items()}
        return shown


class Transition(BaseModel):
    at: float = Field(default_factory=time.time)
    goal_id: str
    goal_type: str
    from_status: GoalStatus | Literal["new"]
    to_status: GoalStatus
    why: str


class GoalBoard(BaseModel):
    """The session's goals: the active one, the suspended ones beneath it, and the audit trail."""

    goals: dict[str, Goal] = {}
    active_id: str | None = None
    stack: list[str] = []  # suspended goal ids, most recent last
    kept_id: str | None = None  # the last goal that made something the customer may change
    transitions: list[Transition] = []

    @property
    def active(self) -> Goal | None:
        return self.goals.get(self.active_id) if self.active_id else None

    @property
    def kept(self) -> Goal | None:
        """The finished goal whose result the customer may still change."""
        goal = self.goals.get(self.kept_id) if self.kept_id else None
        return goal if goal and goal.status == "done" else None

    def open(self) -> list[Goal]:
        """The goals not finished: the active one and those suspended beneath it."""
        ids = [self.active_id, *self.stack] if self.active_id else self.stack
        return [goal for gid in ids if (goal := self.goals.get(gid)) and goal.status in ("active", "blocked", "suspended")]

    def start(self, goal_type: str, why: str, priority: int = QUICK_PRIORITY) -> Goal:
        """Make a new goal active; an unfinished goal of lower priority is suspended beneath it."""
        self._drop_finished()
        goal = Goal(type=goal_type, priority=priority)
        self.goals[goal.id] = goal
        self._record(goal, "new", "active", why)
        self._take_over(goal)
        return goal

    def reopen(self, goal: Goal, why: str) -> None:
        """The kept goal active again, to change what it made, as a new request would be."""
        self._set(goal, "active", why)
        self._take_over(goal)

    def block(self, goal: Goal, missing: list[str], question: str, choices: list[str], why: str) -> None:
        goal.missing, goal.next_question, goal.choices = missing, question, choices
        self._set(goal, "blocked", why)

    def answered(self, goal: Goal, why: str) -> None:
        """A goal that stays open after an answer (a sale): active again, waiting for nothing."""
        goal.missing, goal.next_question, goal.choices = [], None, []
        self._set(goal, "active", why)

    def finish(self, goal: Goal, why: str, status: GoalStatus = "done", keep: bool = False) -> Goal | None:
        """End a goal and resume the most recently suspended one, which is returned; `keep`: the
        customer may come back to change what it made. The kept goal, reopened and then
        cancelled, is done again: what it made stands."""
        goal.missing, goal.next_question = [], None
        self._set(goal, "done" if goal.id == self.kept_id else status, why)
        if keep:
            self.kept_id = goal.id
        self.active_id = None
        while self.stack:
            resumed = self.goals.get(self.stack.pop())
            if resumed and resumed.status == "suspended":
                self._set(resumed, "blocked" if resumed.missing else "active", f"resumed after {goal.type}")
                self.active_id = resumed.id
                return resumed
        return None

    def public(self, private: Collection[str] = ()) -> dict[str, Any]:
        active = self.active
        return {
            "active_goal": active.public(private) if active else None,
            "goal_stack": [self.goals[gid].public(private) for gid in reversed(self.stack) if gid in self.goals],
        }

    def _take_over(self, goal: Goal) -> None:
        """`goal` becomes the active one: an unfinished goal of lower priority is suspended beneath it."""
        current = self.active
        if current and current is not goal and current.status in ("active", "blocked"):
            if goal.priority > current.priority:
                self._set(current, "suspended", f"interrupted by {goal.type}")
                self.stack.append(current.id)
            else:
                self._set(current, "done", f"superseded by {goal.type}")
        self.active_id = goal.id

    def _set(self, goal: Goal, status: GoalStatus, why: str) -> None:
        if goal.status != status:
            self._record(goal, goal.status, status, why)
        goal.status, goal.updated_at = status, time.time()

    def _record(self, goal: Goal, old: str, new: GoalStatus, why: str) -> None:
        transition = Transition(goal_id=goal.id, goal_type=goal.type, from_status=old, to_status=new, why=why)
        self.transitions = [*self.transitions, transition][-TRANSITIONS_KEPT:]

    def _drop_finished(self) -> None:
        """Finished goals leave the board, but the kept one (the transitions keep their story)."""
        self.goals = {gid: g for gid, g in self.goals.items() if g.status not in ("done", "cancelled") or gid == self.kept_id}
