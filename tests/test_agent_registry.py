"""The agent registry (agents/registry.py): its order, and the allow-lists it drives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from agents.registry import AGENTS, BY_NAME, default_tools
from app import create_app
from assistant.pack.loading import load_catalog
from assistant.pack.model import DataError


def test_the_formatter_is_last_and_every_name_once():
    assert AGENTS[-1].name == "formatter"
    assert len(BY_NAME) == len(AGENTS)


def test_a_pack_without_tools_gets_each_agents_own(tmp_path):
    """pack.yaml's tools: left out, each agent may call what its own work needs (and an
    extension's agent its own): the registry drives the allow-lists."""
    folder = tmp_path / "homologation"
    shutil.copytree(Path("data/homologation"), folder)
    pack = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
    del pack["tools"], pack["constraints"]  # the desk's constraints want the case agent to price
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    catalog = load_catalog(folder, translated=False, tools=default_tools())
    assert catalog.pack.tools == {**default_tools(), "quote": ["identify", "select_variant", "tariff"]}
    with pytest.raises(DataError, match="tools"):
        load_catalog(folder, translated=False)  # nothing to fill them in from


def test_a_pack_naming_an_agent_or_tool_nobody_has_does_not_start(tmp_path):
    for typo, said in (({"retreiver": ["search_products"]}, "no agent"), ({"support": ["search_faqs"]}, "no tool")):
        folder = tmp_path / next(iter(typo))
        shutil.copytree(Path("data/bank"), folder)
        pack = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
        pack["tools"].update(typo)
        (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
        with pytest.raises(DataError, match=said):
            create_app({"data_dir": str(folder), "session_db": str(tmp_path / "s.db"), "bookings_db": str(tmp_path / "b.db")})
