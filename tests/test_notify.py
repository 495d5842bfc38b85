"""Message senders: the log never shows a code or a whole number; outbox and webhook deliver them."""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assistant.booking.notifications import ConsoleNotifier, NotifyError, OutboxNotifier, WebhookNotifier, build_notifier
from assistant.language.privacy import mask


def test_the_log_sender_masks_codes_and_phone_numbers(caplog):
    caplog.set_level(logging.INFO, logger="assistant.notify")
    ConsoleNotifier().send("+8801712345678", "Your code is 482913. Call 01712345678 if lost.", "otp")
    logged = caplog.text
    assert "482913" not in logged and "1712345678" not in logged and "+8801712345678" not in logged
    assert "otp" in logged and "****13" in logged and "+880*******678" in logged


def test_mask_keeps_short_numbers_and_hides_long_ones():
    assert mask("fee ৳500 code 123456") == "fee ৳500 code ****56"


def test_the_outbox_keeps_every_line_under_concurrent_senders(tmp_path):
    outbox = OutboxNotifier(tmp_path / "deep" / "outbox.jsonl")

    def burst(worker: int) -> None:
        for n in range(50):
            outbox.send(f"+88017000000{worker:02d}", f"code {worker:02d}{n:04d}", "otp")

    threads = [threading.Thread(target=burst, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = [json.loads(line) for line in (tmp_path / "deep" / "outbox.jsonl").read_text().splitlines()]
    assert len(lines) == 400 and {m["kind"] for m in lines} == {"otp"}
    assert all(dt.datetime.fromisoformat(m["at"]).utcoffset() == dt.timedelta(0) for m in lines)
    assert {m["to"] for m in lines} == {f"+88017000000{w:02d}" for w in range(8)}
    assert {m["text"] for m in lines} == {f"code {w:02d}{n:04d}" for w in range(8) for n in range(50)}


class Hook(BaseHTTPRequestHandler):
    """A stand-in Slack webhook: records each JSON body and answers `status`."""

    status = 200
    bodies: list[dict] = []
    content_types: list[str] = []

    def do_POST(self):  # noqa: N802
        Hook.content_types.append(self.headers["Content-Type"])
        Hook.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(Hook.status)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def hook():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Hook.bodies, Hook.content_types, Hook.status = [], [], 200
    yield f"http://127.0.0.1:{server.server_port}/hook"
    server.shutdown()
    server.server_close()


def test_the_webhook_posts_slack_style_json(hook):
    WebhookNotifier(hook).send("+8801712345678", "Your code is 482913", "otp")
    assert Hook.bodies == [{"text": "[otp] to +8801712345678: Your code is 482913"}]
    assert Hook.content_types == ["application/json"]


def test_a_failing_webhook_raises(hook):
    Hook.status = 500
    with pytest.raises(NotifyError):
        WebhookNotifier(hook).send("+8801712345678", "hello", "confirmation")
    with pytest.raises(NotifyError):
        WebhookNotifier("http://127.0.0.1:9/closed", timeout_s=1).send("+8801712345678", "hello", "reminder")


def test_build_notifier_picks_the_channel(tmp_path):
    assert isinstance(build_notifier(None, None), ConsoleNotifier)
    assert isinstance(build_notifier(tmp_path / "o.jsonl", None), OutboxNotifier)
    assert isinstance(build_notifier(tmp_path / "o.jsonl", "http://127.0.0.1:9/"), WebhookNotifier)
