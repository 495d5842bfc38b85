"""Production server: `gunicorn -c gunicorn.conf.py "app:create_app()"`.

Workers share sessions through the store (SQLite on one machine, Redis across machines),
never process memory, so any worker can answer any turn. Settings come from the same place
as the app's (assistant/infra/config.py): HOST, PORT, WORKERS, THREADS.
"""

import os
import tempfile

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


def child_exit(server, worker):
    """A dead worker's live gauges leave the sums; its counters stay counted."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
