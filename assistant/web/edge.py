"""What a request passes before any view: a size cap, the trusted proxies in front, and CORS."""

from __future__ import annotations

from flask import Flask
from flask_cors import CORS
from werkzeug.middleware.proxy_fix import ProxyFix

from assistant.infra.config import SETTINGS


def init_app(app: Flask) -> None:
    settings = SETTINGS.get(app)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    if settings.proxy_count:  # behind a load balancer the client's address is in X-Forwarded-For
        # Flask's documented way to wrap its WSGI app, which its types see as replacing a method
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_count, x_proto=settings.proxy_count)  # type: ignore[method-assign]
    CORS(app, origins=settings.cors_origins)
