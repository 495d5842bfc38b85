"""Production server: `gunicorn -c gunicorn.conf.py "app:create_app()"`.

Workers share sessions through the store (SQLite on one machine, Redis across machines),
never process memory, so any worker can answer any turn. Settings come from the same place
as the app's (assistant/infra/config.py): HOST, PORT, WORKERS, THREADS, FORWARDED_ALLOW_IPS.
"""

import json
import os
import tempfile

from gunicorn import util

from assistant.infra.config import Settings

# /metrics sums every worker's counters from files here (set before any worker imports the client).
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="assistant-metrics-"))
_settings = Settings()
bind = f"{_settings.host}:{_settings.port}"
workers = _settings.workers
threads = _settings.threads
worker_class = "gthread"
timeout = 60  # longer than an LLM turn's deadline (LLM_TURN_DEADLINE_S)
graceful_timeout = 20
keepalive = 5
accesslog = None  # the app logs every request itself, as JSON
preload_app = False  # each worker opens its own SQLite connections; they must not cross a fork
# gunicorn's defaults, stated because the OpenAPI document and the README tell clients of them:
# past them gunicorn answers 414 (request line) or 431 (headers) before the app sees the request.
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
if _settings.forwarded_allow_ips:  # unset: gunicorn's own default (this machine)
    forwarded_allow_ips = _settings.forwarded_allow_ips


def _json_error(sock, status_int, reason, mesg):
    """gunicorn's own answers (a malformed request, 414, 431) in the app's JSON error shape.
    gunicorn has no setting for their format, so its one writer of them is replaced."""
    body = json.dumps({"error": reason.lower().replace(" ", "_"), "message": mesg or reason})
    head = f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
    util.write_nonblock(sock, f"{head}Content-Length: {len(body)}\r\n\r\n{body}".encode("latin-1"))


util.write_error = _json_error


def child_exit(server, worker):
    """A dead worker's live gauges leave the sums; its counters stay counted."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
