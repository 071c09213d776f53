"""retrieval: per-tenant change counter of each index version (cache validation)

Revision ID: retrieval_0001
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "retrieval_0001"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "index_tenant_state",
        sa.Column("index_version", sa.String(length=64), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["index_version"],
            ["index_versions.index_version"],
            name=op.f("fk_index_tenant_state_index_version_index_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("index_version", "tenant_id", name=op.f("pk_index_tenant_state")),
    )


def downgrade() -> None:
    op.drop_table("index_tenant_state")
