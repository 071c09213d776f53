"""Memory Bank tables: memories and their revisions, customization configs, policy, owed offers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from services.db.models import Base, BigId


class MemoryRow(Base):
    """The current state of one memory. Its history lives in `memory_revisions`."""

    __tablename__ = "memories"
    __table_args__ = (
        # Retrieval is always tenant + exact scope; the scope key is the canonical string.
        Index("ix_memories_scope", "tenant_id", "scope_key", "state"),
        Index("ix_memories_expire", "expire_at"),
    )

    memory_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    scope_key: Mapped[str] = mapped_column(String(400))
    scope: Mapped[dict[str, Any]] = mapped_column(default=dict)
    topic: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(40), default="fact")
    fact: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16), default="active")  # active | deleted
    revision: Mapped[int] = mapped_column(Integer, default=1)
    # The fact's vector (float32 bytes) and the space it lives in; re-embedded when it changes.
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    embedding_model: Mapped[str | None] = mapped_column(String(128), default=None)
    created_by: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    expire_at: Mapped[datetime | None] = mapped_column(default=None)
    legal_hold: Mapped[bool] = mapped_column(Boolean, default=False)
    legal_hold_reason: Mapped[str | None] = mapped_column(Text, default=None)
    # Where the current fact came from (kept here too: with revisions disabled it is the only
    # provenance), and who may read it: a memory drawn from a mail keeps that mail's ACL.
    source: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    acl: Mapped[list[Any]] = mapped_column(default=lambda: ["tenant"])


class MemoryRevisionRow(Base):
    """One immutable change of a memory, with the event it came from. Never updated."""

    __tablename__ = "memory_revisions"
    __table_args__ = (
        UniqueConstraint("memory_id", "revision", name="uq_memory_revisions_memory_revision"),
        ForeignKeyConstraint(["memory_id"], ["memories.memory_id"], ondelete="CASCADE"),
        Index("ix_memory_revisions_expire", "expire_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    memory_id: Mapped[str] = mapped_column(String(64))
    tenant_id: Mapped[str] = mapped_column(String(64))
    revision: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(16))  # created | updated | deleted | rolled_back
    topic: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(40))
    fact: Mapped[str] = mapped_column(Text)
    operation: Mapped[str] = mapped_column(String(24))  # create | generate | rollback | delete
    source: Mapped[dict[str, Any]] = mapped_column(default=dict)
    actor: Mapped[str] = mapped_column(String(128))
    at: Mapped[datetime]
    memory_expire_at: Mapped[datetime | None] = mapped_column(default=None)
    expire_at: Mapped[datetime | None] = mapped_column(default=None)
    # Never loaded or set: declared so that a flush inserts new memories before the revision
    # rows that reference them, each table in one statement, whatever order they were added in.
    memory: Mapped[MemoryRow] = relationship(lazy="raise", viewonly=False)


class MemoryTopicRow(Base):
    """A config's topic: a managed one switched on or off, or a custom label + description.
    `scope_keys` names the customization config ("" = the tenant's default config)."""

    __tablename__ = "memory_topics"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    scope_keys: Mapped[str] = mapped_column(String(64), primary_key=True, default="")
    label: Mapped[str] = mapped_column(String(80), primary_key=True)
    managed: Mapped[bool] = mapped_column(Boolean, default=False)
    description: Mapped[str] = mapped_column(Text, default="")
    keywords: Mapped[list[Any]] = mapped_column(default=list)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    updated_by: Mapped[str] = mapped_column(String(128))
    updated_at: Mapped[datetime]


class MemoryExampleRow(Base):
    """A few-shot example: conversation events and the memories they must (or must not) yield."""

    __tablename__ = "memory_examples"
    __table_args__ = (Index("ix_memory_examples_config", "tenant_id", "scope_keys", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    scope_keys: Mapped[str] = mapped_column(String(64), default="")
    events: Mapped[list[Any]] = mapped_column(default=list)
    memories: Mapped[list[Any]] = mapped_column(default=list)  # [] = must produce no memory
    created_by: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]


class MemoryCustomizationRow(Base):
    """A customization config's settings, keyed by an exact set of scope keys ("user_id",
    "customer_id,task_id"; "" is the tenant's default config). Its topics and examples live in
    memory_topics and memory_examples under the same key. No default row = the settings'."""

    __tablename__ = "memory_customizations"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    scope_keys: Mapped[str] = mapped_column(String(64), primary_key=True)
    enable_third_person_memories: Mapped[bool] = mapped_column(Boolean, default=False)
    revisions_per_candidate_count: Mapped[int] = mapped_column(Integer, default=1)
    disable_memory_revisions: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_by: Mapped[str] = mapped_column(String(128))
    updated_at: Mapped[datetime]


class MemoryOfferRow(Base):
    """Conversation events a run offered the bank for one scope, until generated. A failed
    generation stays `pending` (with its error) and is retried by the task's next run or an
    idle worker; (tenant, scope, event) is offered once, however often a run is retried."""

    __tablename__ = "memory_offers"
    __table_args__ = (
        UniqueConstraint("tenant_id", "scope_key", "event_id", name="uq_memory_offers_event"),
        Index("ix_memory_offers_owed", "status", "tenant_id", "task_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    task_id: Mapped[str | None] = mapped_column(String(128), default=None)
    scope_key: Mapped[str] = mapped_column(String(400))
    scope: Mapped[dict[str, Any]] = mapped_column(default=dict)
    event_id: Mapped[str] = mapped_column(String(200))
    events: Mapped[list[Any]] = mapped_column(default=list)
    acl: Mapped[list[Any]] = mapped_column(default=list)
    run_id: Mapped[str] = mapped_column(String(64))  # the run that received the events
    actor: Mapped[str] = mapped_column(String(128))  # whose rights the generation runs with
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending | done
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text, default=None)
    generation_id: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[datetime]
    done_at: Mapped[datetime | None] = mapped_column(default=None)


class MemoryPolicyRow(Base):
    """A tenant's Memory Bank TTL and similarity policy; absent means the settings' defaults."""

    __tablename__ = "memory_policies"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    default_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    create_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    generate_created_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    generate_updated_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    granular: Mapped[bool] = mapped_column(Boolean, default=False)
    revision_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    similarity_threshold: Mapped[float] = mapped_column(Float, default=0.6)
    updated_by: Mapped[str] = mapped_column(String(128))
    updated_at: Mapped[datetime]
