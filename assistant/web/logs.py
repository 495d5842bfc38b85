"""Structured JSON logs: one object per line, with request id, session tag, intent, agents and
durations, and never a phone number, code, customer name or session id.

Customers' words are never logged, only facts about the turn; every message and field still
passes `scrub` (assistant/language/privacy.py) on its way out, so a number that slips into a message is masked anyway. A session
id is a bearer secret (it is all it takes to continue a conversation), so every UUID in a line
is written as its tag, a short hash that traces the session without opening it.
"""

from __future__ import annotations

import json
import logging
import sys
import time

from flask import Flask

from assistant.infra.config import SETTINGS
from assistant.language.privacy import scrub

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}
_IDS = {"request_id", "endpoint"}  # not the customer's, and no secret: kept whole to trace by


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": scrub(record.getMessage()),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = scrub(value) if isinstance(value, str) and key not in _IDS else value
        if record.exc_info and record.exc_info[0]:  # (None, None, None) when logged outside an except
            entry["error"] = record.exc_info[0].__name__  # the type only: tracebacks may hold customer data
        return json.dumps(entry, ensure_ascii=False, default=str)


def init_app(app: Flask) -> None:
    """JSON lines on stderr at LOG_LEVEL, for the whole process: logging is per process, so a
    second app (tests make many) adds no second handler."""
    root = logging.getLogger()
    root.setLevel(SETTINGS.get(app).log_level)
    if any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
