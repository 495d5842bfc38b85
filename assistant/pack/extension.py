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
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from assistant.pack.model import DataError, Pack, Product


class ExtensionData(Protocol):
    stages: tuple[str, ...]  # the prompt phases of the steps it builds (pack.yaml prompting.phases may name them)
    tools: Mapping[str, tuple[str, ...]]  # its agents' own tools, their allow-list where pack.yaml gives none

    def load(self, folder: Path, settings: dict[str, Any], pack: Pack, products: list[Product]) -> BaseModel:
        """Its settings and the files they name, checked against the pack (DataError says which file and what)."""
        ...

    def said_back(self, data: BaseModel, translations: list[BaseModel]) -> BaseModel:
        """Its words extended by their translations, wherever a customer may say them back (a quick reply tapped)."""
        ...


def data_reader(name: str) -> ExtensionData:
    """The data reader of the extension `name`."""
    try:
        module = importlib.import_module(f"extensions.{name}.data")
    except ModuleNotFoundError as error:
        raise DataError(f"pack.yaml extensions: no extension '{name}' (extensions/{name}/data.py)") from error
    reader: ExtensionData = module.DATA
    return reader
