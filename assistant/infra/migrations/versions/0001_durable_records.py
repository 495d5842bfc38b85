"""The engine's durable records: bookings with their codes, hours and reminders, customers'
preferences, the people's side (hand-overs, the panic switch, unanswered questions) and
attachments' descriptions. `if_not_exists`: a SQLite file made before migrations is adopted as it is.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = ("engine",)
depends_on = None


def upgrade() -> None:
    text, integer, real = sa.Text(), sa.Integer(), sa.Double[float]()
    op.create_table(
        "bookings", sa.Column("id", text, primary_key=True), sa.Column("body", text, nullable=False), if_not_exists=True
    )
    op.create_table(
        "codes",
        sa.Column("goal_id", text, primary_key=True),
        sa.Column("salt", sa.LargeBinary(), nullable=False),
        sa.Column("digest", sa.LargeBinary(), nullable=False),
        sa.Column("expires_at", text, nullable=False),
        sa.Column("wrong", integer, nullable=False, server_default="0"),
        sa.Column("issued", integer, nullable=False),
        if_not_exists=True,
    )
    op.create_table(
        "booked_hours",
        sa.Column("booking_id", text, primary_key=True),
        sa.Column("resource", text, nullable=False),
        sa.Column("hour", text, nullable=False),
        if_not_exists=True,
    )
    op.create_index("booked_hours_by_hour", "booked_hours", ["resource", "hour"], if_not_exists=True)
    op.create_table(
        "reminders",
        sa.Column("id", text, primary_key=True),
        sa.Column("booking_id", text, nullable=False),
        sa.Column("recipient", text, nullable=False),
        sa.Column("text", text, nullable=False),
        sa.Column("due_at", text, nullable=False),
        sa.Column("claim", text),
        sa.Column("claimed_at", text),
        sa.Column("sent_at", text),
        if_not_exists=True,
    )
    op.create_index("reminders_due", "reminders", ["due_at"], if_not_exists=True)
    op.create_table(
        "preferences",
        sa.Column("customer_id", text, primary_key=True),
        sa.Column("body", text, nullable=False),
        if_not_exists=True,
    )
    op.create_table(
        "handovers",
        sa.Column("session_id", text, primary_key=True),
        sa.Column("pack", text, nullable=False),
        sa.Column("reason", text, nullable=False),
        sa.Column("summary", text, nullable=False),
        sa.Column("since", real, nullable=False),
        sa.Column("operator", text),
        sa.Column("taken_at", real),
        if_not_exists=True,
    )
    op.create_table(  # who asked: a customer's id, else the client's address
        "handover_clients",
        sa.Column("session_id", text, primary_key=True),
        sa.Column("client", text, nullable=False),
        if_not_exists=True,
    )
    op.create_index("handover_clients_by_client", "handover_clients", ["client"], if_not_exists=True)
    op.create_table(
        "handover_log",
        sa.Column("id", integer, primary_key=True, autoincrement=True),
        sa.Column("session_id", text, nullable=False),
        sa.Column("reason", text, nullable=False),
        sa.Column("since", real, nullable=False),
        sa.Column("operator", text),
        sa.Column("released_at", real),
        sa.Column("note", text),
        if_not_exists=True,
    )
    op.create_index("handover_log_by_session", "handover_log", ["session_id"], if_not_exists=True)
    op.create_table(
        "panic_log",
        sa.Column("id", integer, primary_key=True, autoincrement=True),
        sa.Column("on_", integer, nullable=False),
        sa.Column("by", text, nullable=False),
        sa.Column("at", real, nullable=False),
        if_not_exists=True,
    )
    op.create_table(
        "unanswered",
        sa.Column("id", integer, primary_key=True, autoincrement=True),
        sa.Column("text", text, nullable=False),
        sa.Column("reason", text, nullable=False),
        sa.Column("at", real, nullable=False),
        sa.Column("vector", sa.LargeBinary()),  # its meaning, as the pack's embedding model reads it; NULL: unreadable script
        if_not_exists=True,
    )
    op.create_table(
        "attachments",
        sa.Column("id", text, primary_key=True),
        sa.Column("session_id", text, nullable=False),
        sa.Column("body", text, nullable=False),  # the Attachment, as JSON
        sa.Column("size", integer, nullable=False),
        sa.Column("created_at", real, nullable=False),
        if_not_exists=True,
    )
    op.create_index("attachments_by_session", "attachments", ["session_id", "created_at"], if_not_exists=True)
