"""retrieval: the eligibility index covers what the eligible-versions query reads

Revision ID: retrieval_0002
Revises: memory_0002

Every retrieval lists the principal's eligible document versions; with valid_to, document_id
and version in the index the query never reads a version's row (and its body).
"""

from __future__ import annotations

from alembic import op

revision = "retrieval_0002"
down_revision = "memory_0002"
branch_labels = None
depends_on = None

_COVERING = ["tenant_id", "status", "valid_from", "valid_to", "document_id", "version"]


def upgrade() -> None:
    op.drop_index("ix_document_versions_eligible", table_name="document_versions")
    op.create_index("ix_document_versions_eligible", "document_versions", _COVERING)


def downgrade() -> None:
    op.drop_index("ix_document_versions_eligible", table_name="document_versions")
    op.create_index(
        "ix_document_versions_eligible", "document_versions", ["tenant_id", "status", "valid_from"]
    )
