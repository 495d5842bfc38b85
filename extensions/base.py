"""The pack extension interface, and how a pack's extensions are loaded.

A pack names the extensions it loads in pack.yaml (`extensions: {homologation: {...}}`, each with
its settings); each is the package `extensions/<name>/`: `data.py` reads its data when the pack
loads (assistant/pack/extension.py), and `extension.py` names its subclass of `Extension`
`EXTENSION`. Every hook has a default that adds nothing, so an extension overrides only what its
business needs:

- `__init__`: its stores and routes (`POST /assistant` is the restaurants' concierge);
- `tools`: the tools it adds to the gateway (the pack's `tools:` allow-list still decides who calls them);
- `intent`, `agent`, `takes`, `waits`, `run`: an act of its own, the agent that performs it
  (returning a `Part`: its sections, question and what it keeps), and when a message is for it;
- `actions`: the flow actions it adds to the pack's flows (`submit`: a case for an office);
- `settle`: what it keeps after a turn its agent did not run;
- `details` and `reserver`: a reader of the messages' details, and the service a `reserve` flow books with;
- `pin_clock`: its "now", where it keeps one (a conversation test fixes it).

docs/extensions.md walks through writing one.
"""

from __future__ import annotations

import datetime as dt
import importlib
from collections.abc import Callable
from typing import Any, ClassVar

from flask import Flask

from assistant.booking.desk import BookingDesk, Reserver
from assistant.dialogue.extension import FlowAction, Part
from assistant.dialogue.state import Kept
from assistant.dialogue.work import TurnWork
from assistant.infra.extensions import Slot
from assistant.pack.model import Catalog, DataError
from assistant.tools.retrieval import CATALOG
from assistant.understanding.reader import Details


class Extension:
    """A business's own machinery, for the packs that name it; one instance per app."""

    name: ClassVar[str]
    intent: ClassVar[str | None] = None  # the act its agent performs, as clients see it ("quote")
    agent: ClassVar[str | None] = None  # its agent's name: the pack's `tools:` allow-list uses it

    def __init__(self, catalog: Catalog, app: Flask) -> None:
        self.catalog = catalog
        self.app = app

    def tools(self) -> dict[str, Callable[..., Any]]:
        return {}

    def takes(self, text: str, kept: Kept | None) -> bool:
        """Whether a message is for its agent (`kept`: what it keeps in the session)."""
        return False

    def waits(self, kept: Kept | None) -> bool:
        """Whether a question of its own waits for the customer's answer."""
        return False

    def run(self, work: TurnWork) -> Part:
        """Its agent's work on a message it takes: returned, never written into the session."""
        raise NotImplementedError(f"the {self.name} extension has no agent")

    def actions(self, desk: BookingDesk, app: Flask) -> dict[str, FlowAction]:
        return {}

    def settle(self, kept: Kept | None, work: TurnWork) -> Kept | None:
        """What it keeps after a turn its agent did not run (a flow may have used it up)."""
        return kept

    def pin_clock(self, clock: Callable[[], dt.datetime]) -> None:
        """Its 'now' from `clock` (a conversation test's fixed time), where it keeps one of its own."""

    def details(self) -> Details | None:
        return None

    def reserver(self) -> Reserver | None:
        return None


def load(catalog: Catalog, app: Flask) -> list[Extension]:
    """The extensions the pack names, each set up over the app (its stores and routes); a name
    with no such extension stops the start, naming it."""
    loaded = []
    for name in catalog.pack.extensions:
        try:
            module = importlib.import_module(f"extensions.{name}.extension")
        except ModuleNotFoundError as error:
            raise DataError(f"pack.yaml extensions: no extension '{name}' (extensions/{name}/)") from error
        kind: type[Extension] = module.EXTENSION
        loaded.append(kind(catalog, app))
    return loaded


EXTENSIONS: Slot[list[Extension]] = Slot("pack_extensions")


def init_app(app: Flask) -> None:
    """The pack's extensions, set up before the chat pipeline, which asks them about every message."""
    EXTENSIONS.put(app, load(CATALOG.get(app), app))
