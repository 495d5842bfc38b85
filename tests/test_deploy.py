"""The deployment files say only what the app understands: every variable they set is a setting."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from assistant.infra.config import Settings

ROOT = Path(__file__).resolve().parent.parent
NOT_OURS = re.compile(r"^(PYTHON|PIP_|CREWAI_)")


def known(name: str) -> bool:
    return name.lower() in Settings.model_fields or name == "OPENAI_API_KEY"


def test_dockerfile_variables_are_settings():
    text = (ROOT / "Dockerfile").read_text()
    names = re.findall(r"\b([A-Z][A-Z0-9_]+)=", text.split("ENV", 1)[1].split("WORKDIR")[0])
    assert names and all(known(n) for n in names if not NOT_OURS.match(n)), names


def test_compose_variables_are_settings_and_sessions_go_to_redis():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    environment = compose["services"]["app"]["environment"]
    assert all(known(n) for n in environment), environment
    assert environment["SESSION_STORE"].startswith("redis://redis:")
    Settings(session_store=environment["SESSION_STORE"])  # a value the app accepts


def test_gunicorn_config_reads_the_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))  # the config must not leak it into this process
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.setenv("WORKERS", "3")
    config: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), config)
    assert config["bind"].endswith(":8123") and config["workers"] == 3 and config["preload_app"] is False
