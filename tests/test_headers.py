"""Every response, pages, API, console and errors alike, forbids framing and type sniffing and
carries the pages' content policy; a response with its own policy keeps it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from conftest import app_for
from playwright.sync_api import expect
from test_page_browser import opened, serving

from assistant.web.headers import POLICY

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

EXPECTED = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
ROUTES = [
    ("GET", "/", {}, 200),  # the chat page
    ("GET", "/console", {}, 200),  # the operator console
    ("GET", "/static/app.js", {}, 200),
    ("GET", "/health", {}, 200),
    ("POST", "/chat", {"json": {"query": "hi"}}, 200),
    ("GET", "/console/api/queue", {}, 401),  # no key
    ("POST", "/chat", {"data": "hi", "content_type": "text/plain"}, 415),
    ("POST", "/chat", {"json": {"query": "a" * 20_000}}, 413),
    ("GET", "/no/such/page", {}, 404),
    ("DELETE", "/health", {}, 405),
    ("GET", "/boom", {}, 500),
]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = app_for(tmp_path_factory.mktemp("headers"))

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("an error nobody expected")

    return app.test_client()


@pytest.mark.parametrize("method,path,body,status", ROUTES, ids=[f"{r[0]} {r[1]} {r[3]}" for r in ROUTES])
def test_every_response_carries_the_headers(client, method, path, body, status):
    response = client.open(path, method=method, **body)
    assert response.status_code == status
    assert {name: response.headers.get(name) for name in EXPECTED} == EXPECTED
    assert response.headers["Content-Security-Policy"] == POLICY


def test_the_policy_lets_no_one_frame_and_nothing_inline_run():
    directives = dict(part.strip().split(" ", 1) for part in POLICY.split(";"))
    assert directives["frame-ancestors"] == "'none'" and directives["default-src"] == "'self'"
    assert "unsafe-inline" not in POLICY and "unsafe-eval" not in POLICY and "script-src" not in directives


def test_a_response_with_its_own_policy_keeps_it(tmp_path):
    """A pack's drawing is served with a stricter policy of its own; the others still come with it."""
    response = app_for(tmp_path, "homologation").test_client().get("/pack-files/images/asiento.svg")
    assert response.status_code == 200 and response.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert {name: response.headers.get(name) for name in EXPECTED} == EXPECTED


def framing(target: str) -> WSGIApplication:
    """Another site's page that puts `target` in a frame."""

    def page(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/html")])
        return [f'<iframe src="{target}"></iframe>'.encode()]

    return page


def test_in_chromium_the_pages_run_under_the_policy_and_no_other_site_frames_them(browser, tmp_path):
    """The chat page and the console load and work with nothing refused by the policy; a page of
    another site that frames the chat page gets an empty frame."""
    with serving(app_for(tmp_path)) as url:
        context = browser.new_context()
        page = context.new_page()
        refused: list[str] = []
        page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None)
        opened(page, url)  # the chat page's script ran and drew its welcome
        page.goto(url + "/console")
        expect(page.locator("#login-form")).to_be_visible()
        assert refused == []
        with serving(framing(f"{url}/")) as elsewhere:  # another origin: another port
            page.goto(elsewhere, wait_until="load")
            framed = page.frames[1]
            assert framed.url != f"{url}/" and framed.locator("#composer").count() == 0
        context.close()
