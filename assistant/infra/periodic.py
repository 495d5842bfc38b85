"""Background chores (due reminders, expired sessions): a daemon thread per chore."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from flask import Flask

from assistant.infra.config import SETTINGS

log = logging.getLogger(__name__)


class Periodic:
    """Runs `job` at once on start (work left over from downtime), then every `interval_s`."""

    def __init__(self, name: str, interval_s: float, job: Callable[[], object]):
        self.name, self.interval_s, self.job = name, interval_s, job
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name=name)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.job()
            except Exception as error:  # a chore that fails now is tried again next round
                log.warning("%s failed, will retry: %s", self.name, type(error).__name__)
            self._stop.wait(self.interval_s)


def start_chore(app: Flask, chore: Periodic) -> None:
    """Start `chore` for this app, unless REMINDER_POLL_S=0 turned chores off (tests drive them directly)."""
    if SETTINGS.get(app).reminder_poll_s:
        chore.start()
