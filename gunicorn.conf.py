"""Production server: `gunicorn -c gunicorn.conf.py "app:create_app()"`.

Workers share sessions through the store (SQLite on one machine, Redis across machines),
never process memory, so any worker can answer any turn. Settings come from the same place
as the app's (assistant/config.py): HOST, PORT, WORKERS, THREADS.
"""

from assistant.config import Settings

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
