"""The pack's filters as rules: whether an item passes, and the same test as a chromadb `where`."""

from __future__ import annotations

from chromadb.api.types import Metadata, Where
from chromadb.base_types import (
    ArrayContainsOperator,
    InclusionExclusionOperator,
    LiteralValue,
    LogicalOperator,
    WhereOperator,
)

from assistant.pack.model import Catalog, FilterValue, Product

Filters = dict[str, FilterValue]


def _as_list(value: FilterValue) -> list[LiteralValue]:
    return [*value] if isinstance(value, list) else [value]


class FilterRules:
    """The pack's filters, applied in Python and as chromadb `where` clauses alike."""

    def __init__(self, catalog: Catalog):
        self.fields = {
            name: (attribute, spec.as_filter.match) for name, (attribute, spec) in catalog.pack.filter_attributes().items()
        }
        self.lists = {attribute for attribute, spec in catalog.pack.attributes.items() if spec.type == "list"}
        self.attributes = catalog.pack.attributes

    def _meant(self, attribute: str, wanted: FilterValue) -> list[LiteralValue]:
        """The values a filter stands for, the narrower ones a value includes with it."""
        spec = self.attributes[attribute]
        meant = (v for value in _as_list(wanted) for v in (spec.meant(value) if isinstance(value, str) else [value]))
        return list(dict.fromkeys(meant))

    def matches(self, product: Product, filters: Filters) -> bool:
        for name, wanted in filters.items():
            attribute, match = self.fields[name]
            have = product.value(attribute)
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
            elif attribute in self.lists:
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
        for attribute, _ in self.fields.values():
            value = product.value(attribute)
            if value is not None and value != []:
                stored[attribute] = value
        return stored or {"id": product.id}
