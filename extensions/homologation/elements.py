"""A pack's quotable elements (elements.yaml): what a customer can ask a price for, its variants,
tariffs, warnings, and what the office needs of it (photos, data fields, base documents).

pack.yaml's optional `quote:` section names the file and the words that ask for the example
images; everything is checked at start-up like the rest of the pack (docs/domain-packs.md).
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assistant.pack.examples import Example

CODE_PATTERN = r"^[A-Z][A-Z0-9_]*$"
Code = Annotated[str, Field(pattern=CODE_PATTERN)]
FieldType = Literal["text", "number", "choice", "date", "bool"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Category(Strict):
    shown: ClassVar[tuple[str, ...]] = ("name",)

    name: str
    words: list[str] = Field(min_length=1)  # how customers name it, in every language the pack reads


class Validation(Strict):
    min: float | None = None
    max: float | None = None
    pattern: str | None = None
    min_length: int | None = None
    max_length: int | None = None

    @model_validator(mode="after")
    def _compiles(self) -> Validation:
        if self.pattern is not None:
            re.compile(self.pattern)
        return self


class DataField(Strict):
    """One datum of an element the case collects; `if`: needed only when another field has one of those values."""

    shown: ClassVar[tuple[str, ...]] = ("label", "instruction", "options")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    key: str
    label: str
    type: FieldType = "text"
    instruction: str
    options: list[str] = []
    validation: Validation = Validation()
    when: dict[str, list[str]] = Field(default={}, alias="if")

    @model_validator(mode="after")
    def _choices(self) -> DataField:
        if (self.type == "choice") != bool(self.options):
            raise ValueError(f"{self.key}: options go with type choice, and only with it")
        return self


class Variant(Strict):
    """One option of an element (front suspension); it may override the element's tariff and needs."""

    shown: ClassVar[tuple[str, ...]] = ("warnings",)

    name: str
    words: list[str] = Field(min_length=1)
    price: float | None = Field(default=None, ge=0)
    warnings: list[str] | None = None
    photos: list[Example] | None = None
    fields: list[DataField] | None = None


class Variants(Strict):
    shown: ClassVar[tuple[str, ...]] = ("question",)

    question: str  # the one question that tells the options apart; nothing else is ever asked
    options: dict[Code, Variant] = Field(min_length=2)


class Element(Strict):
    shown: ClassVar[tuple[str, ...]] = ("warnings",)

    category: str
    name: str
    words: list[str] = Field(min_length=1)
    price: float | None = Field(default=None, ge=0)
    warnings: list[str] = []
    photos: list[Example] = []
    fields: list[DataField] = []
    variants: Variants | None = None

    @model_validator(mode="after")
    def _priced(self) -> Element:
        unpriced = [k for k, v in (self.variants.options.items() if self.variants else []) if v.price is None]
        if self.price is None and (self.variants is None or unpriced):
            raise ValueError(f"{self.name}: a price, on the element or on every variant ({unpriced or 'none'})")
        return self


class Combination(Strict):
    """One price for a set of elements quoted together; a base code covers any of its variants."""

    elements: list[Code] = Field(min_length=2)
    price: float = Field(ge=0)
    name: str


class Elements(Strict):
    """elements.yaml."""

    shown: ClassVar[tuple[str, ...]] = ("tax_note",)

    categories: dict[str, Category] = Field(min_length=1)
    elements: dict[Code, Element] = Field(min_length=1)
    combinations: list[Combination] = []
    tax_note: str = ""
    documents: list[Example] = []

    @model_validator(mode="after")
    def _references(self) -> Elements:
        for code, element in self.elements.items():
            if element.category not in self.categories:
                raise ValueError(f"elements.{code}: category '{element.category}' is not in categories")
            for field in self.fields_of(code):
                unknown = [k for k in field.when if k not in {f.key for f in self.fields_of(code)}]
                if unknown:
                    raise ValueError(f"elements.{code}.{field.key}: `if` names unknown fields {unknown}")
        for i, combination in enumerate(self.combinations):
            unknown = [c for c in combination.elements if not self.knows(c)]
            if unknown:
                raise ValueError(f"combinations[{i}] names {unknown}, which are neither elements nor variants")
        return self

    def split(self, code: str) -> tuple[str, str | None]:
        """An element's code and its option's ("SUSPENSION_MOTO_DEL" -> SUSPENSION_MOTO, DEL)."""
        if code in self.elements:
            return code, None
        for base, element in self.elements.items():
            option = code.removeprefix(f"{base}_")
            if code.startswith(f"{base}_") and element.variants and option in element.variants.options:
                return base, option
        raise KeyError(code)

    def knows(self, code: str) -> bool:
        try:
            self.split(code)
        except KeyError:
            return False
        return True

    def variant(self, code: str) -> Variant | None:
        base, option = self.split(code)
        variants = self.elements[base].variants
        return variants.options[option] if variants and option else None

    def name_of(self, code: str) -> str:
        variant = self.variant(code)
        return variant.name if variant else self.elements[self.split(code)[0]].name

    def price_of(self, code: str) -> float:
        variant = self.variant(code)
        price = variant.price if variant and variant.price is not None else self.elements[self.split(code)[0]].price
        assert price is not None, "start-up made sure every element or variant has a price"
        return price

    def warnings_of(self, code: str) -> list[str]:
        variant = self.variant(code)
        return variant.warnings if variant and variant.warnings is not None else self.elements[self.split(code)[0]].warnings

    def photos_of(self, code: str) -> list[Example]:
        variant = self.variant(code)
        return variant.photos if variant and variant.photos is not None else self.elements[self.split(code)[0]].photos

    def fields_of(self, code: str) -> list[DataField]:
        variant = self.variant(code)
        return variant.fields if variant and variant.fields is not None else self.elements[self.split(code)[0]].fields


class QuoteSetup(Strict):
    """pack.yaml `quote:`: the elements file, and the words of a message that asks for the example
    images, or for what the office will need (which sends them with the price), or that says yes
    to the offer of them on its own ("sí", "vale"), or that asks what the quote came to (a case
    under way answers it, then asks its question again)."""

    elements: str = "elements.yaml"
    asks_images: list[str] = Field(min_length=1)
    asks_needs: list[str] = []
    agree: list[str] = []
    asks_price: list[str] = []
