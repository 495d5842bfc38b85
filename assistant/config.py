"""All configuration, read in one place: environment variables (or a .env file) and overrides.

`create_app(config)` passes its overrides here, so tests and deployments use the same fields.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent

# crewai phones home and stalls when these are unset; they must precede any crewai import.
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="forbid", case_sensitive=False)

    data_dir: Path = Field(default=ROOT / "data" / "bank", description="the business's data folder")
    session_db: Path | None = Field(
        default=None, description="SQLite file for sessions; default: <instance>/sessions.sqlite3"
    )
    max_products: int = Field(default=5, ge=1, le=20, description="products listed per answer")
    faq_min_similarity: float = Field(
        default=0.45, ge=0, le=1, description="cosine similarity below which a FAQ is not relevant"
    )
    history_limit: int = Field(default=50, ge=2, description="turns kept per session")
    max_request_bytes: int = Field(default=16 * 1024, ge=1024)
    cors_origins: list[str] = Field(default=["http://localhost:5000", "http://127.0.0.1:5000"])
    host: str = "127.0.0.1"
    port: int = 5000
