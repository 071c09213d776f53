"""The index version DTO shared by the index manager, its health check and the CLI."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from services.core.clock import as_utc
from services.db.models import IndexVersion


class IndexVersionInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    index_version: str
    collection: str
    embedding_model: str
    dimension: int
    chunker_version: str
    status: str
    chunk_count: int
    created_at: datetime
    activated_at: datetime | None
    detail: dict[str, object] = Field(default_factory=dict)


def version_info(row: IndexVersion) -> IndexVersionInfo:
    return IndexVersionInfo(
        index_version=row.index_version,
        collection=row.collection,
        embedding_model=row.embedding_model,
        dimension=row.dimension,
        chunker_version=row.chunker_version,
        status=row.status,
        chunk_count=row.chunk_count,
        created_at=as_utc(row.created_at),
        activated_at=as_utc(row.activated_at) if row.activated_at else None,
        detail=dict(row.detail),
    )
