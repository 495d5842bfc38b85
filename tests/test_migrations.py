"""The durable database's schema comes from Alembic's migrations: an embedded SQLite file is
brought up to date at start-up (an old one adopted with its rows), a PostgreSQL database behind
the code refuses to start and names the command, and that command migrates it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from conftest import app_for, postgres, postgres_database
from servers import new_database

from assistant.booking.codes import Booking, BookingStore
from assistant.infra import migrations
from assistant.infra.database import DATABASE

ROOT = Path(__file__).resolve().parent.parent
OLD_SCHEMA = """
CREATE TABLE bookings (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE preferences (customer_id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE panic_log (id INTEGER PRIMARY KEY AUTOINCREMENT, on_ INTEGER NOT NULL, by TEXT NOT NULL, at REAL NOT NULL);
"""  # as the stores made them before migrations


def migrate(*args: str, url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run([sys.executable, "-m", "assistant", "migrate", *args], cwd=ROOT, env=env, capture_output=True, text=True)


def test_a_postgresql_database_behind_the_code_refuses_to_start_until_migrated(tmp_path):
    url = new_database(postgres().url, "behind")
    with pytest.raises(migrations.Behind, match="python3 -m assistant migrate"):
        app_for(tmp_path, database_url=url)
    checked = migrate("--check", url=url)
    assert checked.returncode == 1 and "lacks: 0001, 0101, 0201" in checked.stderr
    done = migrate(url=url)
    assert done.returncode == 0, done.stderr
    assert "at 0001, 0101, 0201" in done.stdout and "postgres@" in done.stdout
    assert migrate("--check", url=url).returncode == 0
    app = app_for(tmp_path, database_url=url)
    assert app.test_client().get("/ready").status_code == 200


def test_a_shared_database_with_sessions_kept_on_one_machine_is_warned_of(tmp_path, caplog):
    app_for(tmp_path, database_url=postgres_database())
    assert "set SESSION_STORE for several machines" in caplog.text


def test_a_database_missing_one_extensions_migration_is_behind_too(tmp_path):
    url = new_database(postgres().url, "partly")
    from alembic import command

    command.upgrade(migrations.config(url), "engine@head")
    with pytest.raises(migrations.Behind, match="lacks: 0101, 0201; it has: 0001"):
        app_for(tmp_path, database_url=url)


def test_an_old_sqlite_file_is_adopted_with_its_rows(tmp_path):
    path = tmp_path / "bookings.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        booking = Booking(
            id="BK-OLD1", session_id="s", product_id="p", product_name="P", name="N", phone="+8801712345678",
            starts_at="2026-11-24T17:00:00+06:00",
        )  # fmt: skip
        db.execute("INSERT INTO bookings VALUES (?, ?)", (booking.id, booking.model_dump_json()))
    app = app_for(tmp_path, database_url=f"sqlite:///{path}")
    assert BookingStore(DATABASE.get(app)).get("BK-OLD1") == booking
    assert migrations.current(f"sqlite:///{path}") == migrations.heads(f"sqlite:///{path}")
    chat = app.test_client().post("/chat", json={"query": "hello", "session_id": str(uuid.uuid4())})
    assert chat.status_code == 200


def test_workers_starting_together_migrate_a_new_sqlite_file_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    with ProcessPoolExecutor(4) as pool:
        list(pool.map(migrations.upgrade, [url] * 4))
    assert migrations.current(url) == migrations.heads(url)


def test_the_tests_postgresql_template_is_at_the_codes_schema():
    url = postgres_database()
    assert migrations.current(url) == migrations.heads(url) == {"0001", "0101", "0201"}
