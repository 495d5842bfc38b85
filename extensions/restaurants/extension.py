"""The restaurant concierge as a pack extension: `POST /assistant` and the concierge behind it,
the reader of its service schema (which reads chat messages' details too) and its tables (which
the chat's `reserve` flows book with)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from flask import Flask

from assistant.booking.desk import Reserver
from assistant.pack.model import Catalog
from assistant.understanding.reader import Details
from extensions.base import Extension
from extensions.restaurants import routes


class Restaurants(Extension):
    name = "restaurants"

    def __init__(self, catalog: Catalog, app: Flask) -> None:
        super().__init__(catalog, app)
        routes.init_app(app)

    def pin_clock(self, clock: Callable[[], dt.datetime]) -> None:
        routes.CONCIERGE.get(self.app).clock = clock

    def details(self) -> Details | None:
        return routes.SERVICE_READER.find(self.app)

    def reserver(self) -> Reserver | None:
        return routes.TABLES.find(self.app)


EXTENSION = Restaurants
