"""memory bank: customization configs per scope-key set, memory source and ACL, owed offers

Revision ID: memory_0002
Revises: console_0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "memory_0002"
down_revision = "console_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN where possible: SQLite batch mode would recreate the table.
    op.add_column("memories", sa.Column("source", sa.JSON(), nullable=True))
    op.add_column(
        "memories", sa.Column("acl", sa.JSON(), nullable=False, server_default='["tenant"]')
    )
    _backfill_sources()
    op.add_column(
        "memory_examples",
        sa.Column("scope_keys", sa.String(length=64), nullable=False, server_default=""),
    )
    op.drop_index("ix_memory_examples_tenant", table_name="memory_examples")
    op.create_index(
        "ix_memory_examples_config", "memory_examples", ["tenant_id", "scope_keys", "id"]
    )
    # The key of a topic now includes its config: the primary key changes (a table rebuild on
    # SQLite, which batch mode does).
    with op.batch_alter_table("memory_topics", recreate="auto") as batch:
        batch.add_column(
            sa.Column("scope_keys", sa.String(length=64), nullable=False, server_default="")
        )
        batch.drop_constraint("pk_memory_topics", type_="primary")
        batch.create_primary_key("pk_memory_topics", ["tenant_id", "scope_keys", "label"])
    op.create_table(
        "memory_customizations",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("scope_keys", sa.String(length=64), nullable=False),
        sa.Column("enable_third_person_memories", sa.Boolean(), nullable=False),
        sa.Column("revisions_per_candidate_count", sa.Integer(), nullable=False),
        sa.Column("disable_memory_revisions", sa.Boolean(), nullable=False),
        sa.Column("updated_by", sa.String(length=128), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.tenant_id"],
            name=op.f("fk_memory_customizations_tenant_id_tenants"),
        ),
        sa.PrimaryKeyConstraint("tenant_id", "scope_keys", name=op.f("pk_memory_customizations")),
    )
    # A tenant's phrasing and consolidation settings become its default config's.
    op.execute(
        "INSERT INTO memory_customizations (tenant_id, scope_keys, enable_third_person_memories, "
        "revisions_per_candidate_count, disable_memory_revisions, updated_by, updated_at) "
        "SELECT tenant_id, '', third_person, revisions_per_candidate_count, false, updated_by, "
        "updated_at FROM memory_policies"
    )
    op.drop_column("memory_policies", "third_person")  # SQLite >= 3.35 drops in place
    op.drop_column("memory_policies", "revisions_per_candidate_count")
    op.create_table(
        "memory_offers",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("task_id", sa.String(length=128), nullable=True),
        sa.Column("scope_key", sa.String(length=400), nullable=False),
        sa.Column("scope", sa.JSON(), nullable=False),
        sa.Column("event_id", sa.String(length=200), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("acl", sa.JSON(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("generation_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], name=op.f("fk_memory_offers_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_offers")),
        sa.UniqueConstraint("tenant_id", "scope_key", "event_id", name="uq_memory_offers_event"),
    )
    op.create_index("ix_memory_offers_owed", "memory_offers", ["status", "tenant_id", "task_id"])


def _backfill_sources() -> None:
    """Each memory's current source is its latest revision's."""
    bind = op.get_bind()
    revisions = sa.table(
        "memory_revisions",
        sa.column("memory_id", sa.String),
        sa.column("revision", sa.Integer),
        sa.column("source", sa.JSON),
    )
    memories = sa.table(
        "memories",
        sa.column("memory_id", sa.String),
        sa.column("revision", sa.Integer),
        sa.column("source", sa.JSON),
    )
    rows = bind.execute(
        sa.select(revisions.c.memory_id, revisions.c.source).select_from(
            revisions.join(
                memories,
                sa.and_(
                    memories.c.memory_id == revisions.c.memory_id,
                    memories.c.revision == revisions.c.revision,
                ),
            )
        )
    ).all()
    for memory_id, source in rows:
        bind.execute(
            memories.update().where(memories.c.memory_id == memory_id).values(source=source)
        )


def downgrade() -> None:
    op.drop_index("ix_memory_offers_owed", table_name="memory_offers")
    op.drop_table("memory_offers")
    op.add_column(
        "memory_policies",
        sa.Column("third_person", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column(
        "memory_policies",
        sa.Column(
            "revisions_per_candidate_count", sa.Integer(), nullable=False, server_default="1"
        ),
    )
    op.execute(
        "UPDATE memory_policies SET third_person = COALESCE((SELECT c.enable_third_person_memories "
        "FROM memory_customizations c WHERE c.tenant_id = memory_policies.tenant_id AND "
        "c.scope_keys = ''), false), revisions_per_candidate_count = COALESCE((SELECT "
        "c.revisions_per_candidate_count FROM memory_customizations c WHERE c.tenant_id = "
        "memory_policies.tenant_id AND c.scope_keys = ''), 1)"
    )
    op.drop_table("memory_customizations")
    op.execute("DELETE FROM memory_topics WHERE scope_keys <> ''")
    with op.batch_alter_table("memory_topics", recreate="auto") as batch:
        batch.drop_constraint("pk_memory_topics", type_="primary")
        batch.create_primary_key("pk_memory_topics", ["tenant_id", "label"])
        batch.drop_column("scope_keys")
    op.execute("DELETE FROM memory_examples WHERE scope_keys <> ''")
    op.drop_index("ix_memory_examples_config", table_name="memory_examples")
    op.create_index("ix_memory_examples_tenant", "memory_examples", ["tenant_id", "id"])
    op.drop_column("memory_examples", "scope_keys")
    op.drop_column("memories", "acl")
    op.drop_column("memories", "source")
