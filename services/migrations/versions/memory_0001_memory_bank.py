"""memory bank: memories, revisions, topics, examples, policies

Revision ID: memory_0001
Revises: console_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "memory_0001"
down_revision = "console_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "memories",
        sa.Column("memory_id", sa.String(length=64), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("scope_key", sa.String(length=400), nullable=False),
        sa.Column("scope", sa.JSON(), nullable=False),
        sa.Column("topic", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("fact", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("embedding_model", sa.String(length=128), nullable=True),
        sa.Column("created_by", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expire_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("legal_hold", sa.Boolean(), nullable=False),
        sa.Column("legal_hold_reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], name=op.f("fk_memories_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("memory_id", name=op.f("pk_memories")),
    )
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.create_index("ix_memories_expire", ["expire_at"], unique=False)
        batch_op.create_index(
            "ix_memories_scope", ["tenant_id", "scope_key", "state"], unique=False
        )

    op.create_table(
        "memory_examples",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("memories", sa.JSON(), nullable=False),
        sa.Column("created_by", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], name=op.f("fk_memory_examples_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_examples")),
    )
    with op.batch_alter_table("memory_examples", schema=None) as batch_op:
        batch_op.create_index("ix_memory_examples_tenant", ["tenant_id", "id"], unique=False)

    op.create_table(
        "memory_policies",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("default_ttl_seconds", sa.Integer(), nullable=True),
        sa.Column("create_ttl_seconds", sa.Integer(), nullable=True),
        sa.Column("generate_created_ttl_seconds", sa.Integer(), nullable=True),
        sa.Column("generate_updated_ttl_seconds", sa.Integer(), nullable=True),
        sa.Column("granular", sa.Boolean(), nullable=False),
        sa.Column("revision_ttl_seconds", sa.Integer(), nullable=True),
        sa.Column("revisions_per_candidate_count", sa.Integer(), nullable=False),
        sa.Column("third_person", sa.Boolean(), nullable=False),
        sa.Column("similarity_threshold", sa.Float(), nullable=False),
        sa.Column("updated_by", sa.String(length=128), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], name=op.f("fk_memory_policies_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_memory_policies")),
    )
    op.create_table(
        "memory_topics",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=80), nullable=False),
        sa.Column("managed", sa.Boolean(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("keywords", sa.JSON(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("updated_by", sa.String(length=128), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], name=op.f("fk_memory_topics_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("tenant_id", "label", name=op.f("pk_memory_topics")),
    )
    op.create_table(
        "memory_revisions",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("memory_id", sa.String(length=64), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("topic", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("fact", sa.Text(), nullable=False),
        sa.Column("operation", sa.String(length=24), nullable=False),
        sa.Column("source", sa.JSON(), nullable=False),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("memory_expire_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expire_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["memory_id"],
            ["memories.memory_id"],
            name=op.f("fk_memory_revisions_memory_id_memories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_revisions")),
        sa.UniqueConstraint("memory_id", "revision", name="uq_memory_revisions_memory_revision"),
    )
    with op.batch_alter_table("memory_revisions", schema=None) as batch_op:
        batch_op.create_index("ix_memory_revisions_expire", ["expire_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("memory_revisions", schema=None) as batch_op:
        batch_op.drop_index("ix_memory_revisions_expire")

    op.drop_table("memory_revisions")
    op.drop_table("memory_topics")
    op.drop_table("memory_policies")
    with op.batch_alter_table("memory_examples", schema=None) as batch_op:
        batch_op.drop_index("ix_memory_examples_tenant")

    op.drop_table("memory_examples")
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.drop_index("ix_memories_scope")
        batch_op.drop_index("ix_memories_expire")

    op.drop_table("memories")
