"""A case on one printed page for the office: its heading, status and every section of its record,
each value whole (a long one wraps over several lines). The page never grows a second one: the
type shrinks only when the record does not fit at the largest size, and what still does not fit
at the smallest is counted at the foot, since the whole record is one GET /cases/<id> away.

Every word the page prints is the record's own (its values, and the titles its `labels` give its
sections) or one of the pack's texts (the status, the price line, the counts, the foot); times are
in the business's time zone and amounts in its money format."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from fpdf import FPDF
from fpdf.enums import Align, MethodReturnValue, XPos, YPos

from assistant.attachments.store import Attachment
from assistant.language.invisible import visible
from assistant.pack.display import money
from assistant.pack.model import Catalog
from assistant.pack.texts import say
from extensions.homologation.case_store import MANAGED

FONT = "Helvetica"  # a core font: nothing to ship, Windows-1252 text only (hence _printable)
ENCODING = "windows-1252"  # Latin-1 with €, curly quotes, dashes and the ellipsis
SIZES = (11, 10, 9, 8, 7, 6)  # the body's type, largest first
GAP = 0.5  # lines of space above a section's title and the foot
LINE = 0.45  # mm per point of type: the line height
MARGIN = 15
INDENT = 4  # mm per level
TITLE_SIZE = 14
_NOT_SECTIONS = {*MANAGED, "session_id", "customer_id", "title", "labels", "transcript"}
_ITEM_SHOWN = ("fields", "photos", "warnings")  # what an item of a list prints besides its name; its ids are the JSON's
_DATES = {"day_first": "%d/%m/%Y", "month_first": "%m/%d/%Y"}


@dataclass(frozen=True)
class Line:
    text: str
    level: int = 0  # how far it is indented
    style: str = ""  # "B" bold, "I" italic
    space: float = 0  # lines of space above it


def summary_pdf(case: dict[str, Any], attachments: list[Attachment], catalog: Catalog) -> bytes:
    """The page; `attachments`: the files the case's conversation sent, named where the record has
    their ids; `catalog`: the pack whose texts, money format and time zone the page uses."""
    labels: dict[str, str] = case.get("labels") or {}
    names = {a.id: a.name for a in attachments}
    lines = [Line(_status(case, catalog))]
    for section, value in case.items():
        if section in _NOT_SECTIONS or value in (None, "", [], {}):
            continue
        lines.append(Line(labels.get(section) or section.replace("_", " ").capitalize(), style="B", space=GAP))
        lines.extend(_section(_named(value, names, catalog), labels, catalog))
    footer = Line(
        say(catalog, "case_summary_footer", id=case["id"], messages=len(case.get("transcript") or []), files=len(attachments)),
        style="I",
        space=GAP,
    )
    title = _printable(case.get("title") or case["id"])
    pdf = FPDF(format="A4")
    pdf.core_fonts_encoding = ENCODING
    pdf.set_auto_page_break(False)
    pdf.set_margins(MARGIN, MARGIN)
    pdf.set_title(title)
    pdf.add_page()
    pdf.set_font(FONT, "B", TITLE_SIZE)
    pdf.multi_cell(0, TITLE_SIZE * LINE, title, align=Align.L, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    room = pdf.h - MARGIN - pdf.get_y()
    for size in SIZES:  # the largest type the whole record fits in
        wrapped = _wrapped(pdf, [*lines, footer], size)
        fits = room / (size * LINE)
        if _height(wrapped) <= fits:
            break
    else:  # even the smallest type is too big: the foot counts the rest
        more = _wrapped(pdf, [Line(say(catalog, "case_summary_more", count=999), style="I")], size)
        kept: list[tuple[Line, list[str]]] = []
        for line, texts in wrapped[:-1]:
            if _height([*kept, (line, texts), *more, wrapped[-1]]) > fits:
                break
            kept.append((line, texts))
        left = sum(len(t) for _, t in wrapped[:-1]) - sum(len(t) for _, t in kept)
        more = _wrapped(pdf, [Line(say(catalog, "case_summary_more", count=left), style="I")], size)
        wrapped = [*kept, *more, wrapped[-1]]
    for line, texts in wrapped:
        pdf.set_font(FONT, line.style, size)
        pdf.set_y(pdf.get_y() + line.space * size * LINE)
        for text in texts:
            pdf.set_x(MARGIN + line.level * INDENT)
            pdf.cell(0, size * LINE, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    return bytes(pdf.output())


def _height(wrapped: list[tuple[Line, list[str]]]) -> float:
    """In lines of type, with the space above some."""
    return sum(len(texts) + line.space for line, texts in wrapped)


def _wrapped(pdf: FPDF, lines: list[Line], size: int) -> list[tuple[Line, list[str]]]:
    """Each line as the page's width breaks it at that size of type."""
    out = []
    for line in lines:
        pdf.set_font(FONT, line.style, size)
        width = pdf.w - 2 * MARGIN - line.level * INDENT
        texts = pdf.multi_cell(width, size * LINE, _printable(line.text), dry_run=True, output=MethodReturnValue.LINES)
        assert isinstance(texts, list), "output=LINES: the lines"
        out.append((line, [t.encode("latin-1").decode(ENCODING) for t in texts] or [""]))  # back from the font's bytes
    return out


def _status(case: dict[str, Any], catalog: Catalog) -> str:
    """The case's status and when it was handed in, in the business's time zone."""
    business = catalog.business
    at = datetime.fromisoformat(case["created_at"]).astimezone(ZoneInfo(business.timezone))
    status = say(catalog, f"case_status_{case['status']}")
    return say(catalog, "case_summary_status", status=status, date=f"{at:{_DATES[business.date_order]}}", time=f"{at:%H:%M}")


def _section(value: Any, labels: dict[str, str], catalog: Catalog) -> Iterator[Line]:
    """A section's lines: a list of named items (each with its fields, photos and warnings), a
    price with its tax note and warnings, groups of values by name, or any other value."""
    if isinstance(value, list) and value and all(isinstance(item, dict) and item.get("name") for item in value):
        for item in value:
            yield Line(str(item["name"]), 1, "B")
            shown = {key: item[key] for key in _ITEM_SHOWN if item.get(key)}
            yield from _entries(shown.get("fields") or {}, labels, 2)
            if shown.get("photos"):
                count = len(shown["photos"])
                yield Line(say(catalog, "case_summary_photo" if count == 1 else "case_summary_photos", count=count), 2)
            yield from _warnings(shown.get("warnings") or [], catalog, 2)
    elif isinstance(value, dict) and "price" in value:
        amount = value["price"]
        price = money(float(amount), catalog.business) if isinstance(amount, int | float) else _flat(amount)
        yield Line(say(catalog, "case_summary_price", price=price, tax=value.get("tax_note") or ""), 1)
        yield from _warnings(value.get("warnings") or [], catalog, 1)
        rest = {k: v for k, v in value.items() if k not in ("price", "tax_note", "warnings")}
        yield from _entries(rest, labels, 1)
    elif isinstance(value, dict):
        yield from _entries(value, labels, 1)
    elif isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        for item in value:
            yield from _entries(item, labels, 1) if isinstance(item, dict) else [Line(_flat(item), 1)]
    else:
        yield Line(_flat(value), 1)


def _entries(values: dict[str, Any], labels: dict[str, str], level: int) -> Iterator[Line]:
    """ "Label: value" a line; a group of values under its name, or on the name's line when the
    group holds one value of the same name ("Workshop: not yet", not "Workshop: Workshop: not yet")."""
    for key, inner in values.items():
        name = labels.get(key, key)
        if isinstance(inner, dict) and len(inner) == 1 and labels.get(next(iter(inner)), next(iter(inner))) == name:
            inner = next(iter(inner.values()))
        if isinstance(inner, dict) and inner:
            yield Line(name, level, "B")
            yield from _entries(inner, labels, level + 1)
        elif isinstance(inner, list) and any(isinstance(v, dict) for v in inner):
            yield Line(name, level, "B")
            for item in inner:
                yield from _entries(item, labels, level + 1) if isinstance(item, dict) else [Line(_flat(item), level + 1)]
        else:
            yield Line(f"{name}: {_flat(inner)}", level)


def _warnings(warnings: list[Any], catalog: Catalog, level: int) -> Iterator[Line]:
    if warnings:
        yield Line(say(catalog, "case_summary_warnings"), level)
        yield from (Line(f"- {_flat(w)}", level + 1) for w in warnings)


def _named(value: Any, names: dict[str, str], catalog: Catalog) -> Any:
    """The value with each file's id replaced by its name, and yes and no in the pack's words."""
    if isinstance(value, dict):
        return {key: _named(inner, names, catalog) for key, inner in value.items()}
    if isinstance(value, list):
        return [_named(inner, names, catalog) for inner in value]
    if isinstance(value, bool):
        return say(catalog, "case_yes" if value else "case_no")
    return names.get(value, value) if isinstance(value, str) else value


def _flat(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_flat(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_flat(v) for v in value)
    return "" if value is None else str(value)


def _printable(text: str) -> str:
    """What a core font can draw: Windows-1252 (Spanish, French, German..., and €); another letter
    loses its accent (č is c), and what is left is '?'; characters nobody sees go (language.invisible)."""
    return "".join(_drawable(ch) for ch in visible(text))


def _drawable(ch: str) -> str:
    try:
        ch.encode(ENCODING)
        return ch
    except UnicodeEncodeError:
        bare = unicodedata.normalize("NFKD", ch).encode(ENCODING, "ignore").decode(ENCODING)
        return bare or "?"
