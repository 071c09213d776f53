"""Memory Bank tables: memories, their immutable revisions, and per-tenant topics and policy."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
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
from sqlalchemy.orm import Mapped, mapped_column

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


class MemoryTopicRow(Base):
    """A tenant's topic: a managed one switched on or off, or a custom label + description."""

    __tablename__ = "memory_topics"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
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
    __table_args__ = (Index("ix_memory_examples_tenant", "tenant_id", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    events: Mapped[list[Any]] = mapped_column(default=list)
    memories: Mapped[list[Any]] = mapped_column(default=list)  # [] = must produce no memory
    created_by: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]


class MemoryPolicyRow(Base):
    """A tenant's Memory Bank policy; absent means the settings' defaults."""

    __tablename__ = "memory_policies"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    default_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    create_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    generate_created_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    generate_updated_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    granular: Mapped[bool] = mapped_column(Boolean, default=False)
    revision_ttl_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    revisions_per_candidate_count: Mapped[int] = mapped_column(Integer, default=1)
    third_person: Mapped[bool] = mapped_column(Boolean, default=False)
    similarity_threshold: Mapped[float] = mapped_column(Float, default=0.6)
    updated_by: Mapped[str] = mapped_column(String(128))
    updated_at: Mapped[datetime]
