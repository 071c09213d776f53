"""console: signed, expiring, server-revocable sessions; structured engineering results

Revision ID: console_0003
Revises: security_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "console_0003"
down_revision = "security_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "console_sessions",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_reason", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.user_id"],
            name=op.f("fk_console_sessions_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id_hash", name=op.f("pk_console_sessions")),
    )
    op.create_index(
        op.f("ix_console_sessions_user_id"), "console_sessions", ["user_id"], unique=False
    )
    # Plain ADD COLUMN (no batch mode): SQLite would otherwise recreate the table.
    op.add_column("approvals", sa.Column("result", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("approvals", "result")  # SQLite >= 3.35 drops a column in place
    op.drop_index(op.f("ix_console_sessions_user_id"), table_name="console_sessions")
    op.drop_table("console_sessions")
