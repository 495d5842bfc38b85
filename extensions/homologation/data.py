"""The homologation desk's data: pack.yaml's `extensions: homologation:` settings (the quote's
words) and the elements file they name (tariffs, variants, warnings, what the office needs),
checked against the pack: the example drawings are in it, its catalog lists each element as the
tariff prices it, and the quote agent may call the quote's tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from assistant.pack.examples import Example
from assistant.pack.ingest import read, validated
from assistant.pack.model import Catalog, DataError, Pack, Product
from extensions.homologation.elements import Elements, QuoteSetup

NAME = "homologation"  # the extension's name: its data and what it keeps in a session are under it
QUOTE_TOOLS = ("identify", "select_variant", "tariff")  # what its agent calls
# The prompt phases of LLM mode it speaks in without a flow step naming them: a quote being given,
# and a case's steps it builds per element and for the base documents.
QUOTE_STAGE, ELEMENT_STAGE, DOCUMENTS_STAGE = "quote", "element", "documents"


class HomologationData(BaseModel):
    setup: QuoteSetup
    elements: Elements


class Data:
    folder = Path(__file__).parent
    stages = (QUOTE_STAGE, ELEMENT_STAGE, DOCUMENTS_STAGE)
    tools = {"quote": QUOTE_TOOLS}

    def load(self, folder: Path, settings: dict[str, Any], pack: Pack, products: list[Product]) -> HomologationData:
        setup = validated(folder / "pack.yaml", QuoteSetup.model_validate, settings)
        path = folder / setup.elements
        elements = validated(path, Elements.model_validate, read(path))
        missing = [e.example for e in drawn_examples(elements) if e.example and not (folder / e.example).is_file()]
        if missing:
            raise DataError(f"{path}: example images {sorted(set(missing))[:5]} are not in the pack")
        drifted = drifted_elements(products, elements)
        if drifted:
            raise DataError(
                f"{folder / pack.catalog.file}: items {drifted[:5]} disagree with {path} (code, category or lowest price)"
            )
        unconfirmed = [
            name for name, flow in pack.flows.items() if flow.action == "submit" and flow.steps[-1].collect[-1].kind != "choice"
        ]
        if unconfirmed:
            raise DataError(
                f"{folder / 'pack.yaml'}: flows {unconfirmed}: a submit action ends with the choice that confirms the review"
            )
        lacking = [tool for tool in QUOTE_TOOLS if tool not in pack.tools.get("quote", [])]
        if lacking:
            raise DataError(f"{folder / 'pack.yaml'}: tools.quote needs {lacking}")
        return HomologationData(setup=setup, elements=elements)

    def said_back(self, data: BaseModel, translations: list[BaseModel]) -> BaseModel:
        return data  # customers name elements by the words elements.yaml gives every language


DATA = Data()


def data_of(catalog: Catalog, own: bool = False) -> HomologationData:
    """The desk's data in the reply's language (the elements' warnings, the variants' questions);
    `own`: as the pack writes it, untranslated."""
    data = catalog.own_extras[NAME] if own else catalog.extra(NAME)
    assert isinstance(data, HomologationData), "the homologation extension loaded its data"
    return data


def drifted_elements(products: list[Product], elements: Elements) -> list[str]:
    """The elements the catalog lists otherwise than the tariff: each once, by its code, in its
    category, from its lowest price; so what a search shows and what a quote charges agree."""
    listed: dict[str, list[Product]] = {}
    for product in products:
        listed.setdefault(str(product.value("code")), []).append(product)
    drifted = sorted(set(listed) - set(elements.elements))
    for code, element in elements.elements.items():
        options = element.variants.options.values() if element.variants else []
        prices = [option.price if option.price is not None else element.price for option in options] or [element.price]
        found = listed.get(code, [])
        lowest = min(price for price in prices if price is not None)
        if len(found) != 1 or found[0].value("category") != element.category or found[0].value("price") != lowest:
            drifted.append(code)
    return drifted


def drawn_examples(elements: Elements) -> list[Example]:
    """Every photo and document the pack draws an example of."""
    found = [*elements.documents]
    for element in elements.elements.values():
        found += element.photos
        for variant in element.variants.options.values() if element.variants else []:
            found += variant.photos or []
    return found
