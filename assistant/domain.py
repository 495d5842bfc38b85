"""The business's data: typed models for the catalog, FAQ and vocabulary, and their loader.

Everything the assistant states as a fact (fees, rates, limits, eligibility rules, support
answers) comes from these files, validated at start-up so a broken data file fails loudly
with the file and field named, never mid-conversation.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

ProductType = Literal["credit_card", "debit_card", "prepaid_card"]
BankingType = Literal["conventional", "islami"]
Network = Literal["visa", "mastercard", "jcb", "amex", "unionpay"]
Tier = Literal["classic", "gold", "titanium", "platinum", "signature", "world", "infinite"]
UseCase = Literal["travel", "shopping", "business", "dining", "fuel", "everyday"]
Employment = Literal["salaried", "business_owner", "self_employed", "student", "retired"]

EMPLOYMENT_TYPES: tuple[str, ...] = Employment.__args__  # type: ignore[attr-defined]


FilterValue = str | int | list[str]  # one value, an amount, or any of several values


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Fees(Strict):
    """Every charge in BDT (or percent where the name says so)."""

    annual_fee: int = Field(ge=0)
    annual_fee_waiver: str | None = None
    supplementary_card_fee: int = Field(ge=0)
    card_replacement_fee: int = Field(ge=0)
    late_payment_fee: int | None = Field(default=None, ge=0)
    cash_advance_fee_pct: float | None = Field(default=None, ge=0)
    foreign_transaction_fee_pct: float = Field(ge=0)
    atm_withdrawal_fee: int = Field(ge=0)


class Rate(Strict):
    """Interest (conventional) or profit/ujrah (Islamic) on unpaid balances, per year."""

    label: str
    annual_pct: float = Field(ge=0)


class CreditLimit(Strict):
    min: int = Field(gt=0)
    max: int = Field(gt=0)

    @model_validator(mode="after")
    def _ordered(self) -> "CreditLimit":
        if self.min > self.max:
            raise ValueError("min must not exceed max")
        return self


class EligibilityRule(Strict):
    employment: list[Employment] = Field(min_length=1)
    min_monthly_income: int = Field(ge=0)
    min_age: int = Field(ge=18)
    max_age: int = Field(le=100)


class Product(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{2,63}$")
    name: str
    product_type: ProductType
    banking_type: BankingType
    network: Network
    tier: Tier
    use_cases: list[UseCase] = Field(min_length=1)
    description: str
    fees: Fees
    rate: Rate | None = None
    credit_limit: CreditLimit | None = None
    interest_free_days: int | None = Field(default=None, ge=0)
    rewards: str
    lounge_visits_per_year: int = Field(default=0, ge=0)
    benefits: list[str] = Field(min_length=1)
    eligibility: EligibilityRule

    @model_validator(mode="after")
    def _credit_fields(self) -> "Product":
        is_credit = self.product_type == "credit_card"
        for name in ("rate", "credit_limit", "interest_free_days"):
            if is_credit and getattr(self, name) is None:
                raise ValueError(f"a credit card needs {name}")
        return self

    def search_text(self) -> str:
        """What the embedding index reads for this product."""
        uses = ", ".join(self.use_cases)
        return f"{self.name}. {self.description} Good for {uses}. {self.rewards}. " + " ".join(
            self.benefits
        )


class FaqEntry(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{2,63}$")
    category: str
    question: str
    answer: str
    keywords: list[str] = []


class Vocabulary(Strict):
    """Words customers use, mapped to the catalog's values (synonyms, typos, Hinglish, Banglish)."""

    filters: dict[str, dict[str, list[str]]]
    employment: dict[Employment, list[str]]
    intents: dict[str, list[str]]
    features: dict[str, list[str]]


Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[Weekday, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # date.weekday() order


class Appointments(Strict):
    """Where and when customers can meet a specialist: branches, and opening hours per channel."""

    branches: list[str]
    hours: dict[Literal["branch", "call"], dict[Weekday, tuple[dt.time, dt.time]]]
    reminder_minutes_before: int = Field(default=60, ge=1)


class Catalog(BaseModel):
    """One business's whole data set, loaded once per app."""

    name: str
    currency_symbol: str
    timezone: str
    support_contact: str
    country_code: str = Field(pattern=r"^\+[1-9]\d{0,2}$")
    national_number_digits: int = Field(ge=4, le=13)
    appointments: Appointments
    products: list[Product]
    faq: list[FaqEntry]
    vocabulary: Vocabulary

    def product(self, product_id: str) -> Product | None:
        return self._by_id.get(product_id)

    def products_by_id(self, ids: list[str]) -> list[Product]:
        """The catalog's products for stored ids, in order; ids no longer in the data are skipped."""
        return [p for pid in ids if (p := self._by_id.get(pid))]

    @model_validator(mode="after")
    def _index(self) -> "Catalog":
        ids = [p.id for p in self.products]
        duplicates = {i for i in ids if ids.count(i) > 1}
        if duplicates:
            raise ValueError(f"duplicate product ids: {sorted(duplicates)}")
        self._by_id = {p.id: p for p in self.products}
        return self

    _by_id: dict[str, Product] = PrivateAttr(default_factory=dict)


class DataError(RuntimeError):
    """A data file is missing or does not match its model."""


def _read(path: Path, model):
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: {exc}") from exc
    try:
        return model(raw)
    except ValidationError as exc:
        raise DataError(f"{path}: {exc}") from exc


def load_catalog(folder: Path) -> Catalog:
    """Load and validate a business's data folder (products.json, faq.json, vocabulary.json)."""
    meta = _read(folder / "business.json", dict)
    products = _read(folder / "products.json", lambda raw: [Product.model_validate(p) for p in raw])
    faq = _read(folder / "faq.json", lambda raw: [FaqEntry.model_validate(e) for e in raw])
    vocabulary = _read(folder / "vocabulary.json", Vocabulary.model_validate)
    try:
        return Catalog(products=products, faq=faq, vocabulary=vocabulary, **meta)
    except ValidationError as exc:
        raise DataError(f"{folder}: {exc}") from exc
