"""The Booking agent: a booking flow's next step, through the booking desk."""

from __future__ import annotations

from agents.work import TurnWork, goal_of, said


def booking(work: TurnWork) -> None:
    assert work.services.desk is not None, "the booking agent runs only where the pack books"
    goal = goal_of(work)
    work.out.flow_step = work.services.desk.step(goal.type, goal.id, goal.slots, said(work), work.request.state.session_id)
