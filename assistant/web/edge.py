"""What a request passes before any view: a size cap (room for files where a body may carry
them), the trusted proxies in front, and CORS."""

from __future__ import annotations

import io
import ipaddress
import tempfile
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING

from flask import Flask, request
from flask_cors import CORS
from werkzeug.middleware.proxy_fix import ProxyFix

from assistant.infra.config import SETTINGS, Settings

if TYPE_CHECKING:  # the WSGI types exist for type checkers only
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

SPOOL_BYTES = 1024 * 1024  # of a chunked body kept in memory; the rest goes to a temporary file
PIECE_BYTES = 64 * 1024  # read from the client at a time
UPLOADS = {"/attachments": 1, "/chat": None, "/chat/stream": None}  # paths a multipart body may bring files to, and how many


def body_limit(environ: WSGIEnvironment, settings: Settings) -> int:
    """MAX_REQUEST_BYTES, or for a multipart body on an upload path that much more than its files
    may weigh: ATTACHMENT_MAX_BYTES each, one on /attachments, ATTACHMENTS_PER_MESSAGE on a chat message."""
    path = environ.get("PATH_INFO", "")
    if path not in UPLOADS or not environ.get("CONTENT_TYPE", "").lower().startswith("multipart/form-data"):
        return settings.max_request_bytes
    files = UPLOADS[path] or settings.attachments_per_message
    return settings.max_request_bytes + files * settings.attachment_max_bytes


class SizedBody:
    """A chunked body carries no Content-Length for MAX_CONTENT_LENGTH to check, and werkzeug cuts
    it silently at the limit (a 400 for broken JSON instead of a 413). So it is read here, piece by
    piece into a file (memory for the first SPOOL_BYTES) with a running count, up to one byte past
    the limit, and handed on as a body of known length, which Flask checks: one past the limit is
    refused with nothing more read, and an upload never sits whole in memory."""

    def __init__(self, app: WSGIApplication, limit: Callable[[WSGIEnvironment], int]):
        self.app, self.limit = app, limit

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            most, size = self.limit(environ) + 1, 0
            body: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
            while size < most and (piece := environ["wsgi.input"].read(min(PIECE_BYTES, most - size))):
                body.write(piece)
                size += len(piece)
            if size == most:  # too long: Flask refuses it by its length, and reads none of it
                body.close()
                body = io.BytesIO()
            body.seek(0)
            environ.pop("HTTP_TRANSFER_ENCODING")
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = body, str(size)
        return self.app(environ, start_response)


class TrustedProxies:
    """X-Forwarded-For is believed only from a peer named in FORWARDED_ALLOW_IPS: a client that
    reaches the app past the proxy would otherwise choose its own address. A peer with no IP
    address (a Unix socket) is local, as gunicorn takes it too."""

    def __init__(self, app: WSGIApplication, settings: Settings):
        self.app = app
        self.forwarded = ProxyFix(app, x_for=settings.proxy_count, x_proto=settings.proxy_count)
        named = (settings.forwarded_allow_ips or "").split(",")
        self.proxies = [ipaddress.ip_network(entry.strip(), strict=False) for entry in named if entry.strip()]

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        try:
            peer = ipaddress.ip_address(environ.get("REMOTE_ADDR", ""))
        except ValueError:
            return self.forwarded(environ, start_response)
        trusted = any(peer in network for network in self.proxies)
        return (self.forwarded if trusted else self.app)(environ, start_response)


def init_app(app: Flask) -> None:
    settings = SETTINGS.get(app)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    # "/customers//preferences" is a 404 like any unknown path, not an HTML redirect elsewhere
    app.url_map.merge_slashes = False
    # Flask's documented way to wrap its WSGI app, which its types see as replacing a method
    app.wsgi_app = SizedBody(app.wsgi_app, lambda environ: body_limit(environ, settings))  # type: ignore[method-assign]

    @app.before_request
    def room_for_files() -> None:
        request.max_content_length = body_limit(request.environ, settings)

    if settings.proxy_count:  # behind a load balancer the client's address is in X-Forwarded-For
        app.wsgi_app = TrustedProxies(app.wsgi_app, settings)  # type: ignore[method-assign]
    CORS(app, origins=settings.cors_origins)
