"""security: a hash chain over each tenant's audit log, deferred index syncs, task customers

Revision ID: security_0001
Revises: console_0002

- `audit_log` gains `seq`, `prev_hash`, `entry_hash` (existing entries are chained here, in id
  order per tenant) and `audit_heads` holds each chain's last link. On SQLite a trigger refuses
  an INSERT over an existing id or below the highest one (REPLACE / INSERT OR REPLACE would
  otherwise rewrite an entry without firing the DELETE guard).
- `index_sync_pending`: tenants whose index sync was deferred because the index was down.
- `task_states.customer_id`: the task's confirmed customer, so customer scope is in the query.
- `publications.claim`: which `publish` call owns a publication (a later one takes it over).
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "security_0001"
down_revision = "console_0002"
branch_labels = None
depends_on = None

GENESIS = "sha256:" + "0" * 64


def _digest(row: Any, seq: int, prev_hash: str) -> str:
    # A frozen copy of services.records.audit.entry_digest as of this revision.
    at: datetime = row.at if row.at.tzinfo else row.at.replace(tzinfo=UTC)
    detail = row.detail if isinstance(row.detail, dict) else json.loads(row.detail or "{}")
    content = [
        row.tenant_id,
        seq,
        at.astimezone(UTC).isoformat(timespec="microseconds"),
        row.actor,
        row.action,
        row.subject_type,
        row.subject_id,
        row.before_ref,
        row.after_ref,
        detail,
        prev_hash,
    ]
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    # Plain ALTERs: batch mode on SQLite would recreate audit_log and lose its triggers. In the
    # insert guard, -1 is what SQLite shows a BEFORE trigger for an id it has yet to assign.
    op.add_column("audit_log", sa.Column("seq", sa.Integer(), nullable=True))
    op.add_column("audit_log", sa.Column("prev_hash", sa.String(length=80), nullable=True))
    op.add_column("audit_log", sa.Column("entry_hash", sa.String(length=80), nullable=True))
    op.create_index("ix_audit_log_chain", "audit_log", ["tenant_id", "seq"], unique=False)
    op.create_table(
        "audit_heads",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("entry_hash", sa.String(length=80), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_audit_heads")),
    )
    _chain_existing_entries(sqlite)
    if sqlite:
        op.execute(
            "CREATE TRIGGER audit_log_no_replace BEFORE INSERT ON audit_log "
            "WHEN NEW.id != -1 AND NEW.id <= (SELECT IFNULL(MAX(id), 0) FROM audit_log) "
            "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"
        )
    op.create_table(
        "index_sync_pending",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_index_sync_pending")),
    )
    op.add_column("task_states", sa.Column("customer_id", sa.String(length=128), nullable=True))
    _fill_task_customers()
    op.add_column("publications", sa.Column("claim", sa.String(length=40), nullable=True))


def _chain_existing_entries(sqlite: bool) -> None:
    """Chain what is there, once, with the append-only guard lifted for this migration only."""
    bind = op.get_bind()
    log = sa.table(
        "audit_log",
        sa.column("id", sa.Integer()),
        sa.column("at", sa.DateTime(timezone=True)),
        sa.column("tenant_id", sa.String()),
        sa.column("actor", sa.String()),
        sa.column("action", sa.String()),
        sa.column("subject_type", sa.String()),
        sa.column("subject_id", sa.String()),
        sa.column("before_ref", sa.String()),
        sa.column("after_ref", sa.String()),
        sa.column("detail", sa.JSON()),
        sa.column("seq", sa.Integer()),
        sa.column("prev_hash", sa.String()),
        sa.column("entry_hash", sa.String()),
    )
    heads = sa.table(
        "audit_heads",
        sa.column("tenant_id", sa.String()),
        sa.column("seq", sa.Integer()),
        sa.column("entry_hash", sa.String()),
    )
    rows = bind.execute(sa.select(log).order_by(log.c.tenant_id, log.c.id)).all()
    if not rows:
        return
    if sqlite:
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_update")
    else:
        op.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change")
    chains: dict[str, tuple[int, str]] = {}
    for row in rows:
        seq, previous = chains.get(row.tenant_id, (0, GENESIS))
        digest = _digest(row, seq + 1, previous)
        bind.execute(
            sa.update(log)
            .where(log.c.id == row.id)
            .values(seq=seq + 1, prev_hash=previous, entry_hash=digest)
        )
        chains[row.tenant_id] = (seq + 1, digest)
    bind.execute(
        sa.insert(heads),
        [{"tenant_id": t, "seq": s, "entry_hash": h} for t, (s, h) in sorted(chains.items())],
    )
    if sqlite:
        op.execute(
            "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log "
            "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"
        )
    else:
        op.execute("ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_change")


def _fill_task_customers() -> None:
    bind = op.get_bind()
    tasks = sa.table(
        "task_states",
        sa.column("tenant_id", sa.String()),
        sa.column("task_id", sa.String()),
        sa.column("confirmed", sa.JSON()),
        sa.column("customer_id", sa.String()),
    )
    for row in bind.execute(sa.select(tasks.c.tenant_id, tasks.c.task_id, tasks.c.confirmed)):
        confirmed = row.confirmed if isinstance(row.confirmed, dict) else {}
        customer = confirmed.get("customer_id")
        if isinstance(customer, str) and customer:
            bind.execute(
                sa.update(tasks)
                .where(tasks.c.tenant_id == row.tenant_id, tasks.c.task_id == row.task_id)
                .values(customer_id=customer[:128])
            )


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.drop_column("publications", "claim")
    op.drop_column("task_states", "customer_id")
    op.drop_table("index_sync_pending")
    if sqlite:
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_replace")
    op.drop_table("audit_heads")
    op.drop_index("ix_audit_log_chain", table_name="audit_log")
    op.drop_column("audit_log", "entry_hash")
    op.drop_column("audit_log", "prev_hash")
    op.drop_column("audit_log", "seq")
