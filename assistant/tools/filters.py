"""The pack's filters as rules: whether an item passes, and the same test as a chromadb `where`."""

from __future__ import annotations

from typing import Any

from chromadb.api.types import Metadata, Where
from chromadb.base_types import (
    ArrayContainsOperator,
    InclusionExclusionOperator,
    LiteralValue,
    LogicalOperator,
    WhereOperator,
)

from assistant.language import phrases
from assistant.pack.model import Catalog, FilterValue, Product

Filters = dict[str, FilterValue]


def _as_list(value: FilterValue) -> list[LiteralValue]:
    return [*value] if isinstance(value, list) else [value]


class FilterRules:
    """The pack's filters, applied in Python and as chromadb `where` clauses alike."""

    def __init__(self, catalog: Catalog):
        filters = catalog.pack.filters
        self.fields = {name: (f.attribute, f.filter.match) for name, f in filters.items()}
        self.lists = {attribute for attribute, spec in catalog.pack.attributes.items() if spec.type == "list"}
        self.attributes = catalog.pack.attributes
        # A free-text attribute filtered by what it mentions ("Contactless tap-and-pay" mentions
        # contactless): each item's values, found once with the vocabulary's words for each.
        said = {
            f.attribute: {value: phrases([value, *words]) for value, words in catalog.vocabulary.filters.get(name, {}).items()}
            for name, f in filters.items()
            if f.filter.match == "mentions"
        }
        self.mentioned = {
            (product.id, attribute): [value for value, pattern in values.items() if pattern.search(_text(product.value(attribute)))]
            for attribute, values in said.items()
            for product in catalog.products
        }

    def _meant(self, attribute: str, wanted: FilterValue) -> list[LiteralValue]:
        """The values a filter stands for, the narrower ones a value includes with it."""
        spec = self.attributes[attribute]
        if spec.type == "boolean":
            return [value == "true" for value in _as_list(wanted)]
        meant = (v for value in _as_list(wanted) for v in (spec.meant(value) if isinstance(value, str) else [value]))
        return list(dict.fromkeys(meant))

    def _value(self, product: Product, attribute: str, match: str) -> Any:
        """What the item holds for a filter: its value, or the values its text mentions."""
        return self.mentioned[product.id, attribute] if match == "mentions" else product.value(attribute)

    def matches(self, product: Product, filters: Filters) -> bool:
        for name, wanted in filters.items():
            attribute, match = self.fields[name]
            have = self._value(product, attribute, match)
            if have is None:
                return False
            if match == "max":
                ok = have <= wanted
            elif match == "min":
                ok = have >= wanted
            elif isinstance(have, list):
                ok = any(v in have for v in self._meant(attribute, wanted))
            else:
                ok = have in self._meant(attribute, wanted)
            if not ok:
                return False
        return True

    def where(self, filters: Filters) -> Where | None:
        clauses: list[Where] = []
        for name, wanted in filters.items():
            attribute, match = self.fields[name]
            values = self._meant(attribute, wanted)
            if match in ("max", "min"):
                assert not isinstance(wanted, list), "a max or min filter holds one amount"
                bound: dict[WhereOperator | LogicalOperator, LiteralValue] = {"$lte" if match == "max" else "$gte": wanted}
                clauses.append({attribute: bound})
            elif attribute in self.lists or match == "mentions":
                options: list[Where] = []
                for value in values:
                    contains: dict[ArrayContainsOperator, LiteralValue] = {"$contains": value}
                    options.append({attribute: contains})
                clauses.append(options[0] if len(options) == 1 else {"$or": options})
            elif len(values) == 1:
                clauses.append({attribute: values[0]})
            else:
                among: dict[InclusionExclusionOperator, list[LiteralValue]] = {"$in": values}
                clauses.append({attribute: among})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def metadata(self, product: Product) -> Metadata:
        """What chromadb stores to filter on (it takes no None, and no empty list)."""
        stored: dict[str, LiteralValue | list[LiteralValue]] = {}
        for attribute, match in self.fields.values():
            value = self._value(product, attribute, match)
            if value is not None and value != []:
                stored[attribute] = value
        return stored or {"id": product.id}


def _text(value: object) -> str:
    """An attribute's words, a list's one per line."""
    return "\n".join(map(str, value)) if isinstance(value, list) else "" if value is None else str(value)
