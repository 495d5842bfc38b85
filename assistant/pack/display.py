"""How values read: amounts in the pack's currency, percents, units, enum words, and the
pack's small templates ("annual fee {annual_fee}"), where a piece naming a missing value
is left out instead of printing "None".
"""

from __future__ import annotations

import re
from typing import Any

from assistant.pack.model import Attribute, Business, Catalog, Product, Template

_FIELD = re.compile(r"\{(\w+)(?:\|(\w+))?\}")


def money(amount: float | None, business: Business, scaled: bool = False) -> str:
    """An amount with the business's currency sign, before it or after it as its country writes
    it; `scaled`: in the largest of its money scales it reaches ("$1.25 million")."""
    if amount is None:
        return "—"
    scales = business.money_scales if scaled else {}
    size, name = max(((size, name) for name, size in scales.items() if amount >= size), default=(1, ""))
    if name:
        figure = f"{amount / size:.2f}".rstrip("0").rstrip(".") + f" {name}"
    else:
        figure = f"{amount:,.0f}" if float(amount).is_integer() else f"{amount:,.2f}"
    symbol = business.currency_symbol
    return f"{figure} {symbol}" if business.currency_after else f"{symbol}{figure}"


def price(amount: float, attribute: Attribute, catalog: Catalog) -> str:
    """An amount of a currency attribute, scaled as the attribute's style says."""
    return money(amount, catalog.business, scaled=attribute.style == "scaled")


def show_value(value: Any, attribute: Attribute | None, catalog: Catalog) -> str:
    """One attribute value as the customer reads it."""
    if value is None or value == []:
        return "—"
    if attribute is None:
        return str(value)
    if attribute.type == "number":
        if value == 0 and attribute.zero:
            return attribute.zero
        if attribute.unit == "currency":
            return price(value, attribute, catalog)
        number = f"{value:g}" if isinstance(value, float) else f"{value:,}"
        if attribute.unit == "percent":
            return f"{number}%"
        if attribute.unit:
            return f"{number}{attribute.unit}" if attribute.unit.startswith("/") else f"{number} {attribute.unit}"
        return number
    if attribute.type == "boolean":
        return attribute.words("true" if value else "false") if attribute.values else ("yes" if value else "no")
    if isinstance(value, list):
        return ", ".join(attribute.words(v) for v in value)
    return attribute.words(value) if attribute.type == "enum" else str(value)


def field(product: Product, name: str, how: str | None, catalog: Catalog) -> str | None:
    """One `{name|how}` of a template, or None when the product has no such value."""
    value = product.name if name == "name" else product.value(name)
    if value is None or value == [] or value == "":
        return None
    attribute = catalog.pack.attributes.get(name)
    if how == "raw":
        return str(value)
    if how == "first":
        value = value[0] if isinstance(value, list) else value
        return str(value)
    if how == "semicolons" and isinstance(value, list):
        return "; ".join(map(str, value))
    text = show_value(value, attribute, catalog)
    return {"lower": text.lower(), "title": text[:1].upper() + text[1:]}.get(how or "", text)


def fields(template: Template) -> list[str]:
    """The attributes a template shows, in order: a topic line's first is the figure it is about."""
    pieces = [template] if isinstance(template, str) else template
    return [match[1] for piece in pieces for match in _FIELD.finditer(piece)]


def render(template: Template | None, product: Product, catalog: Catalog) -> str | None:
    """The template filled from the product; a piece with a missing value is dropped."""
    if template is None:
        return None
    pieces = [template] if isinstance(template, str) else template
    out = []
    for piece in pieces:
        missing = False

        def fill(match: re.Match[str]) -> str:
            nonlocal missing
            text = field(product, match[1], match[2], catalog)
            missing |= text is None
            return text or ""

        text = _FIELD.sub(fill, piece)
        if not missing:
            out.append(text)
    return "".join(out) or None


def card(product: Product, catalog: Catalog) -> dict[str, Any]:
    """What the chat page shows for a product: badge, details line, one headline figure, bullets."""
    shown = catalog.pack.display
    attributes = catalog.pack.attributes

    def said(name: str | None) -> str | None:
        return field(product, name, None, catalog) if name else None

    headline = None
    if shown.headline and (figure := render(shown.headline.show, product, catalog)):
        headline = f"{shown.headline.label}: {figure}"
    highlights = shown.highlights
    return {
        "badge": said(shown.badge),
        "meta": " · ".join(t for t in (said(m) for m in shown.meta) if t),
        "headline": headline,
        "highlights": [attributes[highlights].words(h) for h in product.value(highlights) or []][:3] if highlights else [],
    }


def public_product(product: Product, catalog: Catalog) -> dict[str, Any]:
    """A product in API responses: its data, and how the page should show it."""
    return {**product.model_dump(), "display": card(product, catalog)}
