"""console: drop users.password_hash (passwords live in local_credentials since console_0001)

Revision ID: console_0002
Revises: knowledge_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "console_0002"
down_revision = "knowledge_0001"
branch_labels = None
depends_on = None


# A plain ALTER on both backends (SQLite >= 3.35 drops a column in place). Not batch mode: on
# SQLite it recreates `users`, and dropping the old table with foreign keys on cascades to every
# local credential.


def upgrade() -> None:
    op.execute("ALTER TABLE users DROP COLUMN password_hash")


def downgrade() -> None:
    op.add_column("users", sa.Column("password_hash", sa.String(length=200), nullable=True))
