"""Retrieval's own tables: a per-tenant change counter per index version, and deferred syncs."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from services.db.models import Base


class IndexTenantState(Base):
    """Bumped in the same transaction as every change to a tenant's chunks in an index version.

    Readers in any process compare it with the generation their cached chunk list was read at,
    so the cache can never serve a chunk list older than SQL's.
    """

    __tablename__ = "index_tenant_state"

    index_version: Mapped[str] = mapped_column(
        ForeignKey("index_versions.index_version", ondelete="CASCADE"), primary_key=True
    )
    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, default=0)


class IndexSyncPending(Base):
    """A tenant whose documents changed while the index could not be reached: the sync still
    owed. The next import, `memdesk index sync` or worker start does it and removes the row."""

    __tablename__ = "index_sync_pending"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    since: Mapped[datetime]
    reason: Mapped[str] = mapped_column(Text, default="")
