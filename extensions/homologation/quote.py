"""The quotation in progress (the phase that prices a homologation): what the customer wants homologated, the
variant questions still open, the price, and whether the example images went out.

One step per message: an answer to an open variant question goes to select_variant (never back
to identify); a request for the example images sends them once. After a price, a message is
read against the job quoted. With an "also" word (the languages' `also`: "y también", "and a
headlight too", "¿y si le sumo…?") what it names joins the job, and the whole job is priced
again with the tariff's combination rules. Another variant of an element quoted ("no, la
trasera", "actually the removable one") swaps that element's variant and keeps the others.
Anything else it names is a new quote in place of the one given: a customer who names another
thing right after a price may be asking its price alone, and adding it unasked would price work
(and open a case collecting photos) they never asked for; the reply says which quote it
replaces and how to add instead. The case (a pack flow) starts from a quote with nothing pending.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import BaseModel

from assistant.dialogue.state import Kept
from assistant.language import Languages
from assistant.pack.display import money
from assistant.pack.examples import Example
from assistant.pack.model import Business
from extensions.homologation.elements import Elements, QuoteSetup
from extensions.homologation.tariff import (
    Identified,
    Tariff,
    VariantQuestion,
    find_category,
    identify,
    mentions,
    only,
    question,
    select_variant,
)

Call = Callable[..., Any]  # a quotation tool by name, through the tool gateway
Pick = Callable[[str, str], str | None]  # select_variant: an element's variant a message says, if any


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


def kept_quote(kept: Kept | None) -> Quote | None:
    """The quote a session keeps, if any."""
    return Quote.model_validate(kept.data) if kept and kept.data else None


def keep(quote: Quote | None, elements: Elements, business: Business) -> Kept | None:
    """What the session keeps of a quote, the part of it clients see, and the lines a model's
    prompt states it in."""
    if quote is None:
        return None
    lines = []
    if quote.elements:
        price = f" = {money(quote.price, business)} {elements.tax_note}" if quote.price is not None else ""
        lines.append(f"Quote: {', '.join(elements.name_of(code) for code in quote.elements)}{price}")
    if quote.pending:
        lines.append(f"Variant asked for: {', '.join(quote.pending)}")
    public = {"quote": quote.model_dump(include={"elements", "pending", "price", "images_sent"})}
    return Kept(data=quote.model_dump(), public=public, summary=lines)


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
    added: list[str] = field(default_factory=list)  # joined the job now (codes, or elements whose variant is asked)
    swapped: list[tuple[str, str]] = field(default_factory=list)  # variants corrected: (the code quoted, the code now)
    replaced: list[str] = field(default_factory=list)  # the codes of the quote before that this new one leaves out
    moved: bool = False  # the new quote is for another vehicle: a case is of one vehicle


def wants(quote: Quote | None, text: str, setup: QuoteSetup, elements: Elements) -> bool:
    """Whether a message is for the quote: it answers our open question, asks for the example
    images of a quote given or says another variant of an element in it, or names elements to
    homologate."""
    if quote and quote.asking:
        return True
    if quote and quote.price is not None:
        if asks_images(quote, text, setup) or _variants_said(quote.elements, text, elements, partial(select_variant, elements)):
            return True
    found = identify(elements, text, quote.category if quote else None)
    return bool(found.ready or found.with_variants or found.categories)


def asks_images(quote: Quote, text: str, setup: QuoteSetup) -> bool:
    return mentions(text, setup.asks_images) or (quote.images_offered and not quote.images_sent and only(text, setup.agree))


def step(quote: Quote | None, text: str, setup: QuoteSetup, elements: Elements, call: Call, languages: Languages) -> QuoteStep:
    """The quote after one message (which `wants` said is for it); `languages` tell a message
    that adds to the job from one that asks anew."""
    now = quote or Quote()
    adding = languages.adds(text)
    if now.pending:
        return _answer(now, text, adding, setup, elements, call)
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
    if now.price is None:
        return _start(fresh, found, elements, call)
    return _revise(now, fresh, text, found, adding, elements, call)


def images(codes: list[str], elements: Elements) -> list[Example]:
    """The example drawings of what the office will need: each element's photos, then the base documents."""
    every = [photo for code in codes for photo in elements.photos_of(code)] + elements.documents
    return list({e.example: e for e in every if e.example}.values())


def _answer(quote: Quote, text: str, adding: bool, setup: QuoteSetup, elements: Elements, call: Call) -> QuoteStep:
    """An answer to the open variant question, through select_variant only; with an "also" word,
    what else it names joins the job ("la delantera, y también el escape"). Asked meanwhile for
    the price or the example images, it gives those of what is settled, then asks again."""
    code: str | None = call("select_variant", quote.pending[0], text)
    if code is None and not adding:
        asked = _ask(quote, question(elements, quote.pending[0]))
        if quote.elements and mentions(text, setup.asks_price):
            asked.tariff = call("tariff", quote.elements)
        elif quote.elements and mentions(text, setup.asks_images):
            asked.images = images(quote.elements, elements)
        asked.again = not (asked.tariff or asked.images)
        return asked
    if code is not None:
        quote = quote.model_copy(update={"elements": _joined(quote.elements, [code]), "pending": quote.pending[1:]})
    if not adding:
        return _advance(quote, elements, call)
    return _add(quote, call("identify", text, quote.category), elements, call)


def _revise(quote: Quote, fresh: Quote, text: str, found: Identified, adding: bool, elements: Elements, call: Call) -> QuoteStep:
    """A message after a price: an addition, a variant corrected, or a new quote in its place."""
    named = [*found.ready, *(asked.code for asked in found.with_variants)]
    if not named:  # a variant alone: "no, la trasera", "and the rear one too"
        said = _variants_said(quote.elements, text, elements, partial(call, "select_variant"))
        if adding:
            return _add(quote, Identified(ready=[new for _, new in said]), elements, call)
        return _swap(quote, said, elements, call)
    if elements.elements[elements.split(named[0])[0]].category != quote.category:  # another vehicle
        return _instead(quote, fresh, found, elements, call)
    if adding:
        return _add(quote, found, elements, call)
    quoted = {elements.split(code)[0]: code for code in quote.elements}
    bases = [elements.split(code)[0] for code in named]
    said = [(quoted[base], code) for base, code in zip(bases, named, strict=True) if base in quoted and quoted[base] != code]
    if said and all(base in quoted for base in bases) and not found.with_variants:
        return _swap(quote, said, elements, call)
    return _instead(quote, fresh, found, elements, call)


def _add(quote: Quote, found: Identified, elements: Elements, call: Call) -> QuoteStep:
    """The job with what the message names joined to it (each element once), priced whole."""
    ready = [code for code in found.ready if code not in quote.elements]
    asked = [q.code for q in found.with_variants if q.code not in quote.pending]
    grown = {"elements": [*quote.elements, *ready], "pending": [*quote.pending, *asked], "images_sent": False}
    done = _advance(quote.model_copy(update={**grown, "price": None}), elements, call)
    done.added = [*ready, *asked]
    return done


def _swap(quote: Quote, said: list[tuple[str, str]], elements: Elements, call: Call) -> QuoteStep:
    """The job with those elements' variants changed and every other element kept, priced whole."""
    swaps = dict(said)
    codes = list(dict.fromkeys(swaps.get(code, code) for code in quote.elements))
    done = _advance(quote.model_copy(update={"elements": codes, "images_sent": False}), elements, call)
    done.swapped = said
    return done


def _instead(quote: Quote, fresh: Quote, found: Identified, elements: Elements, call: Call) -> QuoteStep:
    """A new quote in place of the one given, saying which elements it leaves out."""
    done = _start(fresh.model_copy(update={"category": None}), found, elements, call)
    kept = {*done.quote.elements, *done.quote.pending}
    done.replaced = [code for code in quote.elements if code not in kept and elements.split(code)[0] not in kept]
    done.moved = done.quote.category != quote.category
    return done


def _variants_said(codes: list[str], text: str, elements: Elements, pick: Pick) -> list[tuple[str, str]]:
    """The elements quoted whose other variant the message says, with that variant's code."""
    said = []
    for code in codes:
        base = elements.split(code)[0]
        if elements.elements[base].variants is None:
            continue
        new = pick(base, text)
        if new is not None and new not in codes:
            said.append((code, new))
    return said


def _joined(codes: list[str], more: list[str]) -> list[str]:
    return list(dict.fromkeys([*codes, *more]))


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
