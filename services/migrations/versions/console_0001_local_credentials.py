"""console: local-account credentials (argon2) and the inbox's tenant + last-activity index

Revision ID: console_0001
Revises: retrieval_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "console_0001"
down_revision = "retrieval_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "local_credentials",
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("failed_attempts", sa.Integer(), nullable=False),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("changed_by", sa.String(length=128), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.user_id"],
            name=op.f("fk_local_credentials_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_local_credentials")),
    )
    op.create_index(
        "ix_task_states_tenant_updated", "task_states", ["tenant_id", "updated_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_task_states_tenant_updated", table_name="task_states")
    op.drop_table("local_credentials")
