"""The homologation desk as a pack extension: the quotation (its agent, its tools, what a session
keeps of it) and the case for the office (the `submit` flow action, its store and routes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

from assistant.booking.desk import BookingDesk
from assistant.dialogue.commands import Cancel, first
from assistant.dialogue.extension import FlowAction, Part
from assistant.dialogue.state import Kept
from assistant.dialogue.work import TurnWork
from assistant.pack.model import Catalog
from extensions.base import Extension
from extensions.homologation import case_store, routes
from extensions.homologation.case import CaseDesk
from extensions.homologation.data import NAME, QUOTE_STAGE, data_of
from extensions.homologation.elements import Elements, QuoteSetup
from extensions.homologation.quote import keep, kept_quote, step, wants
from extensions.homologation.replies import quotation, quote_question, quoted_facts
from extensions.homologation.tariff import identify, select_variant, tariff


class Homologation(Extension):
    name = NAME
    intent = "quote"
    agent = "quote"

    def __init__(self, catalog: Catalog, app: Flask) -> None:
        super().__init__(catalog, app)
        case_store.init_app(app)
        routes.init_app(app)

    @property
    def setup(self) -> QuoteSetup:
        return data_of(self.catalog).setup

    @property
    def elements(self) -> Elements:
        """The elements in the reply's language (their warnings), read at each call."""
        return data_of(self.catalog).elements

    def tools(self) -> dict[str, Callable[..., Any]]:
        return {
            "identify": lambda description, category=None: identify(self.elements, description, category),
            "select_variant": lambda code, answer: select_variant(self.elements, code, answer),
            "tariff": lambda codes: tariff(self.elements, codes),
        }

    def takes(self, text: str, kept: Kept | None) -> bool:
        return wants(kept_quote(kept), text, self.setup, self.elements)

    def waits(self, kept: Kept | None) -> bool:
        quote = kept_quote(kept)
        return bool(quote and quote.asking)

    def run(self, work: TurnWork) -> Part:
        """The quote after this message; every tool goes through the gateway, and is noted as run."""

        def call(tool: str, *args: Any) -> Any:
            return work.call("quote", tool, *args)

        kept = kept_quote(work.request.state.extensions.get(NAME))
        done = step(kept, work.request.query, self.setup, self.elements, call, self.catalog.languages)
        sections, _ = quotation(done, self.catalog)
        return Part(
            extension=NAME,
            intent="quote",
            sections=sections,
            kept=keep(done.quote, self.elements, self.catalog.business),
            question=quote_question(done, self.catalog),
            choices=done.choices,
            images=done.images,
            facts=quoted_facts(done),
            stage=QUOTE_STAGE,
        )

    def actions(self, desk: BookingDesk, app: Flask) -> dict[str, FlowAction]:
        return {"submit": CaseDesk(self.catalog, desk.engine, case_store.CASES.get(app), desk.clock)}

    def settle(self, kept: Kept | None, work: TurnWork) -> Kept | None:
        """A quote handed in with its case is used up ("let's do it" again opens no second case);
        "never mind" while a variant was asked leaves no quote waiting for it."""
        step = work.out.flow_step
        if step and step.submitted:
            return None
        quote = kept_quote(kept)
        if first(work.request.commands, Cancel) and quote and quote.asking:
            return None
        return kept


EXTENSION = Homologation
