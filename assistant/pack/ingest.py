"""Reading a pack's files: JSON and YAML as they are, a shop's CSV export through its column
mapping; a file that cannot be read or does not fit its schema is a DataError naming it."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

from assistant.pack.model import Attribute, DataError, Source

T = TypeVar("T")


def read(path: Path) -> Any:
    """A YAML (.yaml, .yml) or JSON file's data."""
    try:
        text = path.read_text(encoding="utf-8")
        return yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else json.loads(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise DataError(f"{path}: {exc}") from exc


def validated(path: Path, model: Callable[[Any], T], raw: Any) -> T:
    """`model(raw)`, its refusal (a schema's or a check's ValueError) a DataError naming the file."""
    try:
        return model(raw)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError too
        raise DataError(f"{path}: {exc}") from exc


def rows_from_csv(path: Path, source: Source, attributes: dict[str, Attribute]) -> list[dict[str, Any]]:
    """A shop's spreadsheet export, mapped column by column onto the pack's attributes."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            absent = set(source.columns) - set(reader.fieldnames or [])
            if absent:
                raise DataError(f"{path}: columns {sorted(absent)} named in pack.yaml catalog.columns are missing")
            rows = []
            for line, record in enumerate(reader, start=2):
                row: dict[str, Any] = {}
                for column, attribute in source.columns.items():
                    raw = (record[column] or "").strip()
                    row[attribute] = _cell(
                        raw, attributes.get(attribute), source.list_separator, f"{path}:{line} column '{column}'"
                    )
                row["id"] = str(row.get("id", "")).lower()
                rows.append(row)
            return rows
    except OSError as exc:
        raise DataError(f"{path}: {exc}") from exc


def _cell(raw: str, attribute: Attribute | None, separator: str, where: str) -> Any:
    """One spreadsheet cell as the attribute's type; enum values as the pack writes them."""
    if attribute is None:  # not a declared attribute (id, name, description): kept as text
        return raw or None
    kind = attribute.type

    def as_value(text: str) -> str:  # "Gaming Mouse" -> gaming_mouse
        return text.lower().replace(" ", "_")

    if raw == "":
        return [] if kind == "list" else None
    if kind == "number":
        try:
            number = float(raw.replace(",", ""))
        except ValueError:
            raise DataError(f"{where}: '{raw}' is not a number") from None
        return int(number) if number.is_integer() else number
    if kind == "list":
        parts = [part.strip() for part in raw.split(separator) if part.strip()]
        return [as_value(p) for p in parts] if attribute.values else parts
    if kind == "enum":
        return as_value(raw)
    if kind == "boolean":
        return raw.lower() in ("1", "yes", "true", "y")
    return raw
