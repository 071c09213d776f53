"""Writes chunks into an index version (vectors first, then SQL rows) and removes them again."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from services.core.errors import IndexUnavailable
from services.db.engine import Database, insert_for
from services.db.models import IndexChunk
from services.db.models_retrieval import IndexTenantState
from services.retrieval.caches import RetrievalCaches
from services.retrieval.embedders import Embedder, Vectors
from services.retrieval.records import ChunkRecord
from services.retrieval.vectorstore import VectorStore

log = logging.getLogger(__name__)
T = TypeVar("T")


class ChunkWriter:
    def __init__(
        self,
        *,
        db: Database,
        store: VectorStore,
        embedder: Embedder,
        caches: RetrievalCaches,
        batch_size: int = 128,
    ) -> None:
        self._db = db
        self._store = store
        self._embedder = embedder
        self._caches = caches
        self._batch = batch_size

    def write(self, collection: str, version_id: str, records: Sequence[ChunkRecord]) -> None:
        """Embed and store in batches; Chroma writes overlap with embedding the next batch.

        Vectors go in before their SQL rows, so SQL never names a chunk the store lacks. If a
        batch fails, everything this call wrote is removed again (nothing half-written stays).
        """
        written: list[str] = []
        try:
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="index-writer") as pool:
                pending: Future[None] | None = None
                for batch in batches(records, self._batch):
                    vectors = self._embedder.embed([r.embed_text for r in batch])
                    if pending is not None:
                        pending.result()
                    pending = pool.submit(
                        self._store_batch, collection, version_id, batch, vectors, written
                    )
                if pending is not None:
                    pending.result()
        except BaseException:
            self._forget(collection, version_id, written)
            raise

    def remove(self, version_id: str, collection: str, chunk_ids: Sequence[str]) -> None:
        """SQL rows first (readers stop using the chunks at once), then vectors and caches."""
        if not chunk_ids:
            return
        with self._db.write() as session:
            delete_rows(session, version_id, list(chunk_ids))
        self.remove_vectors(collection, chunk_ids)
        self._caches.evict_chunks(chunk_ids)

    def remove_vectors(self, collection: str, chunk_ids: Sequence[str]) -> None:
        """The vectors alone: a caller that must delete them before its SQL transaction commits
        (so nobody can stage the same chunk ids in between) calls this inside it."""
        self._store.delete(collection, ids=list(chunk_ids))
        # Chroma's delete reports success for ids it never had; only a read-back proves it.
        left = self._store.get(collection, ids=list(chunk_ids))
        if left:
            raise IndexUnavailable(f"{len(left)} vectors were still present after delete")

    def evict(self, chunk_ids: Sequence[str]) -> None:
        self._caches.evict_chunks(chunk_ids)

    def _store_batch(
        self,
        collection: str,
        version_id: str,
        batch: Sequence[ChunkRecord],
        vectors: Vectors,
        written: list[str],
    ) -> None:
        ids = [r.chunk_id for r in batch]
        self._store.upsert(
            collection,
            ids=ids,
            embeddings=vectors,
            metadatas=[r.metadata(index_version=version_id) for r in batch],
        )
        written.extend(ids)
        with self._db.write() as session:
            # A chunk row another writer of the same version inserted first stays as it is
            # (same id, same content): staging one version twice never fails on it.
            session.execute(
                insert_for(session, IndexChunk).on_conflict_do_nothing(),
                [
                    {
                        "index_version": version_id,
                        "chunk_id": r.chunk_id,
                        "tenant_id": r.document.tenant_id,
                        "document_id": r.document.document_id,
                        "version": r.document.version,
                        "start": r.chunk.start,
                        "end": r.chunk.end,
                        "content_hash": r.document.content_hash,
                    }
                    for r in batch
                ],
            )
            bump_generations(session, version_id, {r.document.tenant_id for r in batch})

    def _forget(self, collection: str, version_id: str, chunk_ids: list[str]) -> None:
        if not chunk_ids:
            return
        try:
            with self._db.write() as session:
                delete_rows(session, version_id, chunk_ids)
            self._store.delete(collection, ids=chunk_ids)
        except Exception as exc:  # the store may be what is down; health() reports leftovers
            log.warning("could not remove %d half-written chunks: %s", len(chunk_ids), exc)


def delete_rows(session: Session, version_id: str, chunk_ids: list[str]) -> None:
    tenants: set[str] = set()
    for batch in batches(chunk_ids, 1000):
        where = (IndexChunk.index_version == version_id, IndexChunk.chunk_id.in_(batch))
        tenants.update(session.scalars(select(IndexChunk.tenant_id).where(*where).distinct()))
        session.execute(delete(IndexChunk).where(*where))
    bump_generations(session, version_id, tenants)


def bump_generations(session: Session, version_id: str, tenant_ids: set[str]) -> None:
    """In the caller's transaction: readers' cached chunk lists of these tenants are now old."""
    for tenant_id in sorted(tenant_ids):
        changed = session.execute(
            update(IndexTenantState)
            .where(
                IndexTenantState.index_version == version_id,
                IndexTenantState.tenant_id == tenant_id,
            )
            .values(generation=IndexTenantState.generation + 1)
        )
        if not changed.rowcount:  # type: ignore[attr-defined]
            session.add(
                IndexTenantState(index_version=version_id, tenant_id=tenant_id, generation=1)
            )
            session.flush()


def batches(items: Sequence[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
