"""The durable database's schema, made and changed only by Alembic migrations: the engine's in
versions/, each extension's in extensions/<name>/migrations/ (a branch of its own, so a business's
tables stay with its extension). `python3 -m assistant migrate` brings a database up to date.

Alembic drives SQLAlchemy, used here only to run migrations; the stores send their own SQL
(assistant/infra/database.py)."""

from __future__ import annotations

import argparse
import fcntl
import sys
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

HERE = Path(__file__).resolve().parent
EXTENSIONS = HERE.parents[2] / "extensions"
COMMAND = "python3 -m assistant migrate"


class Behind(RuntimeError):
    """The database's schema is older than the code's (or the code is older than the database's)."""


def _sqlalchemy_url(url: str) -> str:
    """The app's DATABASE_URL as SQLAlchemy names the psycopg 3 driver."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def config(url: str) -> Config:
    settings = Config()
    settings.set_main_option("script_location", str(HERE))
    locations = [HERE / "versions", *sorted(EXTENSIONS.glob("*/migrations"))]
    settings.set_main_option("version_locations", " ".join(str(p) for p in locations))
    settings.set_main_option("path_separator", "space")
    settings.set_main_option("sqlalchemy.url", _sqlalchemy_url(url).replace("%", "%%"))
    return settings


def upgrade(url: str) -> None:
    """Every branch to its newest migration. A SQLite file is migrated under a file lock, so that
    workers starting together take turns (the second finds nothing left to do)."""
    if not url.startswith("sqlite:///"):
        command.upgrade(config(url), "heads")
        return
    path = Path(url.removeprefix("sqlite:///"))
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".migrating"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if current(url) != heads(url):
            command.upgrade(config(url), "heads")


def heads(url: str) -> set[str]:
    """The newest migration of each branch, as the code has them."""
    return set(ScriptDirectory.from_config(config(url)).get_heads())


def current(url: str) -> set[str]:
    """The migrations the database has reached (none, for a SQLite file not made yet)."""
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return set()
    engine = create_engine(_sqlalchemy_url(url), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return set(MigrationContext.configure(connection).get_current_heads())
    finally:
        engine.dispose()


def check(url: str) -> None:
    """Refuses a database whose schema is not the code's, naming the command that migrates it."""
    have, want = current(url), heads(url)
    if have != want:
        missing = ", ".join(sorted(want - have)) or "none"
        raise Behind(
            f"the database is not at the code's schema (it lacks: {missing}; it has: "
            f"{', '.join(sorted(have)) or 'nothing'}): run `{COMMAND}` with the same DATABASE_URL, then start again"
        )


def main(argv: list[str]) -> int:
    """`python3 -m assistant migrate [--check]`, on the database the app would open (DATABASE_URL,
    else the SQLite file beside the sessions): 0 when it is at the code's schema afterwards."""
    from assistant.infra.config import Settings, durable_url
    from assistant.infra.database import shown

    parser = argparse.ArgumentParser(prog="python3 -m assistant migrate", description=main.__doc__)
    parser.add_argument("--check", action="store_true", help="only say whether the database is behind; change nothing")
    args = parser.parse_args(argv)
    url = durable_url(Settings())
    try:
        if not args.check:
            upgrade(url)
        check(url)
    except (Behind, OperationalError) as failed:
        print(f"{shown(url)}: {failed}", file=sys.stderr)
        return 1
    print(f"{shown(url)}: at {', '.join(sorted(current(url)))}")
    return 0
