"""How messages reach a customer's phone: one-time codes, confirmations, reminders.

The log sender is the default and masks every code and number; the outbox sender writes
JSON lines that tests and demos read codes from; the webhook sender posts to an HTTP hook
(a Slack incoming webhook accepts exactly its body). Whichever it is, every message passes the
cap per number on its way (`CappedNotifier`), so no phone is flooded whoever asks.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import http.client
import json
import logging
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Protocol

from flask import Flask

from assistant.infra.config import SETTINGS
from assistant.infra.counters import RateCounters, shared_counters
from assistant.infra.extensions import Slot
from assistant.language.privacy import mask, masked

log = logging.getLogger("assistant.notify")


class NotifyError(RuntimeError):
    """A message could not be handed to its channel; `status` and `retry_after` (seconds): what an
    HTTP gateway answered, where it answered."""

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class MessagesCapped(NotifyError):
    """The number has had as many messages as it may for now: nothing was sent."""


class Notifier(Protocol):
    def send(self, to: str, text: str, kind: str) -> None: ...


class ConsoleNotifier:
    def send(self, to: str, text: str, kind: str) -> None:
        log.info("%s to %s: %s", kind, masked(to), mask(text))


class OutboxNotifier:
    """Unmasked on purpose: tests and demos read codes from here. Opened per line so each is flushed."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def send(self, to: str, text: str, kind: str) -> None:
        line = json.dumps({"at": dt.datetime.now(dt.UTC).isoformat(), "to": to, "kind": kind, "text": text}, ensure_ascii=False)
        with self._lock, self.path.open("a", encoding="utf-8") as outbox:
            outbox.write(line + "\n")


class WebhookNotifier:
    def __init__(self, url: str, timeout_s: float = 5):
        self.url = url
        self.timeout_s = timeout_s

    def send(self, to: str, text: str, kind: str) -> None:
        body = json.dumps({"text": f"[{kind}] to {to}: {text}"}).encode()
        request = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                if not 200 <= response.status < 300:
                    raise NotifyError(f"webhook answered {response.status}")
        except urllib.error.HTTPError as error:  # 4xx, 5xx: its status says what to do (extensions/restaurants/calls.py)
            retry_after = error.headers.get("Retry-After", "")
            wait = float(retry_after) if retry_after.isdecimal() else None
            raise NotifyError(f"webhook answered {error.code}", error.code, wait) from error
        except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
            raise NotifyError(f"webhook failed: {error}") from error


class CappedNotifier:
    """Counts every message to a number, of any kind, in windows of an hour and of a day shared
    by all workers, and refuses one over either cap before the channel sees it: codes asked for
    from fresh sessions, confirmations and reminders all come out of the same allowance."""

    def __init__(self, channel: Notifier, counters: RateCounters, per_hour: int, per_day: int):
        self.channel = channel
        self.counters = counters
        self.caps = [(window_s, cap) for window_s, cap in ((3600, per_hour), (86400, per_day)) if cap]  # 0: no cap

    def send(self, to: str, text: str, kind: str) -> None:
        number = hashlib.sha256(to.encode()).hexdigest()[:24]  # no phone number in the store as written
        for window_s, cap in self.caps:
            count, _ = self.counters.hit(f"number:{number}:{window_s}", window_s)
            if count > cap:
                raise MessagesCapped(f"{kind} to {masked(to)} refused: over {cap} messages in {window_s} s")
        self.channel.send(to, text, kind)


def build_notifier(outbox: str | Path | None, webhook_url: str | None) -> Notifier:
    if webhook_url:
        return WebhookNotifier(webhook_url)
    if outbox:
        return OutboxNotifier(outbox)
    return ConsoleNotifier()


NOTIFIER: Slot[Notifier] = Slot("notifier")


def init_app(app: Flask) -> None:
    """The channel NOTIFY_WEBHOOK_URL or NOTIFY_OUTBOX names, else the log, behind the caps of
    MESSAGES_PER_NUMBER_HOUR and MESSAGES_PER_NUMBER_DAY."""
    settings = SETTINGS.get(app)
    channel = build_notifier(settings.notify_outbox, settings.notify_webhook_url)
    capped = CappedNotifier(channel, shared_counters(app), settings.messages_per_number_hour, settings.messages_per_number_day)
    NOTIFIER.put(app, capped)
