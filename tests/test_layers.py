"""Imports point down the layers: a package may import its own level and those below, never above.

Read statically with `ast`, so every import counts: inside functions, and under `if TYPE_CHECKING:`
too (a type-only import still ties the lower layer to the higher one). None is left: the
review that asked for this test found 28.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Bottom to top; packages on one level may import each other.
LAYERS: list[tuple[str, ...]] = [
    ("infra",),  # settings, stores, counters: knows nothing of customers or packs
    ("language",),  # words, numbers, dates, phones, privacy: any pack's text
    ("pack",),  # the business's data and texts
    ("tools", "attachments"),  # what agents call over the pack; files a message brings
    ("understanding",),  # one message read on its own
    ("dialogue", "booking", "handover"),  # the conversation and the desks it commits to
    ("agents", "tasks"),  # each agent's offline work over one turn; the tasks a model is given
    ("llm",),  # LLM mode around the agents
    ("extensions.base",),  # what the engine asks of a pack's extensions: their interface, not a business
    ("crew_pipeline",),  # one chat turn end to end
    ("web",),  # HTTP
    ("extensions",),  # a business's own machinery (a quotation, a concierge, their routes), over the whole engine
    ("app",),  # the Flask app assembled
    ("conversations", "__main__"),  # scripted conversations and the command line run the app
]
LEVEL = {unit: level for level, units in enumerate(LAYERS) for unit in units}


def _modules() -> Iterator[tuple[str, Path]]:
    tops = [*ROOT.glob("agents/*.py"), *ROOT.glob("tasks/*.py"), *ROOT.glob("extensions/**/*.py")]
    for path in sorted([*ROOT.glob("assistant/**/*.py"), *tops, ROOT / "crew_pipeline.py", ROOT / "app.py"]):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), path


def _unit(module: str) -> str | None:
    """The layer unit a module belongs to: its package under assistant/, the extensions' interface,
    or the top-level name."""
    parts = module.split(".")
    if parts[0] == "assistant":
        return parts[1] if len(parts) > 1 else None
    if parts[:2] == ["extensions", "base"]:
        return "extensions.base"
    return parts[0] if parts[0] in LEVEL else None


def _imported(module: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every module `module` imports; `from package import module` names the module."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                yield f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source


def upward() -> set[str]:
    """Every import of a higher layer, as "importer -> imported"."""
    found = set()
    known = {module for module, _ in _modules()}
    for module, path in _modules():
        here = _unit(module)
        assert here in LEVEL, f"{module} is on no layer: add its package to LAYERS"
        for target in _imported(module, path, known):
            there = _unit(target)
            if there is not None and LEVEL.get(there, -1) > LEVEL[here]:
                found.add(f"{module} -> {target}")
    return found


def test_every_package_is_on_a_layer():
    units = {_unit(module) for module, _ in _modules()}
    assert units == set(LEVEL), f"on no layer: {units - set(LEVEL)}; gone: {set(LEVEL) - units}"


def test_imports_point_down_the_layers():
    assert sorted(upward()) == [], "imports of a higher layer"


def test_an_import_from_above_is_found_wherever_it_hides(tmp_path):
    """The reader sees a function's import and a TYPE_CHECKING one, relative or not."""
    path = tmp_path / "model.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from assistant.dialogue.state import SessionState\n"
        "def later():\n    from ..web import api\n",
        encoding="utf-8",
    )
    known = {"assistant.web.api"}
    found = set(_imported("assistant.pack.model", path, known))
    assert {"assistant.dialogue.state", "assistant.web.api"} <= found
    assert all(LEVEL[_unit(target) or ""] > LEVEL["pack"] for target in found - {"typing"})
