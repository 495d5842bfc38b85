"""The Quote agent: one step of the quotation (identify, pick a variant, price, send the example images)."""

from __future__ import annotations

from typing import Any

from agents.work import TurnWork
from extensions.homologation.quote import step


def quote(work: TurnWork) -> None:
    """The quote after this message; every tool goes through the gateway, and is noted as run."""
    catalog = work.services.catalog
    assert catalog.pack.quote and catalog.elements, "the pipeline sends messages here only in a pack that quotes"

    def call(tool: str, *args: Any) -> Any:
        return work.call("quote", tool, *args)

    state, query = work.request.state, work.request.query
    work.out.quote = step(state.quote, query, catalog.pack.quote, catalog.elements, call, catalog.languages)
