"""The quotation in progress (the seed's quote phase): what the customer wants homologated, the
variant questions still open, the price, and whether the example images went out.

One step per message: an answer to an open variant question goes to select_variant (never back
to identify); a message naming elements starts a new quote; a request for the example images
sends them once. The case (a pack flow) starts from a quote with nothing pending.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from assistant.pack.quotes import Elements, Example, QuoteSetup
from assistant.tools.quotes import Identified, Tariff, VariantQuestion, find_category, identify, mentions, only, question

Call = Callable[..., Any]  # a quotation tool by name, through the tool gateway


class Quote(BaseModel):
    category: str | None = None
    description: str | None = None  # the message, kept while its vehicle's category is asked
    elements: list[str] = []  # final codes, variants resolved
    pending: list[str] = []  # elements whose variant question is still open, the first one asked
    price: float | None = None
    warnings: list[str] = []
    images_offered: bool = False
    images_sent: bool = False
    asked_needs: bool = False  # the customer asked what they need: the images come with the price

    @property
    def asking(self) -> bool:
        """A question of ours is open: a variant, or the category."""
        return bool(self.pending or self.description)


@dataclass
class QuoteStep:
    """What one message did to the quote, for the Formatter."""

    quote: Quote
    tariff: Tariff | None = None
    question: str | None = None  # the data's variant question, or which category
    choices: list[str] = field(default_factory=list)
    asks_category: bool = False  # which vehicle: the elements named are in several categories
    again: bool = False  # the answer picked no option: the same question once more
    images: list[Example] = field(default_factory=list)  # sent now
    images_again: bool = False  # asked for once more: they were sent already


def wants(quote: Quote | None, text: str, setup: QuoteSetup, elements: Elements) -> bool:
    """Whether a message is for the quote: it answers our open question, asks for the example
    images of a quote given, or names elements to homologate."""
    if quote and quote.asking:
        return True
    if quote and quote.price is not None and asks_images(quote, text, setup):
        return True
    found = identify(elements, text, quote.category if quote else None)
    return bool(found.ready or found.with_variants or found.categories)


def asks_images(quote: Quote, text: str, setup: QuoteSetup) -> bool:
    return mentions(text, setup.asks_images) or (quote.images_offered and not quote.images_sent and only(text, setup.agree))


def step(quote: Quote | None, text: str, setup: QuoteSetup, elements: Elements, call: Call) -> QuoteStep:
    """The quote after one message (which `wants` said is for it)."""
    now = quote or Quote()
    if now.pending:
        code: str | None = call("select_variant", now.pending[0], text)
        if code is None:
            return _ask(now, question(elements, now.pending[0]), again=True)
        return _advance(now.model_copy(update={"elements": [*now.elements, code], "pending": now.pending[1:]}), elements, call)
    if now.description:
        category = find_category(elements, text)
        if category is None:
            return _ask_category(now, list(elements.categories), elements, again=True)
        found: Identified = call("identify", now.description, category)
        return _start(Quote(category=category, asked_needs=now.asked_needs), found, elements, call)
    if now.price is not None and asks_images(now, text, setup):
        if now.images_sent:
            return QuoteStep(now, images_again=True)
        return QuoteStep(now.model_copy(update={"images_sent": True}), images=images(now.elements, elements))
    found = call("identify", text, now.category)
    fresh = Quote(category=now.category, asked_needs=mentions(text, setup.asks_needs))
    if found.categories:
        return _ask_category(fresh.model_copy(update={"description": text}), found.categories, elements)
    return _start(fresh, found, elements, call)


def images(codes: list[str], elements: Elements) -> list[Example]:
    """The example drawings of what the office will need: each element's photos, then the base documents."""
    every = [photo for code in codes for photo in elements.photos_of(code)] + elements.documents
    return list({e.example: e for e in every if e.example}.values())


def _start(quote: Quote, found: Identified, elements: Elements, call: Call) -> QuoteStep:
    pending = [q.code for q in found.with_variants]
    named = [elements.split(code)[0] for code in [*found.ready, *pending]]
    category = quote.category or (elements.elements[named[0]].category if named else None)
    return _advance(quote.model_copy(update={"category": category, "elements": found.ready, "pending": pending}), elements, call)


def _advance(quote: Quote, elements: Elements, call: Call) -> QuoteStep:
    """The next variant question, or, all answered, the price (and the images if they asked what they need)."""
    if quote.pending:
        return _ask(quote, question(elements, quote.pending[0]))
    priced: Tariff = call("tariff", quote.elements)
    update: dict[str, Any] = {"price": priced.price, "warnings": priced.warnings, "images_offered": True}
    if quote.asked_needs:
        update["images_sent"] = True
        return QuoteStep(quote.model_copy(update=update), tariff=priced, images=images(quote.elements, elements))
    return QuoteStep(quote.model_copy(update=update), tariff=priced)


def _ask(quote: Quote, asked: VariantQuestion, again: bool = False) -> QuoteStep:
    return QuoteStep(quote, question=asked.question, choices=asked.options, again=again)


def _ask_category(quote: Quote, categories: list[str], elements: Elements, again: bool = False) -> QuoteStep:
    return QuoteStep(quote, choices=[elements.categories[c].name for c in categories], asks_category=True, again=again)
