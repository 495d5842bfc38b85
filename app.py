"""The web app: `create_app(config)` has each component register itself, as Flask's extensions do.

Run `python app.py` for the offline assistant on http://127.0.0.1:5000 (no LLM, no key).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response

import crew_pipeline
from agents import registry
from assistant.attachments import store as attachments
from assistant.booking import notifications, reminders
from assistant.dialogue import sessions
from assistant.handover import store as handovers
from assistant.infra import (
    config,  # sets the crewai telemetry switches first
    database,
)
from assistant.tools import retrieval
from assistant.web import (
    api,
    console,
    edge,
    errors,
    files,
    headers,
    identity,
    logs,
    pack_files,
    ratelimit,
    telemetry,
)
from extensions import base as extensions


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """The assistant with `overrides` over the environment's settings. Each component reads what
    it needs from the app, so one registers after those it uses."""
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    config.init_app(app, overrides)
    logs.init_app(app)
    edge.init_app(app)
    headers.init_app(app)
    errors.init_app(app)
    identity.init_app(app)
    telemetry.init_app(app)
    sessions.init_app(app)
    database.init_app(app)  # before every store of durable records
    ratelimit.init_app(app)
    retrieval.init_app(app, registry.default_tools())  # the agents' own tools, where the pack names none
    notifications.init_app(app)
    reminders.init_app(app)
    attachments.init_app(app)
    handovers.init_app(app)
    extensions.init_app(app)  # before the pipeline, which asks them about every message
    crew_pipeline.init_app(app)
    api.init_app(app)
    files.init_app(app)
    console.init_app(app)
    pack_files.init_app(app)

    @app.get("/")
    def chat_page() -> Response:
        return app.send_static_file("index.html")

    return app


if __name__ == "__main__":
    settings = config.Settings()
    create_app().run(host=settings.host, port=settings.port, threaded=True)
