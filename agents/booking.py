"""The Booking agent: the appointment's next step, through the booking desk."""

from __future__ import annotations

from agents.work import TurnWork, goal_of


def booking(work: TurnWork) -> None:
    cached = work.catalog.products_by_id(work.state.product_ids)
    assert work.desk is not None, "the booking agent runs only where the pack books"
    work.booking_step = work.desk.step(goal_of(work), work.query, work.intent.filters, cached, work.state.session_id,
                                       named=work.catalog.products_by_id(work.intent.named))
