"""The Eligibility agent: each product's verdict against what the customer told us."""

from __future__ import annotations

from agents.work import TurnWork


def eligibility(work: TurnWork) -> None:
    work.out.verdicts = [
        work.services.tools.call("eligibility", "check_eligibility", p, work.request.state.profile) for p in work.out.selection
    ]
