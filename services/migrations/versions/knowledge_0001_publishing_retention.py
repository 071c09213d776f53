"""knowledge: candidate knowledge, publications, legal holds, retention policies

Revision ID: knowledge_0001
Revises: memory_0001
Create Date: 2026-11-29 21:59:20.630546
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "knowledge_0001"
down_revision = "memory_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "knowledge_candidates",
        sa.Column("candidate_id", sa.String(length=64), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("document_id", sa.String(length=200), nullable=False),
        sa.Column("base_version", sa.Integer(), nullable=True),
        sa.Column("doc_type", sa.String(length=20), nullable=False),
        sa.Column("knowledge_class", sa.String(length=20), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("acl", sa.JSON(), nullable=False),
        sa.Column("language", sa.String(length=20), nullable=False),
        sa.Column("customer_id", sa.String(length=128), nullable=True),
        sa.Column("origin", sa.String(length=20), nullable=False),
        sa.Column("sources", sa.JSON(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.Column("rationale", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("proposed_by", sa.String(length=128), nullable=False),
        sa.Column("proposed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_by", sa.String(length=128), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decision_comment", sa.Text(), nullable=True),
        sa.Column("published_version", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.tenant_id"],
            name=op.f("fk_knowledge_candidates_tenant_id_tenants"),
        ),
        sa.PrimaryKeyConstraint("candidate_id", name=op.f("pk_knowledge_candidates")),
    )
    with op.batch_alter_table("knowledge_candidates", schema=None) as batch_op:
        batch_op.create_index(
            "ix_knowledge_candidates_queue", ["tenant_id", "status"], unique=False
        )

    op.create_table(
        "legal_holds",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("record_type", sa.String(length=20), nullable=False),
        sa.Column("record_id", sa.String(length=300), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("set_by", sa.String(length=128), nullable=False),
        sa.Column("set_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lifted_by", sa.String(length=128), nullable=True),
        sa.Column("lifted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lift_reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], name=op.f("fk_legal_holds_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_legal_holds")),
    )
    with op.batch_alter_table("legal_holds", schema=None) as batch_op:
        batch_op.create_index(
            "ix_legal_holds_record", ["tenant_id", "record_type", "record_id"], unique=False
        )

    op.create_table(
        "retention_policies",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("record_type", sa.String(length=20), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("updated_by", sa.String(length=128), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.tenant_id"],
            name=op.f("fk_retention_policies_tenant_id_tenants"),
        ),
        sa.PrimaryKeyConstraint("tenant_id", "record_type", name=op.f("pk_retention_policies")),
    )
    op.create_table(
        "publications",
        sa.Column("publication_id", sa.String(length=64), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("candidate_id", sa.String(length=64), nullable=False),
        sa.Column("document_id", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("previous_version", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("steps", sa.JSON(), nullable=False),
        sa.Column("index_version", sa.String(length=64), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("started_by", sa.String(length=128), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["candidate_id"],
            ["knowledge_candidates.candidate_id"],
            name=op.f("fk_publications_candidate_id_knowledge_candidates"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], name=op.f("fk_publications_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("publication_id", name=op.f("pk_publications")),
    )
    with op.batch_alter_table("publications", schema=None) as batch_op:
        batch_op.create_index(
            "ix_publications_candidate", ["tenant_id", "candidate_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("publications", schema=None) as batch_op:
        batch_op.drop_index("ix_publications_candidate")

    op.drop_table("publications")
    op.drop_table("retention_policies")
    with op.batch_alter_table("legal_holds", schema=None) as batch_op:
        batch_op.drop_index("ix_legal_holds_record")

    op.drop_table("legal_holds")
    with op.batch_alter_table("knowledge_candidates", schema=None) as batch_op:
        batch_op.drop_index("ix_knowledge_candidates_queue")

    op.drop_table("knowledge_candidates")
