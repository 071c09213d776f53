"""SQLAlchemy 2.x typed models. Alembic (services/migrations) owns the schema built from these."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names so migrations stay identical on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Autoincrementing ids: BIGINT on PostgreSQL, INTEGER (rowid alias) on SQLite.
BigId = BigInteger().with_variant(Integer(), "sqlite")
UtcDateTime = DateTime(timezone=True)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UtcDateTime,
        dict[str, Any]: JSON,
        list[Any]: JSON,
    }


class Tenant(Base):
    __tablename__ = "tenants"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    completed_task_retention_days: Mapped[int | None] = mapped_column(Integer, default=None)
    created_at: Mapped[datetime]


class User(Base):
    __tablename__ = "users"

    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), index=True)
    display_name: Mapped[str] = mapped_column(String(200), default="")
    email: Mapped[str | None] = mapped_column(String(320), unique=True, default=None)
    roles: Mapped[list[Any]] = mapped_column(default=list)
    grants: Mapped[list[Any]] = mapped_column(default=list)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime]


class LocalCredential(Base):
    """Local-account passwords (argon2), apart from the directory the corpus import rewrites."""

    __tablename__ = "local_credentials"

    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.user_id", ondelete="CASCADE"), primary_key=True
    )
    password_hash: Mapped[str] = mapped_column(String(200))
    failed_attempts: Mapped[int] = mapped_column(Integer, default=0)
    locked_until: Mapped[datetime | None] = mapped_column(default=None)
    changed_by: Mapped[str] = mapped_column(String(128))
    changed_at: Mapped[datetime]
    last_login_at: Mapped[datetime | None] = mapped_column(default=None)


class ConsoleSession(Base):
    """A local-account console session. The browser's cookie holds the session's random id and
    its signature; only the id's SHA-256 is stored, so a copy of this table opens no session."""

    __tablename__ = "console_sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.user_id", ondelete="CASCADE"), index=True
    )
    tenant_id: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]
    last_seen_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)
    revoked_reason: Mapped[str | None] = mapped_column(String(64), default=None)


class TaskRow(Base):
    __tablename__ = "task_states"
    # The inbox pages one tenant's tasks by last activity (10,000+ tasks per tenant).
    __table_args__ = (Index("ix_task_states_tenant_updated", "tenant_id", "updated_at"),)

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    task_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    revision: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(32), index=True)
    confirmed: Mapped[dict[str, Any]] = mapped_column(default=dict)
    pending: Mapped[list[Any]] = mapped_column(default=list)
    next_step: Mapped[str | None] = mapped_column(String(200), default=None)
    evidence_ids: Mapped[list[Any]] = mapped_column(default=list)
    # Open conflicts on confirmed fields, for a person to settle: [{field, confirmed, proposed,..}]
    conflicts: Mapped[list[Any]] = mapped_column(default=list)
    created_by: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime] = mapped_column(index=True)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)
    expires_at: Mapped[datetime | None] = mapped_column(default=None, index=True)
    legal_hold: Mapped[bool] = mapped_column(Boolean, default=False)
    legal_hold_reason: Mapped[str | None] = mapped_column(Text, default=None)
    # The customer the task serves (its confirmed `customer_id`), kept as a column so that who
    # may see the task is decided inside the query, like the ACL of a document.
    customer_id: Mapped[str | None] = mapped_column(String(128), default=None)


class TaskEvent(Base):
    """One row per change to a task: the timeline and the before/after of every write."""

    __tablename__ = "task_events"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tenant_id", "task_id"],
            ["task_states.tenant_id", "task_states.task_id"],
            ondelete="CASCADE",
        ),
        Index("ix_task_events_task", "tenant_id", "task_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    task_id: Mapped[str] = mapped_column(String(128))
    revision: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(40))
    actor: Mapped[str] = mapped_column(String(128))
    run_id: Mapped[str | None] = mapped_column(String(64), default=None)
    at: Mapped[datetime]
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)


class TaskCheckpoint(Base):
    """A full snapshot at every hand-off, with the evidence it relied on (for re-validation)."""

    __tablename__ = "task_checkpoints"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tenant_id", "task_id"],
            ["task_states.tenant_id", "task_states.task_id"],
            ondelete="CASCADE",
        ),
        Index("ix_task_checkpoints_task", "tenant_id", "task_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    task_id: Mapped[str] = mapped_column(String(128))
    revision: Mapped[int] = mapped_column(Integer)
    stage: Mapped[str] = mapped_column(String(40))
    run_id: Mapped[str | None] = mapped_column(String(64), default=None)
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # [{"evidence_id", "document_id", "version", "content_hash"}]: re-checked on resume.
    relied_on: Mapped[list[Any]] = mapped_column(default=list)
    at: Mapped[datetime]


class DocumentVersion(Base):
    __tablename__ = "document_versions"
    # Covers the eligible-versions query of every retrieval (migration retrieval_0002).
    __table_args__ = (
        Index(
            "ix_document_versions_eligible",
            "tenant_id",
            "status",
            "valid_from",
            "valid_to",
            "document_id",
            "version",
        ),
    )

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    document_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    doc_type: Mapped[str] = mapped_column(String(20))
    knowledge_class: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))
    valid_from: Mapped[date] = mapped_column(Date)
    valid_to: Mapped[date | None] = mapped_column(Date, default=None)
    language: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(80))
    customer_id: Mapped[str | None] = mapped_column(String(128), default=None)
    acl: Mapped[list[Any]] = mapped_column(default=list)
    approved_by: Mapped[str | None] = mapped_column(String(128), default=None)
    approved_at: Mapped[datetime | None] = mapped_column(default=None)
    created_by: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]
    status_changed_at: Mapped[datetime]
    status_reason: Mapped[str | None] = mapped_column(Text, default=None)
    legal_hold: Mapped[bool] = mapped_column(Boolean, default=False)


class DocumentAcl(Base):
    """ACL entries as rows, so readability is a positive allow-list join inside the query."""

    __tablename__ = "document_acl"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tenant_id", "document_id", "version"],
            [
                "document_versions.tenant_id",
                "document_versions.document_id",
                "document_versions.version",
            ],
            ondelete="CASCADE",
        ),
        Index("ix_document_acl_tag", "tenant_id", "tag"),
    )

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    document_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    tag: Mapped[str] = mapped_column(String(200), primary_key=True)


class Approval(Base):
    """Approval requests, idempotent on tenant + task + decision_version + item."""

    __tablename__ = "approvals"
    __table_args__ = (
        UniqueConstraint(
            "tenant_id", "task_id", "decision_version", "item_key", name="uq_approvals_key"
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    task_id: Mapped[str] = mapped_column(String(128))
    decision_version: Mapped[int] = mapped_column(Integer)
    item_key: Mapped[str] = mapped_column(String(128), default="draft")
    kind: Mapped[str] = mapped_column(String(32), default="draft")
    required_role: Mapped[str] = mapped_column(String(40), default="sales")
    run_id: Mapped[str | None] = mapped_column(String(64), default=None)
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    payload_hash: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(20), default="pending", index=True)
    requested_by: Mapped[str] = mapped_column(String(128))
    requested_at: Mapped[datetime]
    decided_by: Mapped[str | None] = mapped_column(String(128), default=None)
    decided_at: Mapped[datetime | None] = mapped_column(default=None)
    comment: Mapped[str | None] = mapped_column(Text, default=None)
    # What an engineer confirmed, in fields (services/approvals/engineering.py EngineeringResult).
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)


class AuditEntry(Base):
    """Append-only: database triggers refuse UPDATE and DELETE (see the initial migration) and,
    on SQLite, an INSERT over an existing id (REPLACE). Each tenant's entries form a hash chain
    (`seq`, `prev_hash`, `entry_hash`; services/records/audit.py), checked by `audit verify`."""

    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_log_tenant_at", "tenant_id", "at"),
        Index("ix_audit_log_chain", "tenant_id", "seq"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    at: Mapped[datetime]
    tenant_id: Mapped[str] = mapped_column(String(64))
    actor: Mapped[str] = mapped_column(String(128))
    action: Mapped[str] = mapped_column(String(64), index=True)
    subject_type: Mapped[str] = mapped_column(String(40))
    subject_id: Mapped[str] = mapped_column(String(300))
    before_ref: Mapped[str | None] = mapped_column(String(300), default=None)
    after_ref: Mapped[str | None] = mapped_column(String(300), default=None)
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)
    seq: Mapped[int | None] = mapped_column(Integer, default=None)
    prev_hash: Mapped[str | None] = mapped_column(String(120), default=None)
    entry_hash: Mapped[str | None] = mapped_column(String(120), default=None)


class AuditHead(Base):
    """The last link of each tenant's audit chain. Appending locks this row, so the entries of
    one tenant are chained one writer at a time (other tenants never wait)."""

    __tablename__ = "audit_heads"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, default=0)
    entry_hash: Mapped[str] = mapped_column(String(120))


class IndexVersion(Base):
    """One build of the vector index; exactly one row is pointed at by `index_pointer`."""

    __tablename__ = "index_versions"

    index_version: Mapped[str] = mapped_column(String(64), primary_key=True)
    collection: Mapped[str] = mapped_column(String(128))
    embedding_model: Mapped[str] = mapped_column(String(128))
    dimension: Mapped[int] = mapped_column(Integer)
    chunker_version: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(20))  # building, verified, active, retired, failed
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime]
    activated_at: Mapped[datetime | None] = mapped_column(default=None)
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)


class IndexPointer(Base):
    """The active index version per embedding space; switching it is one UPDATE."""

    __tablename__ = "index_pointer"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    index_version: Mapped[str] = mapped_column(ForeignKey("index_versions.index_version"))
    switched_at: Mapped[datetime]


class IndexChunk(Base):
    """What each index version holds, mirrored in SQL: for BM25, verification and orphan checks."""

    __tablename__ = "index_chunks"
    __table_args__ = (
        ForeignKeyConstraint(
            ["index_version"], ["index_versions.index_version"], ondelete="CASCADE"
        ),
        # Covers the tenant's chunk list (services.retrieval.eligibility.load_chunk_table), so
        # a principal's first query reads it from the index alone; a document's chunks by prefix.
        Index(
            "ix_index_chunks_doc",
            "index_version",
            "tenant_id",
            "document_id",
            "version",
            "chunk_id",
            "start",
            "end",
            "content_hash",
        ),
    )

    index_version: Mapped[str] = mapped_column(String(64), primary_key=True)
    chunk_id: Mapped[str] = mapped_column(String(300), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    document_id: Mapped[str] = mapped_column(String(200))
    version: Mapped[int] = mapped_column(Integer)
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(80))


class Run(Base):
    """A resumed run of a task: the SQL queue workers claim from."""

    __tablename__ = "runs"
    __table_args__ = (
        Index("ix_runs_queue", "status", "available_at"),
        Index("ix_runs_task", "tenant_id", "task_id"),
    )

    run_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    task_id: Mapped[str] = mapped_column(String(128))
    requested_by: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(20))
    supplement: Mapped[str | None] = mapped_column(Text, default=None)
    as_of: Mapped[date | None] = mapped_column(Date, default=None)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    available_at: Mapped[datetime]
    claimed_by: Mapped[str | None] = mapped_column(String(128), default=None)
    heartbeat_at: Mapped[datetime | None] = mapped_column(default=None)
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    prompt_id: Mapped[str | None] = mapped_column(String(64), default=None)
    prompt_version: Mapped[str | None] = mapped_column(String(32), default=None)
    model: Mapped[str | None] = mapped_column(String(128), default=None)
    model_calls: Mapped[int] = mapped_column(Integer, default=0)
    tokens_in: Mapped[int] = mapped_column(Integer, default=0)
    tokens_out: Mapped[int] = mapped_column(Integer, default=0)
    cost_usd: Mapped[float] = mapped_column(default=0.0)
    decision: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    review: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    timings: Mapped[dict[str, Any]] = mapped_column(default=dict)


class RunEvent(Base):
    """Hand-off packets, model calls, retries and cancels of a run, in order."""

    __tablename__ = "run_events"
    __table_args__ = (Index("ix_run_events_run", "run_id", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.run_id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(40))
    source_agent: Mapped[str | None] = mapped_column(String(20), default=None)
    target_agent: Mapped[str | None] = mapped_column(String(20), default=None)
    schema_version: Mapped[str | None] = mapped_column(String(40), default=None)
    at: Mapped[datetime]
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
