"""The office's cases: each submitted record, its status, and its fingerprint (one case per record).

Revision ID: 0101
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0101"
down_revision = None
branch_labels = ("homologation",)
depends_on = None


def upgrade() -> None:
    text = sa.Text()
    op.create_table(
        "cases",
        sa.Column("id", text, primary_key=True),
        sa.Column("session_id", text, nullable=False),
        sa.Column("fingerprint", text, nullable=False, unique=True),
        sa.Column("status", text, nullable=False),
        sa.Column("created_at", text, nullable=False),
        sa.Column("updated_at", text, nullable=False),
        sa.Column("record", text, nullable=False),
        if_not_exists=True,
    )
    op.create_index("cases_by_status", "cases", ["status", "created_at"], if_not_exists=True)
    op.create_index("cases_by_session", "cases", ["session_id"], if_not_exists=True)
