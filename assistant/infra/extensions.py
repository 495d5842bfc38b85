"""Typed names for what components keep in `app.extensions`.

Each component's `init_app(app)` puts its object under its slot, and every reader gets it back
with its type: Flask's own dict holds `Any`, which would let a typo or a wrong type through.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from flask import Flask, current_app

T = TypeVar("T")


class Slot(Generic[T]):
    def __init__(self, name: str) -> None:
        self.name = name

    def put(self, app: Flask, value: T) -> T:
        app.extensions[self.name] = value
        return value

    def get(self, app: Flask | None = None) -> T:
        """From `app`, or from the app handling the current request."""
        value: T = _app(app).extensions[self.name]
        return value

    def find(self, app: Flask | None = None) -> T | None:
        """Like `get`, for a component the app may not have (one a pack's extension adds)."""
        value: T | None = _app(app).extensions.get(self.name)
        return value


def _app(app: Flask | None) -> Flask:
    return app if app is not None else current_app
