"""The agent registry (agents/registry.py) against what still names agents elsewhere."""

from __future__ import annotations

from typing import get_args

from agents.registry import AGENTS, BY_NAME, default_tools
from assistant.pack.model import DEFAULT_TOOLS, AgentName


def test_the_formatter_is_last_and_every_name_once():
    assert AGENTS[-1].name == "formatter"
    assert len(BY_NAME) == len(AGENTS)


def test_the_packs_defaults_are_the_agents_own():
    """pack/model.py keeps a copy of each agent's default tools until the pack is checked for an
    app against the registry (the pack's schema is below the agents)."""
    assert set(BY_NAME) <= set(get_args(AgentName))
    assert {name: tools for name, tools in DEFAULT_TOOLS.items() if name in BY_NAME} == default_tools()
