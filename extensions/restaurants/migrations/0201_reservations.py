"""The concierge's reservations (a table at a time), the holds awaiting a code, and each user's plan.

Revision ID: 0201
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0201"
down_revision = None
branch_labels = ("restaurants",)
depends_on = None


def upgrade() -> None:
    text = sa.Text()
    op.create_table(
        "reservations",
        sa.Column("id", text, primary_key=True),
        sa.Column("restaurant_id", text, nullable=False),
        sa.Column("date", text, nullable=False),
        sa.Column("time", text, nullable=False),
        sa.Column("guests", sa.Integer(), nullable=False),
        sa.Column("name", text, nullable=False),
        sa.Column("phone", text, nullable=False),
        sa.Column("table_number", text, nullable=False),
        if_not_exists=True,
    )
    op.create_index("reservations_by_time", "reservations", ["restaurant_id", "date", "time"], if_not_exists=True)
    op.create_table(
        "held_until",
        sa.Column("reservation_id", text, primary_key=True),
        sa.Column("expires_at", text, nullable=False),
        if_not_exists=True,
    )
    op.create_table(
        "concierge_plans",
        sa.Column("user_id", text, primary_key=True),
        sa.Column("body", text, nullable=False),
        if_not_exists=True,
    )
