"""The quotation's replies: what a message changed in the job, the price of the whole job with
every element named (and, for several, the tariff's lines), every warning, then the example
images (or the offer of them) and the next step; all in the pack's words (its texts)."""

from __future__ import annotations

import json

from assistant.pack.display import money
from assistant.pack.model import Catalog
from assistant.pack.texts import one_of, say
from extensions.homologation.data import data_of
from extensions.homologation.quote import Quote, QuoteStep
from extensions.homologation.tariff import Line, Tariff


def quote_question(step: QuoteStep, catalog: Catalog) -> str | None:
    """The question a quote's step asks: which vehicle, or the data's variant question."""
    if step.asks_category:
        return say(catalog, "quote_category", options=one_of([choice.lower() for choice in step.choices], catalog))
    return step.question


def quotation(step: QuoteStep, catalog: Catalog) -> tuple[list[str | None], str | None]:
    """A quote's reply and the question it asks, in this order: what this message changed
    in the job, the price of the whole job with every element named (and, for several, the
    tariff's lines), every warning, then the example images (or the offer of them) and the next step."""
    changed = _quote_changes(step, catalog)
    again = say(catalog, "quote_again") if step.again else None
    if step.asks_category or step.question:
        asked = quote_question(step, catalog)
        return [changed, _settled(step, catalog), again, asked], asked
    if step.images_again:
        return [say(catalog, "quote_images_sent"), say(catalog, "quote_open_case")], None
    sections: list[str | None] = [changed]
    if step.tariff:
        priced = step.tariff
        lines = [_tariff_line(line, catalog) for line in priced.lines]
        told = say(catalog, "quote_price", **_priced(step.quote, priced, catalog))
        sections.append("\n".join([told, *lines]) if len(step.quote.elements) > 1 else told)
        if priced.warnings:
            sections.append(say(catalog, "quote_warnings") + "".join(f"\n- {warning}" for warning in priced.warnings))
    if step.images:
        sections.append(say(catalog, "quote_images") + "".join(f"\n- {image.label}" for image in step.images))
        sections.append(say(catalog, "quote_open_case"))
    elif step.tariff:
        sections.append(say(catalog, "quote_offer_images"))
    return sections, None


def _settled(step: QuoteStep, catalog: Catalog) -> str | None:
    """While a variant question is open, the price or the example images of what is settled, when asked."""
    if step.images:
        return say(catalog, "quote_images") + "".join(f"\n- {image.label}" for image in step.images)
    return say(catalog, "quote_so_far", **_priced(step.quote, step.tariff, catalog)) if step.tariff else None


def _priced(quote: Quote, priced: Tariff, catalog: Catalog) -> dict[str, str]:
    """A price's words: its amount, currency, tax note and the elements it is for."""
    elements = data_of(catalog).elements
    amount = f"{priced.price:.0f}" if float(priced.price).is_integer() else f"{priced.price:.2f}"
    what = one_of([elements.name_of(code) for code in quote.elements], catalog, "and")
    return {"amount": amount, "currency": catalog.business.currency_symbol, "tax_note": priced.tax_note, "what": what}


def _tariff_line(line: Line, catalog: Catalog) -> str:
    """One line of a job's tariff: an element's price, or the price a combination rule gives several."""
    key = "quote_line_combined" if len(line.codes) > 1 else "quote_line"
    return say(catalog, key, name=line.name, price=money(line.price, catalog.business))


def _quote_changes(step: QuoteStep, catalog: Catalog) -> str | None:
    """What the message did to the job quoted before: elements added, variants swapped, or a new quote in its place."""
    elements = data_of(catalog).elements
    if step.added:
        return say(catalog, "quote_added", added=one_of([elements.name_of(code) for code in step.added], catalog, "and"))
    if step.swapped:
        name = elements.name_of
        return " ".join(say(catalog, "quote_swapped", old=name(old), new=name(new)) for old, new in step.swapped)
    if not step.replaced:
        return None
    before = one_of([elements.name_of(code) for code in step.replaced], catalog, "and")
    if step.moved and step.quote.category:
        return say(catalog, "quote_replaced_vehicle", vehicle=elements.categories[step.quote.category].name, before=before)
    return say(catalog, "quote_replaced", before=before)


def quoted_facts(step: QuoteStep) -> str:
    """The quote desk's result as data a model's framing may restate: the tariff (price, lines,
    warnings) or the question it asks."""
    said = {"tariff": step.tariff.model_dump() if step.tariff else None, "question": step.question, "choices": step.choices}
    return json.dumps(said, ensure_ascii=False)
