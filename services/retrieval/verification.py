"""Checks a freshly built index version against SQL before it may serve: counts, hashes, probe."""

from __future__ import annotations

from sqlalchemy import func, select

from services.core.errors import IndexUnavailable
from services.db.engine import Database
from services.db.models import DocumentVersion, IndexChunk
from services.records.knowledge import content_hash
from services.retrieval.vectorstore import VectorStore


class IndexVerificationFailed(IndexUnavailable):
    """A freshly built index version did not match SQL; it was not activated."""


def verify_version(
    db: Database, store: VectorStore, *, version_id: str, collection: str, expected: int
) -> None:
    """Raise IndexVerificationFailed unless SQL and the store agree chunk by chunk."""
    with db.read() as session:
        sql_count = int(
            session.scalar(
                select(func.count())
                .select_from(IndexChunk)
                .where(IndexChunk.index_version == version_id)
            )
            or 0
        )
        tenants = list(
            session.scalars(
                select(IndexChunk.tenant_id)
                .where(IndexChunk.index_version == version_id)
                .distinct()
            )
        )
    store_count = store.count(collection)
    if not sql_count == store_count == expected:
        raise IndexVerificationFailed(
            f"index {version_id}: {expected} chunks expected, SQL holds {sql_count}, "
            f"the vector store {store_count}"
        )
    for tenant_id in tenants:  # one tenant's bodies in memory at a time
        _verify_tenant(db, store, version_id=version_id, collection=collection, tenant_id=tenant_id)
    if expected:
        _probe(db, store, version_id=version_id, collection=collection)


def verify_document(
    db: Database,
    store: VectorStore,
    *,
    version_id: str,
    collection: str,
    tenant_id: str,
    document_id: str,
    version: int,
    expected: int,
) -> None:
    """The same checks for one document version added to a serving index (publishing)."""
    with db.read() as session:
        held = int(
            session.scalar(
                select(func.count())
                .select_from(IndexChunk)
                .where(
                    IndexChunk.index_version == version_id,
                    IndexChunk.tenant_id == tenant_id,
                    IndexChunk.document_id == document_id,
                    IndexChunk.version == version,
                )
            )
            or 0
        )
    if held != expected or not expected:
        raise IndexVerificationFailed(
            f"index {version_id}: {document_id}@{version} has {held} chunks, {expected} expected"
        )
    _verify_tenant(
        db,
        store,
        version_id=version_id,
        collection=collection,
        tenant_id=tenant_id,
        document=(document_id, version),
    )


def _verify_tenant(
    db: Database,
    store: VectorStore,
    *,
    version_id: str,
    collection: str,
    tenant_id: str,
    document: tuple[str, int] | None = None,
) -> None:
    chunk_query = select(IndexChunk).where(
        IndexChunk.index_version == version_id, IndexChunk.tenant_id == tenant_id
    )
    body_query = select(DocumentVersion).where(DocumentVersion.tenant_id == tenant_id)
    if document is not None:
        chunk_query = chunk_query.where(
            IndexChunk.document_id == document[0], IndexChunk.version == document[1]
        )
        body_query = body_query.where(
            DocumentVersion.document_id == document[0], DocumentVersion.version == document[1]
        )
    with db.read() as session:
        chunks = {
            c.chunk_id: (c.document_id, c.version, c.start, c.end, c.content_hash)
            for c in session.scalars(chunk_query)
        }
        bodies = {
            (row.document_id, row.version): (row.body, row.content_hash)
            for row in session.scalars(body_query)
        }
    stored = {r.id: r for r in store.get(collection, ids=list(chunks))}
    for chunk_id, (doc_id, version, start, end, chash) in chunks.items():
        record = stored.get(chunk_id)
        body, doc_hash = bodies.get((doc_id, version), ("", ""))
        problem = None
        if record is None:
            problem = "vector missing"
        elif record.metadata.get("content_hash") != chash or chash != doc_hash:
            problem = "content hash differs"
        elif content_hash(body) != doc_hash:
            problem = "body no longer matches its content hash"
        elif not (0 <= start < end <= len(body)) or not body[start:end].strip():
            problem = "offsets do not slice a non-empty quote out of the body"
        elif record.metadata.get("index_version") != version_id:
            problem = "index version metadata differs"
        if problem:
            raise IndexVerificationFailed(f"index {version_id}: chunk {chunk_id}: {problem}")
    if document is not None and chunks:
        _probe_chunk(store, version_id=version_id, collection=collection, probe_id=min(chunks))


def _probe(db: Database, store: VectorStore, *, version_id: str, collection: str) -> None:
    """A real query must find a chunk by its own vector: the HNSW index answers, not only SQL."""
    with db.read() as session:
        probe_id = session.scalar(
            select(IndexChunk.chunk_id)
            .where(IndexChunk.index_version == version_id)
            .order_by(IndexChunk.chunk_id)
            .limit(1)
        )
    if probe_id is None:
        raise IndexVerificationFailed(f"index {version_id}: no chunk to probe")
    _probe_chunk(store, version_id=version_id, collection=collection, probe_id=probe_id)


def _probe_chunk(store: VectorStore, *, version_id: str, collection: str, probe_id: str) -> None:
    record = store.get(collection, ids=[probe_id], embeddings=True)
    if not record or record[0].embedding is None:
        raise IndexVerificationFailed(f"index {version_id}: probe chunk {probe_id} missing")
    hits = store.query(collection, embedding=record[0].embedding, n_results=5)
    if not any(hit_id == probe_id and distance < 1e-3 for hit_id, distance in hits):
        raise IndexVerificationFailed(
            f"index {version_id}: probe query did not find {probe_id} by its own vector"
        )
