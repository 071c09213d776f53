"""Removing a document from the index and proving it is gone (never trusting delete's answer)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from services.db.engine import Database
from services.db.models import IndexChunk, IndexVersion
from services.retrieval.blocks import BlockBuilder
from services.retrieval.caches import RetrievalCaches
from services.retrieval.records import chunk_prefix
from services.retrieval.vectorstore import VectorStore
from services.retrieval.writer import ChunkWriter

LIVE_STATUSES = ("active", "verified", "building")


class PurgeReport(BaseModel):
    """Proof that a document's vectors and cache entries are gone, measured after deleting."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    document_id: str
    version: int | None
    index_versions: list[str]
    chunks_removed: int
    vectors_remaining: int
    sql_rows_remaining: int
    probe_hits: int
    cache_entries_evicted: int
    cache_entries_remaining: int

    @property
    def verified(self) -> bool:
        return (
            self.vectors_remaining == 0
            and self.sql_rows_remaining == 0
            and self.probe_hits == 0
            and self.cache_entries_remaining == 0
        )


def purge(
    *,
    db: Database,
    store: VectorStore,
    caches: RetrievalCaches,
    writer: ChunkWriter,
    blocks: BlockBuilder,
    space: str,
    tenant_id: str,
    document_id: str,
    version: int | None,
) -> PurgeReport:
    with db.read() as session:
        live = session.scalars(
            select(IndexVersion).where(IndexVersion.status.in_(LIVE_STATUSES))
        ).all()
        targets = [(row.index_version, row.collection) for row in live]
    where = _document_where(tenant_id, document_id, version)
    prefix = chunk_prefix(tenant_id, document_id, version)
    removed = 0
    probes = []
    for version_id, collection in targets:
        # SQL rows and whatever the store holds under the document's metadata (orphans too).
        in_store = store.get(collection, where=where, embeddings=True)
        ids = sorted(set(_chunk_ids(db, version_id, tenant_id, document_id, version)))
        ids = sorted(set(ids) | {r.id for r in in_store})
        probes += [(collection, r.id, r.embedding) for r in in_store if r.embedding is not None]
        writer.remove(version_id, collection, ids)
        removed += len(ids)
    evicted = caches.evict_chunks(caches.ids_with_prefix(prefix))
    # The tenant's block on disk is written again without them; any other that holds them goes.
    blocks.persist(space, tenant_id)
    on_disk = blocks.files.forget(tenant_id, prefix) if blocks.files is not None else 0
    remaining_vectors = remaining_rows = probe_hits = 0
    for version_id, collection in targets:
        remaining_vectors += len(store.get(collection, where=where))
        remaining_rows += len(_chunk_ids(db, version_id, tenant_id, document_id, version))
    for collection, chunk_id, embedding in probes:
        if store.count(collection) == 0:
            continue
        # Deleted vectors can linger in HNSW; search with their own embeddings to be sure.
        hits = store.query(collection, embedding=embedding, n_results=10, where=where)
        hits += store.query(collection, embedding=embedding, n_results=10)
        probe_hits += sum(1 for hit_id, _ in hits if hit_id == chunk_id)
    return PurgeReport(
        tenant_id=tenant_id,
        document_id=document_id,
        version=version,
        index_versions=[t[0] for t in targets],
        chunks_removed=removed,
        vectors_remaining=remaining_vectors,
        sql_rows_remaining=remaining_rows,
        probe_hits=probe_hits,
        cache_entries_evicted=evicted,
        cache_entries_remaining=caches.mentions(prefix) + on_disk,
    )


def _chunk_ids(
    db: Database, version_id: str, tenant_id: str, document_id: str, version: int | None
) -> list[str]:
    query = select(IndexChunk.chunk_id).where(
        IndexChunk.index_version == version_id,
        IndexChunk.tenant_id == tenant_id,
        IndexChunk.document_id == document_id,
    )
    if version is not None:
        query = query.where(IndexChunk.version == version)
    with db.read() as session:
        return list(session.scalars(query))


def _document_where(tenant_id: str, document_id: str, version: int | None) -> dict[str, object]:
    clauses: list[dict[str, object]] = [{"tenant_id": tenant_id}, {"document_id": document_id}]
    if version is not None:
        clauses.append({"document_version": version})
    return {"$and": clauses}
