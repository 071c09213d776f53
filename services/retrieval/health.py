"""Index health for the admin page: is the active version complete, current and clean?"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from services.core.errors import IndexUnavailable
from services.db.engine import Database
from services.db.models import DocumentVersion, IndexChunk, IndexVersion
from services.retrieval.records import COLLECTION_PREFIX
from services.retrieval.vectorstore import VectorStore
from services.retrieval.versions import IndexVersionInfo

SAMPLE = 50  # how many offending ids a report lists


class IndexHealth(BaseModel):
    model_config = ConfigDict(frozen=True)

    space: str
    active: IndexVersionInfo | None
    sql_chunks: int = 0
    vector_count: int | None = None  # None: the store could not be reached
    approved_versions: int = 0
    indexed_versions: int = 0
    not_indexed: list[str] = Field(default_factory=list, description="approved, not searchable")
    stale: list[str] = Field(default_factory=list, description="indexed, no longer approved")
    orphan_vectors: int = 0  # in the store, unknown to SQL
    missing_vectors: int = 0  # in SQL, absent from the store
    leftover_collections: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_health(
    db: Database, store: VectorStore, *, space: str, active: IndexVersionInfo | None
) -> IndexHealth:
    if active is None:
        return IndexHealth(
            space=space, active=None, problems=["no active index: run `memdesk index rebuild`"]
        )
    with db.read() as session:
        approved = {
            (t, d, v): h
            for t, d, v, h in session.execute(
                select(
                    DocumentVersion.tenant_id,
                    DocumentVersion.document_id,
                    DocumentVersion.version,
                    DocumentVersion.content_hash,
                ).where(DocumentVersion.status == "approved")
            )
        }
        rows = session.execute(
            select(
                IndexChunk.chunk_id,
                IndexChunk.tenant_id,
                IndexChunk.document_id,
                IndexChunk.version,
                IndexChunk.content_hash,
            ).where(IndexChunk.index_version == active.index_version)
        ).all()
        known = {
            r.collection
            for r in session.scalars(select(IndexVersion))
            if r.status in ("active", "building", "verified")
        }
    indexed = {(t, d, v): h for _c, t, d, v, h in rows}
    sql_ids = {c for c, *_ in rows}
    not_indexed = sorted(f"{t}/{d}@{v}" for (t, d, v) in approved.keys() - indexed.keys())
    stale = sorted(
        f"{t}/{d}@{v}" for key, h in indexed.items() if approved.get(key) != h for t, d, v in [key]
    )
    problems: list[str] = []
    vector_count = None
    orphans = missing = 0
    leftovers: list[str] = []
    try:
        vector_count = store.count(active.collection)
        store_ids = {
            r.id
            for r in store.get(active.collection, where={"index_version": active.index_version})
        }
        orphans = len(store_ids - sql_ids)
        missing = len(sql_ids - store_ids)
        leftovers = sorted(
            name
            for name in store.collections()
            if name.startswith(COLLECTION_PREFIX) and name not in known
        )
    except IndexUnavailable as exc:
        problems.append(f"vector store unreachable: {exc}")
    if not_indexed:
        problems.append(f"{len(not_indexed)} approved version(s) not searchable yet (sync lag)")
    if stale:
        problems.append(f"{len(stale)} indexed version(s) no longer approved or changed")
    if orphans:
        problems.append(f"{orphans} vector(s) in the store that SQL does not know")
    if missing:
        problems.append(f"{missing} chunk(s) in SQL without a vector")
    if vector_count is not None and vector_count != len(sql_ids) and not (orphans or missing):
        problems.append(f"store holds {vector_count} vectors, SQL {len(sql_ids)} chunks")
    return IndexHealth(
        space=space,
        active=active,
        sql_chunks=len(sql_ids),
        vector_count=vector_count,
        approved_versions=len(approved),
        indexed_versions=len(indexed),
        not_indexed=not_indexed[:SAMPLE],
        stale=stale[:SAMPLE],
        orphan_vectors=orphans,
        missing_vectors=missing,
        leftover_collections=leftovers,
        problems=problems,
    )
