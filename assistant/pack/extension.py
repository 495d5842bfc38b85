"""What a pack extension adds to the pack's data (extensions/base.py is what it adds to a turn).

pack.yaml names its extensions, each with its own settings (`extensions: {homologation:
{elements: elements.yaml, ...}}`). Loading the pack finds each one's data reader by name,
`DATA` in `extensions/<name>/data.py` (a plugin found by name, as Flask finds extensions: the
pack never imports a business). It reads its settings and the files they name, checks them
against the pack and its items, and returns them as one model, which the catalog keeps and
translates like the pack's own words (each model's `shown` fields).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

import yaml
from pydantic import BaseModel

from assistant.pack.model import DataError, Pack, Product
from assistant.pack.translations import read_table


class ExtensionData(Protocol):
    folder: Path  # its package: its default texts (texts.yaml) and their translations (translations/<code>.yaml)
    stages: tuple[str, ...]  # the prompt phases of the steps it builds (pack.yaml prompting.phases may name them)
    tools: Mapping[str, tuple[str, ...]]  # its agents' own tools, their allow-list where pack.yaml gives none

    def load(self, folder: Path, settings: dict[str, Any], pack: Pack, products: list[Product]) -> BaseModel:
        """Its settings and the files they name, checked against the pack (DataError says which file and what)."""
        ...

    def said_back(self, data: BaseModel, translations: list[BaseModel]) -> BaseModel:
        """Its words extended by their translations, wherever a customer may say them back (a quick reply tapped)."""
        ...


def texts_of(readers: Iterable[ExtensionData]) -> dict[str, str]:
    """The default texts of these extensions (a pack's texts: may word them its own way)."""
    texts: dict[str, str] = {}
    for reader in readers:
        path = reader.folder / "texts.yaml"
        if path.is_file():
            texts |= yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return texts


def translations_of(readers: Iterable[ExtensionData], code: str) -> dict[str, str]:
    """Their default texts in language `code`, by the English source, as the engine's own are."""
    return {
        text: said for reader in readers for text, said in read_table(reader.folder / "translations" / f"{code}.yaml").texts.items()
    }


def data_reader(name: str) -> ExtensionData:
    """The data reader of the extension `name`."""
    try:
        module = importlib.import_module(f"extensions.{name}.data")
    except ModuleNotFoundError as error:
        raise DataError(f"pack.yaml extensions: no extension '{name}' (extensions/{name}/data.py)") from error
    reader: ExtensionData = module.DATA
    return reader
