"""GET /pack-files/images/<name>.svg: the pack's example drawings, which replies send (a quote's documentation, a case's).

Only SVG files directly in the pack's images/ folder are served; any other path is not found,
so nothing else of the pack (or beyond it) can be read through this route.
"""

from __future__ import annotations

import re

from flask import Blueprint, Flask, Response, abort, current_app, send_from_directory

from assistant.dialogue.turns import PACK_FILES
from assistant.infra.config import SETTINGS
from assistant.pack.model import Catalog
from assistant.web.openapi import BINARY, Fragment, describe, errors

bp = Blueprint("pack_files", __name__)
SERVED = re.compile(r"[\w-][\w.-]{0,99}\.svg")  # a plain file name: no folders, no "..", no hidden files


@bp.get(f"{PACK_FILES}/images/<name>")
def image(name: str) -> Response:
    if not SERVED.fullmatch(name) or ".." in name:
        abort(404)
    folder = SETTINGS.get(current_app).pack_dir / "images"
    response = send_from_directory(folder, name, mimetype="image/svg+xml", max_age=3600)
    response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"  # an SVG runs no script
    return response


def _contract(catalog: Catalog) -> Fragment:
    """GET /pack-files/images/<name>'s part of /openapi.json."""
    return Fragment(
        {
            "/pack-files/images/{name}": {
                "get": {
                    "summary": "An example drawing of the pack's (an SVG a quote's reply links to)",
                    "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "responses": {
                        "200": {"description": "The drawing", "content": {"image/svg+xml": {"schema": BINARY}}},
                        **errors(404),
                    },
                }
            }
        }
    )


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    describe(app, _contract)
