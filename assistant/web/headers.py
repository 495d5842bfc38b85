"""What every response tells the browser, pages, API and errors alike: no other site may frame
it (a page under a transparent frame has its clicks stolen), no type is guessed past the one
sent, and a page runs script and style from this origin's own files only, never inline, so
markup slipped into an answer cannot run. A response that states its own policy (a pack's
drawing, an attachment) keeps it."""

from __future__ import annotations

from flask import Flask, Response

POLICY = "; ".join(
    [
        "default-src 'self'",
        "img-src 'self' blob:",  # the chat page's thumbnails of files about to be sent
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    "X-Content-Type-Options": "nosniff",
    # Not "no-referrer": with it a browser sends `Origin: null` on the pages' own POSTs, which
    # the upload check refuses as another site's.
    "Referrer-Policy": "same-origin",
}


def init_app(app: Flask) -> None:
    @app.after_request
    def secured(response: Response) -> Response:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response
