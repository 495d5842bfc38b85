"""Alembic's entry point: runs the migrations on the configured URL, each in its own transaction."""

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool

engine = create_engine(context.config.get_main_option("sqlalchemy.url") or "", poolclass=NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, transaction_per_migration=True)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
