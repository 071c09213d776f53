"""security: room for keyed audit hashes (HMAC-SHA256 with the key's id)

Revision ID: security_0002
Revises: retrieval_0002

A keyed entry hash reads `hmac-sha256:<key id>:<64 hex>` (85 characters), longer than the 80
the unkeyed `sha256:<64 hex>` needed. Entries already chained keep their hashes: they verify as
before, and `memdesk audit seal` covers each such chain with a keyed entry
(services/records/audit.py). SQLite does not enforce VARCHAR lengths, and recreating audit_log
there (batch mode) would drop its append-only triggers, so only PostgreSQL is altered.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "security_0002"
down_revision = "retrieval_0002"
branch_labels = None
depends_on = None

_COLUMNS = (("audit_log", "prev_hash"), ("audit_log", "entry_hash"), ("audit_heads", "entry_hash"))


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        return
    for table, column in _COLUMNS:
        op.alter_column(
            table, column, type_=sa.String(length=120), existing_type=sa.String(length=80)
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        return
    for table, column in _COLUMNS:
        op.alter_column(
            table, column, type_=sa.String(length=80), existing_type=sa.String(length=120)
        )
