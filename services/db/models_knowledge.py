"""Publishing and retention tables: candidate knowledge, publications, legal holds, policies."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from services.db.models import Base, BigId


class CandidateRow(Base):
    """Proposed knowledge: always an `inference` until a knowledge owner approves it."""

    __tablename__ = "knowledge_candidates"
    __table_args__ = (Index("ix_knowledge_candidates_queue", "tenant_id", "status"),)

    candidate_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    document_id: Mapped[str] = mapped_column(String(200))
    # The approved version the proposal was written against (None: a new document).
    base_version: Mapped[int | None] = mapped_column(Integer, default=None)
    doc_type: Mapped[str] = mapped_column(String(20))
    knowledge_class: Mapped[str] = mapped_column(String(20), default="inference")
    title: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)
    acl: Mapped[list[Any]] = mapped_column(default=list)
    language: Mapped[str] = mapped_column(String(20))
    customer_id: Mapped[str | None] = mapped_column(String(128), default=None)
    origin: Mapped[str] = mapped_column(String(20))  # correction, inference, memory
    # [{kind, ref, document_id, version, start, end, quote}] resolved when proposed.
    sources: Mapped[list[Any]] = mapped_column(default=list)
    run_id: Mapped[str | None] = mapped_column(String(64), default=None)
    rationale: Mapped[str | None] = mapped_column(Text, default=None)
    status: Mapped[str] = mapped_column(String(20))
    proposed_by: Mapped[str] = mapped_column(String(128))
    proposed_at: Mapped[datetime]
    decided_by: Mapped[str | None] = mapped_column(String(128), default=None)
    decided_at: Mapped[datetime | None] = mapped_column(default=None)
    decision_comment: Mapped[str | None] = mapped_column(Text, default=None)
    published_version: Mapped[int | None] = mapped_column(Integer, default=None)


class PublicationRow(Base):
    """One attempt to publish a candidate; its steps make a crashed attempt resumable."""

    __tablename__ = "publications"
    __table_args__ = (Index("ix_publications_candidate", "tenant_id", "candidate_id"),)

    publication_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    candidate_id: Mapped[str] = mapped_column(
        ForeignKey("knowledge_candidates.candidate_id", ondelete="CASCADE")
    )
    document_id: Mapped[str] = mapped_column(String(200))
    version: Mapped[int] = mapped_column(Integer)
    previous_version: Mapped[int | None] = mapped_column(Integer, default=None)
    status: Mapped[str] = mapped_column(String(20))
    steps: Mapped[list[Any]] = mapped_column(default=list)
    index_version: Mapped[str | None] = mapped_column(String(64), default=None)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    # Which `publish` call works on it now: a later call takes it over (resuming a crashed one),
    # and every step of the earlier call then stops before it touches the index or SQL.
    claim: Mapped[str | None] = mapped_column(String(40), default=None)
    started_by: Mapped[str] = mapped_column(String(128))
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class LegalHoldRow(Base):
    """A legal hold on one record; lifting keeps the row (who, when, why) for the record."""

    __tablename__ = "legal_holds"
    __table_args__ = (Index("ix_legal_holds_record", "tenant_id", "record_type", "record_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"))
    record_type: Mapped[str] = mapped_column(String(20))  # task, document, memory, ...
    record_id: Mapped[str] = mapped_column(String(300))
    reason: Mapped[str] = mapped_column(Text)
    set_by: Mapped[str] = mapped_column(String(128))
    set_at: Mapped[datetime]
    lifted_by: Mapped[str | None] = mapped_column(String(128), default=None)
    lifted_at: Mapped[datetime | None] = mapped_column(default=None)
    lift_reason: Mapped[str | None] = mapped_column(Text, default=None)


class RetentionPolicyRow(Base):
    """How long a tenant keeps finished records of one type (tasks keep their tenant column)."""

    __tablename__ = "retention_policies"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    record_type: Mapped[str] = mapped_column(String(20), primary_key=True)
    days: Mapped[int] = mapped_column(Integer)
    updated_by: Mapped[str] = mapped_column(String(128))
    updated_at: Mapped[datetime]
