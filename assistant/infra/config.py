"""All configuration, read in one place: environment variables (or a .env file) and overrides.

`create_app(config)` passes its overrides here, so tests and deployments use the same fields;
every component then reads the app's one `Settings` (`SETTINGS.get(app)`).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from assistant.infra.extensions import Slot

ROOT = Path(__file__).resolve().parents[2]
CODE_TTL = dt.timedelta(minutes=10)  # a one-time code's life, and so a table's held for one
OPERATOR_KEY_MIN_CHARS = 32  # a shorter key may be guessed; secrets.token_urlsafe(32) makes a 43-character one
_NAMED_KEY = re.compile(r"([A-Za-z][\w.-]{0,39}):(.+)", re.DOTALL)  # "asha:<key>": the key, known as asha's

# crewai phones home and stalls when these are unset; they must precede any crewai import.
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")


class Settings(BaseSettings):
    # A .env may hold other tools' keys too; unknown keys passed to create_app are refused there.
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", case_sensitive=False)

    domain: str = Field(
        default="bank",
        pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$",
        description="the domain pack: a folder under data/ (bank, cars, store, restaurants, homologation)",
    )
    data_dir: Path | None = Field(default=None, description="a domain pack folder elsewhere; overrides DOMAIN")
    session_db: Path | None = Field(default=None, description="SQLite file for sessions; default: <instance>/sessions.sqlite3")
    session_store: str | None = Field(
        default=None, pattern=r"^(redis|rediss|unix)://", description="redis://host:6379/0 to share sessions across machines"
    )
    session_ttl_s: float = Field(default=7 * 24 * 3600, gt=0, description="idle time after which a session expires")
    replay_ttl_s: float = Field(
        default=24 * 3600, gt=0, description="how long a retried message (same X-Request-ID) gets its stored answer"
    )
    sqlite_busy_timeout_s: float = Field(
        default=5,
        gt=0,
        description="how long a write waits for another's lock (or PostgreSQL for a connection) before answering 503",
    )
    bookings_db: Path | None = Field(
        default=None, description="SQLite file for every durable record (bookings, codes, cases...); default: beside session_db"
    )
    database_url: str | None = Field(
        default=None,
        pattern=r"^(postgres|postgresql|postgresql\+psycopg)://|^sqlite:///",
        description="postgresql://user:password@host/db to keep every durable record there, shared by every machine",
    )
    notify_outbox: Path | None = Field(default=None, description="append messages to this JSON-lines file")
    notify_webhook_url: str | None = Field(default=None, description="POST messages here (a Slack incoming webhook works)")
    reminder_poll_s: float = Field(default=30, ge=0, description="how often due reminders are sent; 0: never")
    max_products: int = Field(default=5, ge=1, le=20, description="products listed per answer")
    faq_min_similarity: float = Field(
        default=0.45, ge=0, le=1, description="cosine similarity below which a troubleshooting fix is not given"
    )
    history_limit: int = Field(default=50, ge=2, description="turns kept per session")
    max_request_bytes: int = Field(default=16 * 1024, ge=1024)
    # Attachments: photos and PDFs sent with chat messages, kept for the office.
    attachments_dir: Path | None = Field(default=None, description="folder for attachments; default: <instance>/attachments")
    attachments_url: str | None = Field(
        default=None,
        pattern=r"^(file|s3)://",
        description="where attachments' bytes go instead: file:///path, or s3://bucket/prefix (optionally "
        "?endpoint_url=http://host:port) shared by every machine, with boto3's credentials and region",
    )
    attachment_max_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, description="the largest file accepted")
    attachments_per_message: int = Field(default=10, ge=1, le=10, description="files one chat message may carry")
    # Attachments' limits: what an image may cost to decode, and how many files the store takes.
    image_max_decoded_bytes: int = Field(
        default=192 * 1024 * 1024, ge=1024 * 1024, description="an image's pixels in memory, at its bits per sample"
    )
    image_max_ratio: int = Field(default=100, ge=10, description="decoded bytes per byte of file above which an image is refused")
    image_decodes_at_once: int = Field(default=2, ge=1, description="images one worker process decodes at the same time")
    attachments_per_session: int = Field(default=40, ge=1, description="files one conversation may keep")
    attachments_session_bytes: int = Field(default=160 * 1024 * 1024, ge=1024, description="bytes one conversation may keep")
    attachments_total_files: int = Field(default=200_000, ge=1, description="files the whole store may keep")
    attachments_total_bytes: int = Field(default=20 * 1024**3, ge=1024, description="bytes the whole store may keep")
    attachments_unused_s: float = Field(
        default=48 * 3600, gt=0, description="a conversation's files are removed this long after its last, unless a case has them"
    )
    cors_origins: list[str] = Field(default=["http://localhost:5000", "http://127.0.0.1:5000"])
    # LLM mode: unset LLM_MODEL means the offline assistant.
    llm_model: str | None = Field(default=None, description="e.g. openai/gpt-4o-mini, ollama/llama3.1")
    llm_base_url: str | None = Field(default=None, description="any OpenAI-compatible server's /v1 URL")
    llm_api_key: str | None = Field(default=None, validation_alias=AliasChoices("llm_api_key", "openai_api_key"))
    llm_timeout_s: float = Field(default=10, gt=0, description="per LLM call")
    # The client's own retries queue a second copy of a prompt the server may still be generating,
    # and ignore the turn's deadline: none by default.
    llm_max_retries: int = Field(default=0, ge=0, le=3, description="client retries per call")
    llm_turn_deadline_s: float = Field(default=12, gt=0, description="a turn never waits longer for the LLM")
    llm_calls_per_turn: int = Field(default=6, ge=1, le=20, description="LLM call budget per turn")
    llm_max_tokens: int = Field(default=400, ge=16, le=8192, description="the longest answer a call may generate")
    llm_temperature: float = Field(default=0.2, ge=0, le=2, description="0: the same prompt gets the same answer")
    # The circuit breaker, shared by every worker: this many faults or timeouts within the window
    # and the model is skipped (offline replies) for the cool-down.
    llm_breaker_faults: int = Field(default=3, ge=1, description="model faults within the window that open the breaker")
    llm_breaker_window_s: int = Field(default=60, ge=1, le=3600, description="the window faults are counted in")
    llm_breaker_cooldown_s: int = Field(default=60, ge=1, le=3600, description="how long the model is skipped once open")
    # The app is CPU-bound (rules, embeddings): one worker per core, threads for waiting on I/O.
    workers: int = Field(default=os.cpu_count() or 1, ge=1, description="gunicorn worker processes")
    threads: int = Field(default=4, ge=1, description="threads per gunicorn worker")
    client_rate_per_min: int = Field(default=120, ge=0, description="chat messages per client address a minute; 0: no limit")
    session_rate_per_min: int = Field(default=30, ge=0, description="chat messages per session a minute; 0: no limit")
    messages_per_number_hour: int = Field(
        default=5, ge=0, description="codes, confirmations and reminders to one phone number an hour; 0: no limit"
    )
    messages_per_number_day: int = Field(default=10, ge=0, description="the same a day; 0: no limit")
    # A new number and a new session each time pass the caps per number: these count per client
    # address and per session (or concierge user_id) too (assistant/infra/allowance.py).
    codes_per_client_hour: int = Field(
        default=10, ge=0, description="one-time codes sent for one client address an hour; 0: no limit"
    )
    codes_per_session_hour: int = Field(default=4, ge=0, description="one-time codes sent for one session an hour; 0: no limit")
    holds_per_client: int = Field(
        default=3, ge=0, description="tables one client address may hold unconfirmed in a code's 10 minutes; 0: no limit"
    )
    service_backoff_max_s: float = Field(
        default=2.0, ge=0, description="the longest Retry-After of a concierge service waited out before one more try"
    )
    unconfirmed_hold_share: float = Field(
        default=0.5, gt=0, le=1, description="the share of a time's tables that unconfirmed guests may hold at once"
    )
    proxy_count: int = Field(default=0, ge=0, le=5, description="trusted proxies in front (X-Forwarded-For hops)")
    forwarded_allow_ips: str | None = Field(
        default=None,
        description="the proxies' addresses or networks, comma-separated, as gunicorn reads them: "
        "X-Forwarded-For is believed only from these peers",
    )
    # Identity: customers' tokens from the business's login, operators' API keys.
    auth_jwt_secret: SecretStr | None = Field(
        default=None, min_length=32, description="HS256: the secret the login signs customers' tokens with (RFC 7518: 32+ bytes)"
    )
    auth_jwt_public_key: str | None = Field(
        default=None, description="RS256: the login's public key, as PEM text or a PEM file's path (wins over the secret)"
    )
    auth_jwt_issuer: str | None = Field(default=None, description="the `iss` every token must carry, if set")
    auth_jwt_audience: str | None = Field(default=None, description="the `aud` every token must carry, if set")
    operator_api_keys: list[SecretStr] = Field(
        default=[], description=f"keys operators send in X-API-Key (a JSON list), each {OPERATOR_KEY_MIN_CHARS}+ characters"
    )
    credential_failures_per_min: int = Field(
        default=10, ge=0, description="refused tokens and keys per client address a minute, then 429; 0: no limit"
    )
    log_level: str = Field(default="INFO", pattern=r"^(DEBUG|INFO|WARNING|ERROR)$")
    host: str = "127.0.0.1"
    port: int = 5000

    @model_validator(mode="after")
    def _proxies_named(self) -> Settings:
        """PROXY_COUNT takes the client's address from X-Forwarded-For, which any client can write:
        so only when the proxies are named, and never as '*' or a network of every address."""
        named = [entry.strip() for entry in (self.forwarded_allow_ips or "").split(",") if entry.strip()]
        networks = [ipaddress.ip_network(entry, strict=False) for entry in named if entry != "*"]
        if self.proxy_count and (not named or "*" in named or any(network.prefixlen == 0 for network in networks)):
            raise ValueError(
                f"PROXY_COUNT={self.proxy_count} believes X-Forwarded-For, which any client can write: "
                "set FORWARDED_ALLOW_IPS to the proxies' addresses (not '*')"
            )
        return self

    @model_validator(mode="after")
    def _operator_keys_long(self) -> Settings:
        """An operator's key opens every conversation: a short one is found by trying."""
        short = [name for name, key in self.operator_keys if len(key.decode()) < OPERATOR_KEY_MIN_CHARS]
        if short:
            raise ValueError(
                f"OPERATOR_API_KEYS: {', '.join(short)}'s key is shorter than {OPERATOR_KEY_MIN_CHARS} characters; "
                "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        return self

    @model_validator(mode="after")
    def _one_attachments_place(self) -> Settings:
        """Files kept in a folder no one reads while the other setting is believed would be lost from view."""
        if self.attachments_dir is not None and self.attachments_url is not None:
            raise ValueError("set ATTACHMENTS_DIR or ATTACHMENTS_URL, not both (ATTACHMENTS_URL=file:///path is a folder)")
        return self

    @property
    def operator_keys(self) -> list[tuple[str, bytes]]:
        """OPERATOR_API_KEYS as (the operator's name, the key): "asha:<key>" is asha's, a bare key's is "operator"."""
        entries = [key.get_secret_value() for key in self.operator_api_keys]
        return [(n.group(1), n.group(2).encode()) if (n := _NAMED_KEY.fullmatch(e)) else ("operator", e.encode()) for e in entries]

    @property
    def pack_dir(self) -> Path:
        return self.data_dir or ROOT / "data" / self.domain


SETTINGS: Slot[Settings] = Slot("settings")


def init_app(app: Flask, overrides: Mapping[str, Any] | None = None) -> None:
    """Read the settings once, for every component: environment, .env, then `overrides` (any case;
    pydantic checks each value). An override that names no setting is refused: a typo would pass unseen."""
    given = {key.lower(): value for key, value in (overrides or {}).items()}
    unknown = set(given) - set(Settings.model_fields)
    if unknown:
        raise ValueError(f"unknown settings: {', '.join(sorted(unknown))}")
    SETTINGS.put(app, Settings(**given))


INSTANCE = ROOT / "instance"  # the app's instance folder (Flask's default for app.py)


def sessions_file(app: Flask) -> Path:
    """SESSION_DB, or sessions.sqlite3 in the app's instance folder."""
    return SETTINGS.get(app).session_db or Path(app.instance_path) / "sessions.sqlite3"


def bookings_file(app: Flask) -> Path:
    """BOOKINGS_DB, or bookings.sqlite3 beside the sessions."""
    return SETTINGS.get(app).bookings_db or sessions_file(app).parent / "bookings.sqlite3"


def durable_url(settings: Settings, instance: Path = INSTANCE) -> str:
    """DATABASE_URL, or the SQLite file BOOKINGS_DB (by default beside the sessions)."""
    sessions = settings.session_db or instance / "sessions.sqlite3"
    return settings.database_url or f"sqlite:///{settings.bookings_db or sessions.parent / 'bookings.sqlite3'}"


def attachments_dir(app: Flask) -> Path:
    """ATTACHMENTS_DIR, or attachments/ beside the sessions (the app's instance folder by default)."""
    return SETTINGS.get(app).attachments_dir or sessions_file(app).parent / "attachments"
