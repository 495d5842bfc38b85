"""The web app: `create_app(config)` wires data, index, session store and pipeline together.

Run `python app.py` for the offline assistant on http://127.0.0.1:5000 (no LLM, no key).
"""

from __future__ import annotations

import json
from pathlib import Path

from flask import Flask
from flask_cors import CORS
from threadpoolctl import threadpool_limits
from werkzeug.middleware.proxy_fix import ProxyFix

from assistant.booking.codes import BookingStore
from assistant.booking.desk import BookingDesk
from assistant.booking.notifications import build_notifier
from assistant.booking.periodic import Periodic
from assistant.booking.reminders import ReminderScheduler, ReminderStore
from assistant.concierge.planner import Concierge, ServiceReader, load_members
from assistant.concierge.services import RestaurantServices
from assistant.dialogue.preferences import PreferenceStore
from assistant.dialogue.sessions import open_store
from assistant.infra.config import Settings  # sets the crewai telemetry switches first
from assistant.pack.model import load_catalog
from assistant.tools.embeddings import default_embedder
from assistant.tools.retrieval import CatalogIndex
from assistant.web import api, errors, logs, telemetry
from assistant.web import concierge as concierge_api
from assistant.web.ratelimit import RateLimiter
from crew_pipeline import CrewPipeline


def create_app(config: dict | None = None) -> Flask:
    overrides = {key.lower(): value for key, value in (config or {}).items()}
    unknown = set(overrides) - set(Settings.model_fields)
    if unknown:
        raise ValueError(f"unknown settings: {', '.join(sorted(unknown))}")
    settings = Settings(**overrides)
    logs.configure(settings.log_level)
    app = Flask(__name__, static_folder="static", static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    if settings.proxy_count:  # behind a load balancer the client's address is in X-Forwarded-For
        # Flask's documented way to wrap its WSGI app, which its types see as replacing a method
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_count, x_proto=settings.proxy_count)  # type: ignore[method-assign]
    CORS(app, origins=settings.cors_origins)

    # A turn's matrix work is small: BLAS threads would only wait for cores that other requests
    # (or the embedding model) already use. One thread per request, as for the model.
    threadpool_limits(1, user_api="blas")
    catalog = load_catalog(settings.pack_dir)
    index = CatalogIndex(catalog, default_embedder())
    session_db = settings.session_db or Path(app.instance_path) / "sessions.sqlite3"
    store = open_store(settings.session_store, session_db, settings.session_ttl_s)
    bookings_db = settings.bookings_db or session_db.parent / "bookings.sqlite3"  # beside the sessions
    notifier = build_notifier(settings.notify_outbox, settings.notify_webhook_url)
    reminders = ReminderStore(bookings_db)
    desk = BookingDesk(catalog, BookingStore(bookings_db), reminders, notifier)
    preferences = PreferenceStore(session_db)  # its own table, outliving any session
    reader = _service_reader(catalog, settings)
    app.extensions["rate_limiter"] = RateLimiter(store, settings.client_rate_per_min, settings.session_rate_per_min)
    app.extensions["pipeline"] = CrewPipeline(
        catalog, index, store, settings, desk, preferences, _crew_mode(settings, catalog), reader
    )
    if settings.reminder_poll_s:  # background chores; 0 turns them off (tests drive them directly)
        app.extensions["reminders"] = ReminderScheduler(reminders, notifier, settings.reminder_poll_s)
        app.extensions["session_purge"] = Periodic("session-purge", 3600, store.purge_expired)
        for chore in ("reminders", "session_purge"):
            app.extensions[chore].start()

    if reader:  # the restaurant concierge's POST /assistant
        app.extensions["concierge"] = _concierge(catalog, settings, bookings_db, notifier, reminders, store, reader)
    app.register_blueprint(api.bp)
    app.register_blueprint(concierge_api.bp)
    errors.register(app)
    telemetry.register(app)

    @app.get("/")
    def chat_page():
        return app.send_static_file("index.html")

    return app


def _service_reader(catalog, settings: Settings) -> ServiceReader | None:
    """The pack's reader of its service schema, shared by the chat and the concierge; None without one."""
    setup = catalog.pack.concierge
    if setup is None:
        return None
    return ServiceReader(catalog, json.loads((settings.pack_dir / setup.service_schema).read_text(encoding="utf-8")))


def _concierge(catalog, settings: Settings, bookings_db: Path, notifier, reminders, store,
               reader: ServiceReader) -> Concierge:
    """The concierge and its services, on the pack's calendar and members and the app's stores."""
    setup = catalog.pack.concierge
    calendar = json.loads((settings.pack_dir / setup.calendar).read_text(encoding="utf-8"))
    services = RestaurantServices(catalog, calendar, bookings_db, notifier, reminders)
    return Concierge(catalog, services, bookings_db, store, load_members(settings.pack_dir / setup.members), reader)


def _crew_mode(settings: Settings, catalog):
    """LLM mode when a model is configured; importing crewai costs seconds, so only then."""
    if not settings.llm_model:
        return None
    from assistant.llm.crew_mode import CrewMode

    return CrewMode(settings, catalog)


if __name__ == "__main__":
    settings = Settings()
    create_app().run(host=settings.host, port=settings.port, threaded=True)
