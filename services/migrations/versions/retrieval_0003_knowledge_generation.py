"""retrieval: a per-tenant knowledge generation, moved by the database on every change to what
may be read (document_versions and document_acl)

Revision ID: retrieval_0003
Revises: security_0002

Retrieval memoizes a principal's eligible (document, version) set under this counter, read in
the same query as the index generation: any insert, update or delete of a version or an ACL row,
by any code or by hand, moves it in the same transaction, so a memo can never outlive the rows
it was read from. The counter only grows; nothing deletes its rows.

SQLite fires the triggers as each row changes (its writers are serialized anyway). PostgreSQL
runs them as deferred constraint triggers, at commit: the counter row of a tenant is then locked
last in every transaction, after the tenant's audit head and any other row it takes, so two
writers of one tenant wait for each other there instead of deadlocking.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "retrieval_0003"
down_revision = "security_0002"
branch_labels = None
depends_on = None

_TABLES = ("document_versions", "document_acl")
_BUMP_SQLITE = (
    "INSERT INTO knowledge_generations (tenant_id, generation) VALUES ({row}.tenant_id, 1) "
    "ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1;"
)
_PG_FUNCTION = """
CREATE FUNCTION memdesk_bump_knowledge_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO knowledge_generations (tenant_id, generation) VALUES (OLD.tenant_id, 1)
        ON CONFLICT (tenant_id)
        DO UPDATE SET generation = knowledge_generations.generation + 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO knowledge_generations (tenant_id, generation) VALUES (NEW.tenant_id, 1)
        ON CONFLICT (tenant_id)
        DO UPDATE SET generation = knowledge_generations.generation + 1;
    END IF;
    RETURN NULL;
END
$$
"""
_PG_TRUNCATE_FUNCTION = """
CREATE FUNCTION memdesk_bump_all_knowledge_generations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE knowledge_generations SET generation = generation + 1;
    RETURN NULL;
END
$$
"""


def upgrade() -> None:
    op.create_table(
        "knowledge_generations",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_knowledge_generations")),
    )
    if op.get_bind().dialect.name == "postgresql":
        _postgresql_triggers()
    else:
        _sqlite_triggers()
    # Tenants that already have knowledge start at 1.
    op.execute(
        "INSERT INTO knowledge_generations (tenant_id, generation) "
        "SELECT DISTINCT tenant_id, 1 FROM document_versions"
    )


def _sqlite_triggers() -> None:
    for table in _TABLES:
        op.execute(
            f"CREATE TRIGGER {table}_knowledge_insert AFTER INSERT ON {table} "
            f"BEGIN {_BUMP_SQLITE.format(row='NEW')} END"
        )
        op.execute(
            f"CREATE TRIGGER {table}_knowledge_update AFTER UPDATE ON {table} "
            f"BEGIN {_BUMP_SQLITE.format(row='OLD')} {_BUMP_SQLITE.format(row='NEW')} END"
        )
        op.execute(
            f"CREATE TRIGGER {table}_knowledge_delete AFTER DELETE ON {table} "
            f"BEGIN {_BUMP_SQLITE.format(row='OLD')} END"
        )


def _postgresql_triggers() -> None:
    op.execute(_PG_FUNCTION)
    op.execute(_PG_TRUNCATE_FUNCTION)
    for table in _TABLES:
        op.execute(
            f"CREATE CONSTRAINT TRIGGER {table}_knowledge AFTER INSERT OR UPDATE OR DELETE "
            f"ON {table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
            "EXECUTE FUNCTION memdesk_bump_knowledge_generation()"
        )
        # TRUNCATE fires no row trigger: every tenant's counter moves.
        op.execute(
            f"CREATE TRIGGER {table}_knowledge_truncate AFTER TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION memdesk_bump_all_knowledge_generations()"
        )


def downgrade() -> None:
    bind = op.get_bind()
    for table in _TABLES:
        if bind.dialect.name == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {table}_knowledge ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_knowledge_truncate ON {table}")
        else:
            for event in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_knowledge_{event}")
    if bind.dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS memdesk_bump_knowledge_generation()")
        op.execute("DROP FUNCTION IF EXISTS memdesk_bump_all_knowledge_generations()")
    op.drop_table("knowledge_generations")
