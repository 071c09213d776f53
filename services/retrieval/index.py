"""Index versions: build, verify, switch atomically in SQL, sync incrementally, purge with proof."""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from typing import TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from services import audit
from services.clock import Clock, IdGenerator, as_utc
from services.db.engine import Database
from services.db.models import DocumentVersion, IndexChunk, IndexPointer, IndexVersion
from services.errors import IndexUnavailable
from services.knowledge import content_hash
from services.retrieval.caches import RetrievalCaches
from services.retrieval.chunker import CHUNKER_VERSION
from services.retrieval.embedders import Embedder, Vectors
from services.retrieval.records import (
    DOC_META_FIELDS,
    ChunkRecord,
    IndexedDocument,
    chunk_records,
    collection_name,
    indexable_documents,
    space_key,
)
from services.retrieval.vectorstore import VectorStore

log = logging.getLogger(__name__)
T = TypeVar("T")

SYSTEM_TENANT = "*"  # audit entries about the index as a whole
REBUILD_STEPS = (
    "registered",
    "collection_created",
    "chunks_written",
    "verified",
    "switched",
    "previous_dropped",
)


class IndexVerificationFailed(IndexUnavailable):
    """A freshly built index version did not match SQL; it was not activated."""


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


class SyncReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    index_version: str
    rebuilt: bool = False
    tenants: list[str] = Field(default_factory=list)
    documents_added: list[str] = Field(default_factory=list)
    documents_removed: list[str] = Field(default_factory=list)
    metadata_updated: list[str] = Field(default_factory=list)
    chunks_added: int = 0
    chunks_removed: int = 0


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


class IndexManager:
    """Owns the index lifecycle. One writer at a time per process (a lock), SQL holds the truth."""

    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        ids: IdGenerator,
        embedder: Embedder,
        store: VectorStore,
        caches: RetrievalCaches,
        on_step: Callable[[str], None] | None = None,
        batch_size: int = 128,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self.embedder = embedder
        self.store = store
        self.caches = caches
        self.on_step = on_step
        self._batch = batch_size
        self._lock = threading.RLock()

    @property
    def space(self) -> str:
        return space_key(self.embedder)

    # ---- reads ---------------------------------------------------------------------------
    def active(self) -> IndexVersionInfo | None:
        with self._db.read() as session:
            row = self._active_row(session)
            return _info(row) if row else None

    def versions(self) -> list[IndexVersionInfo]:
        with self._db.read() as session:
            rows = session.scalars(select(IndexVersion).order_by(IndexVersion.created_at)).all()
            return [_info(row) for row in rows]

    # ---- rebuild -------------------------------------------------------------------------
    def rebuild(self, *, actor: str = "system:index") -> IndexVersionInfo:
        """Build a new version from SQL, verify it, switch the pointer, then drop the old one.

        Until the switch commits, readers keep using the previous version; any failure before
        it marks the new version failed and removes what it wrote.
        """
        with self._lock:
            self._cleanup_failed()
            version_id = self._ids.new("iv")
            collection = collection_name(self.embedder, version_id)
            with self._db.write() as session:
                session.add(
                    IndexVersion(
                        index_version=version_id,
                        collection=collection,
                        embedding_model=self.embedder.name,
                        dimension=self.embedder.dimension,
                        chunker_version=CHUNKER_VERSION,
                        status="building",
                        chunk_count=0,
                        created_at=self._clock.now(),
                        detail={"space": self.space},
                    )
                )
            self._step("registered")
            try:
                self.store.create_collection(
                    collection,
                    metadata={
                        "embedding_model": self.embedder.name,
                        "dimension": self.embedder.dimension,
                        "chunker_version": CHUNKER_VERSION,
                        "index_version": version_id,
                    },
                )
                self._step("collection_created")
                with self._db.read() as session:
                    documents = indexable_documents(session)
                records = [r for doc in documents for r in chunk_records(doc)]
                self._write(collection, version_id, records, sql_rows=True)
                self._step("chunks_written")
                self._verify(version_id, collection, expected=len(records))
                with self._db.write() as session:
                    row = session.get(IndexVersion, version_id)
                    assert row is not None
                    row.status = "verified"
                    row.chunk_count = len(records)
                self._step("verified")
            except BaseException as exc:
                self._abandon(version_id, collection, reason=f"{type(exc).__name__}: {exc}")
                raise
            previous = self._switch(version_id, actor=actor)
            self._step("switched")
            if previous is not None:
                self._drop(previous)
            self._step("previous_dropped")
        # Documents changed while this version was being built are picked up now.
        self.sync()
        info = self.active()
        assert info is not None
        return info

    # ---- incremental sync ----------------------------------------------------------------
    def sync(
        self, tenant_ids: list[str] | None = None, *, actor: str = "system:index"
    ) -> SyncReport:
        """Bring the active version in line with SQL for these tenants (all when None)."""
        with self._lock:
            with self._db.read() as session:
                active = self._active_row(session)
                stale = active is not None and active.chunker_version != CHUNKER_VERSION
            if active is None or stale:
                info = self.rebuild(actor=actor)
                return SyncReport(index_version=info.index_version, rebuilt=True)
            report = SyncReport(index_version=active.index_version)
            with self._db.read() as session:
                tenants = tenant_ids or _all_tenants(session, active.index_version)
            for tenant_id in sorted(tenants):
                report = _merge(report, self._sync_tenant(active, tenant_id, actor=actor))
            return report

    def _sync_tenant(self, active: IndexVersion, tenant_id: str, *, actor: str) -> SyncReport:
        version_id, collection = active.index_version, active.collection
        with self._db.read() as session:
            wanted = {d.key: d for d in indexable_documents(session, tenant_ids=[tenant_id])}
            held: dict[tuple[str, int], list[tuple[str, str]]] = defaultdict(list)
            for doc_id, version, chunk_id, chash in session.execute(
                select(
                    IndexChunk.document_id,
                    IndexChunk.version,
                    IndexChunk.chunk_id,
                    IndexChunk.content_hash,
                ).where(IndexChunk.index_version == version_id, IndexChunk.tenant_id == tenant_id)
            ):
                held[(doc_id, version)].append((chunk_id, chash))
        remove = {
            key
            for key, chunks in held.items()
            if key not in wanted or chunks[0][1] != wanted[key].content_hash
        }
        changed = self._metadata_drift(collection, wanted, held, exclude=remove)
        remove |= changed  # re-embedded: the title is part of what was embedded
        add = [doc for key, doc in wanted.items() if key not in held or key in remove]
        doomed = [chunk_id for key in remove for chunk_id, _ in held[key]]
        if doomed:
            self._remove_chunks(version_id, collection, doomed)
        records = [r for doc in add for r in chunk_records(doc)]
        if records:
            self._write(collection, version_id, records, sql_rows=True)
        if doomed or records:
            with self._db.write() as session:
                row = session.get(IndexVersion, version_id)
                if row is not None:
                    row.chunk_count = int(
                        session.scalar(
                            select(func.count())
                            .select_from(IndexChunk)
                            .where(IndexChunk.index_version == version_id)
                        )
                        or 0
                    )
                audit.record(
                    session,
                    clock=self._clock,
                    tenant_id=tenant_id,
                    actor=actor,
                    action="index.synced",
                    subject_type="index",
                    subject_id=version_id,
                    detail={
                        "added": sorted(f"{d}@{v}" for d, v in (doc.key for doc in add)),
                        "removed": sorted(f"{d}@{v}" for d, v in remove),
                    },
                )
        return SyncReport(
            index_version=version_id,
            tenants=[tenant_id],
            documents_added=[f"{tenant_id}/{d.document_id}@{d.version}" for d in add],
            documents_removed=[f"{tenant_id}/{d}@{v}" for d, v in sorted(remove)],
            metadata_updated=[f"{tenant_id}/{d}@{v}" for d, v in sorted(changed)],
            chunks_added=len(records),
            chunks_removed=len(doomed),
        )

    def _metadata_drift(
        self,
        collection: str,
        wanted: dict[tuple[str, int], IndexedDocument],
        held: dict[tuple[str, int], list[tuple[str, str]]],
        *,
        exclude: set[tuple[str, int]],
    ) -> set[tuple[str, int]]:
        """Versions whose ACL, validity, title or class changed since they were indexed."""
        probes = {held[key][0][0]: key for key in held if key in wanted and key not in exclude}
        if not probes:
            return set()
        records = self.store.get(collection, ids=list(probes), documents=False)
        changed = {
            probes[record.id]
            for record in records
            if any(
                record.metadata.get(f) != wanted[probes[record.id]].metadata().get(f)
                for f in DOC_META_FIELDS
            )
        }
        found = {record.id for record in records}
        # A vector missing from the store is re-written too (e.g. after an outside deletion).
        changed |= {key for chunk_id, key in probes.items() if chunk_id not in found}
        return changed

    # ---- purge ---------------------------------------------------------------------------
    def purge_document(
        self,
        *,
        tenant_id: str,
        document_id: str,
        version: int | None,
        actor: str = "system:purge",
    ) -> PurgeReport:
        """Remove a document's (or one version's) vectors and cache entries, then prove it."""
        with self._lock:
            with self._db.read() as session:
                live = session.scalars(
                    select(IndexVersion).where(
                        IndexVersion.status.in_(["active", "verified", "building"])
                    )
                ).all()
                targets = [(row.index_version, row.collection) for row in live]
            where = _document_where(tenant_id, document_id, version)
            removed = 0
            vectors: list[tuple[str, list[float]]] = []
            for version_id, collection in targets:
                chunk_ids = self._chunk_ids(version_id, tenant_id, document_id, version)
                in_store = self.store.get(collection, where=where, embeddings=True, documents=False)
                ids = sorted(set(chunk_ids) | {r.id for r in in_store})
                vectors += [(r.id, list(r.embedding)) for r in in_store if r.embedding is not None]
                self._remove_chunks(version_id, collection, ids)
                removed += len(ids)
            evicted = self.caches.evict_chunks(
                c for c in self._cached_ids(tenant_id, document_id, version)
            )
            prefix = f"{tenant_id}/{document_id}@" + (f"{version}#" if version is not None else "")
            remaining_vectors = probe_hits = remaining_rows = 0
            for version_id, collection in targets:
                remaining_vectors += len(self.store.get(collection, where=where, documents=False))
                remaining_rows += len(self._chunk_ids(version_id, tenant_id, document_id, version))
                if self.store.count(collection) == 0:
                    continue
                # Deleted vectors can linger in HNSW; query with their own embeddings to be sure.
                for chunk_id, embedding in vectors:
                    hits = self.store.query(
                        collection, embedding=_array(embedding), n_results=10, where=where
                    )
                    hits += self.store.query(collection, embedding=_array(embedding), n_results=10)
                    probe_hits += sum(1 for hit_id, _ in hits if hit_id == chunk_id)
            report = PurgeReport(
                tenant_id=tenant_id,
                document_id=document_id,
                version=version,
                index_versions=[t[0] for t in targets],
                chunks_removed=removed,
                vectors_remaining=remaining_vectors,
                sql_rows_remaining=remaining_rows,
                probe_hits=probe_hits,
                cache_entries_evicted=evicted,
                cache_entries_remaining=self.caches.mentions(prefix),
            )
            with self._db.write() as session:
                audit.record(
                    session,
                    clock=self._clock,
                    tenant_id=tenant_id,
                    actor=actor,
                    action="index.purged" if report.verified else "index.purge_failed",
                    subject_type="document",
                    subject_id=document_id if version is None else f"{document_id}@{version}",
                    detail=report.model_dump(mode="json"),
                )
            if not report.verified:
                raise IndexUnavailable(
                    f"purge of {document_id} could not be verified: {report.model_dump()}"
                )
            return report

    def _cached_ids(self, tenant_id: str, document_id: str, version: int | None) -> list[str]:
        prefix = f"{tenant_id}/{document_id}@" + (f"{version}#" if version is not None else "")
        ids: set[str] = set()
        for _key, view in self.caches.views.items():
            ids.update(c for c in view.chunk_ids if c.startswith(prefix))
        for _rkey, ranking in self.caches.rankings.items():
            ids.update(c.chunk_id for c in ranking if c.chunk_id.startswith(prefix))
        ids.update(self.caches.block_ids_with_prefix(prefix))
        return sorted(ids)

    def _chunk_ids(
        self, version_id: str, tenant_id: str, document_id: str, version: int | None
    ) -> list[str]:
        query = select(IndexChunk.chunk_id).where(
            IndexChunk.index_version == version_id,
            IndexChunk.tenant_id == tenant_id,
            IndexChunk.document_id == document_id,
        )
        if version is not None:
            query = query.where(IndexChunk.version == version)
        with self._db.read() as session:
            return list(session.scalars(query))

    # ---- writing and removing chunks -----------------------------------------------------
    def _write(
        self, collection: str, version_id: str, records: Sequence[ChunkRecord], *, sql_rows: bool
    ) -> None:
        """Embed and store in batches; Chroma writes overlap with embedding the next batch.

        Vectors go in before their SQL rows, so SQL never names a chunk the store lacks. If a
        batch fails, the vectors already written by this call are removed again.
        """
        written: list[str] = []
        try:
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="index-writer") as pool:
                pending: Future[None] | None = None
                for batch in _batches(records, self._batch):
                    vectors = self.embedder.embed([r.embed_text for r in batch])
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

    def _store_batch(
        self,
        collection: str,
        version_id: str,
        batch: Sequence[ChunkRecord],
        vectors: Vectors,
        written: list[str],
    ) -> None:
        ids = [r.chunk_id for r in batch]
        self.store.upsert(
            collection,
            ids=ids,
            embeddings=vectors,
            documents=[r.chunk.text for r in batch],
            metadatas=[r.metadata(index_version=version_id, embedder=self.embedder) for r in batch],
        )
        written.extend(ids)
        with self._db.write() as session:
            session.execute(
                insert(IndexChunk),
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

    def _forget(self, collection: str, version_id: str, chunk_ids: list[str]) -> None:
        """Best-effort compensation after a failed write: nothing half-written stays visible."""
        if not chunk_ids:
            return
        try:
            with self._db.write() as session:
                for batch in _batches(chunk_ids, 1000):
                    session.execute(
                        delete(IndexChunk).where(
                            IndexChunk.index_version == version_id,
                            IndexChunk.chunk_id.in_(batch),
                        )
                    )
            self.store.delete(collection, ids=chunk_ids)
        except Exception as exc:  # the store may be the thing that is down; health reports it
            log.warning("could not remove %d half-written chunks: %s", len(chunk_ids), exc)

    def _remove_chunks(self, version_id: str, collection: str, chunk_ids: Sequence[str]) -> None:
        """SQL rows first (readers stop using the chunks at once), then vectors and caches."""
        if not chunk_ids:
            return
        with self._db.write() as session:
            for batch in _batches(list(chunk_ids), 1000):
                session.execute(
                    delete(IndexChunk).where(
                        IndexChunk.index_version == version_id, IndexChunk.chunk_id.in_(batch)
                    )
                )
        self.store.delete(collection, ids=list(chunk_ids))
        left = self.store.get(collection, ids=list(chunk_ids), documents=False)
        if left:
            raise IndexUnavailable(f"{len(left)} vectors were still present after delete")
        self.caches.evict_chunks(chunk_ids)

    # ---- verification and switching ------------------------------------------------------
    def _verify(self, version_id: str, collection: str, *, expected: int) -> None:
        with self._db.read() as session:
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
        store_count = self.store.count(collection)
        if not sql_count == store_count == expected:
            raise IndexVerificationFailed(
                f"index {version_id}: {expected} chunks expected, SQL holds {sql_count}, "
                f"the vector store {store_count}"
            )
        for tenant_id in tenants:
            self._verify_tenant(version_id, collection, tenant_id)
        if expected:
            self._probe(version_id, collection)

    def _verify_tenant(self, version_id: str, collection: str, tenant_id: str) -> None:
        with self._db.read() as session:
            chunks = (
                session.execute(
                    select(IndexChunk).where(
                        IndexChunk.index_version == version_id, IndexChunk.tenant_id == tenant_id
                    )
                )
                .scalars()
                .all()
            )
            bodies = {
                (row.document_id, row.version): (row.body, row.content_hash)
                for row in session.scalars(
                    select(DocumentVersion).where(DocumentVersion.tenant_id == tenant_id)
                )
            }
            expected = {
                c.chunk_id: (c.document_id, c.version, c.start, c.end, c.content_hash)
                for c in chunks
            }
        stored = {r.id: r for r in self.store.get(collection, ids=list(expected))}
        for chunk_id, (doc_id, version, start, end, chash) in expected.items():
            record = stored.get(chunk_id)
            body, doc_hash = bodies.get((doc_id, version), ("", ""))
            problems = []
            if record is None:
                problems.append("vector missing")
            elif record.metadata.get("content_hash") != chash or chash != doc_hash:
                problems.append("content hash differs")
            elif content_hash(body) != doc_hash:
                problems.append("body no longer matches its content hash")
            elif record.document != body[start:end]:
                problems.append("stored text does not re-slice the body")
            elif record.metadata.get("index_version") != version_id:
                problems.append("index version metadata differs")
            if problems:
                raise IndexVerificationFailed(
                    f"index {version_id}: chunk {chunk_id}: {problems[0]}"
                )

    def _probe(self, version_id: str, collection: str) -> None:
        with self._db.read() as session:
            probe_id = session.scalar(
                select(IndexChunk.chunk_id)
                .where(IndexChunk.index_version == version_id)
                .order_by(IndexChunk.chunk_id)
                .limit(1)
            )
        assert probe_id is not None
        record = self.store.get(collection, ids=[probe_id], embeddings=True, documents=False)
        if not record or record[0].embedding is None:
            raise IndexVerificationFailed(f"index {version_id}: probe chunk {probe_id} missing")
        hits = self.store.query(collection, embedding=record[0].embedding, n_results=5)
        if not any(hit_id == probe_id and distance < 1e-3 for hit_id, distance in hits):
            raise IndexVerificationFailed(
                f"index {version_id}: probe query did not find {probe_id} by its own vector"
            )

    def _switch(self, version_id: str, *, actor: str) -> IndexVersion | None:
        """One transaction: the pointer moves, the new version is active, the old one retired."""
        now = self._clock.now()
        with self._db.write() as session:
            pointer = session.get(IndexPointer, self.space)
            previous = session.get(IndexVersion, pointer.index_version) if pointer else None
            if pointer is None:
                session.add(
                    IndexPointer(name=self.space, index_version=version_id, switched_at=now)
                )
            else:
                pointer.index_version = version_id
                pointer.switched_at = now
            new = session.get(IndexVersion, version_id)
            assert new is not None
            new.status = "active"
            new.activated_at = now
            if previous is not None and previous.index_version != version_id:
                previous.status = "retired"
            audit.record(
                session,
                clock=self._clock,
                tenant_id=SYSTEM_TENANT,
                actor=actor,
                action="index.switched",
                subject_type="index",
                subject_id=version_id,
                before_ref=previous.index_version if previous else None,
                after_ref=version_id,
                detail={"space": self.space, "chunks": new.chunk_count},
            )
            if previous is None or previous.index_version == version_id:
                return None
            session.expunge(previous)
            return previous

    def _drop(self, previous: IndexVersion) -> None:
        """After the switch: failures here leave garbage for health(), never a broken index."""
        try:
            self.store.drop_collection(previous.collection)
            with self._db.write() as session:
                session.execute(
                    delete(IndexChunk).where(IndexChunk.index_version == previous.index_version)
                )
                row = session.get(IndexVersion, previous.index_version)
                if row is not None:
                    row.detail = {**row.detail, "dropped_at": self._clock.now().isoformat()}
            self.caches.evict_index_version(previous.index_version)
        except Exception as exc:
            log.warning("previous index %s not dropped yet: %s", previous.index_version, exc)

    def _abandon(self, version_id: str, collection: str, *, reason: str) -> None:
        try:
            with self._db.write() as session:
                session.execute(delete(IndexChunk).where(IndexChunk.index_version == version_id))
                row = session.get(IndexVersion, version_id)
                if row is not None:
                    row.status = "failed"
                    row.detail = {**row.detail, "error": reason[:500]}
            self.store.drop_collection(collection)
        except Exception as exc:
            log.warning("failed index %s not cleaned up yet: %s", version_id, exc)

    def _cleanup_failed(self) -> None:
        """Drop collections of failed/retired versions that an earlier run could not remove."""
        with self._db.read() as session:
            rows = session.scalars(
                select(IndexVersion).where(IndexVersion.status.in_(["failed", "retired"]))
            ).all()
            leftovers = [r.collection for r in rows if "dropped_at" not in r.detail]
            names = [r.index_version for r in rows if "dropped_at" not in r.detail]
        if not leftovers:
            return
        present = set(self.store.collections())
        for collection in leftovers:
            if collection in present:
                self.store.drop_collection(collection)
        with self._db.write() as session:
            for version_id in names:
                session.execute(delete(IndexChunk).where(IndexChunk.index_version == version_id))
                row = session.get(IndexVersion, version_id)
                if row is not None:
                    row.detail = {**row.detail, "dropped_at": self._clock.now().isoformat()}

    def _active_row(self, session: Session) -> IndexVersion | None:
        pointer = session.get(IndexPointer, self.space)
        return session.get(IndexVersion, pointer.index_version) if pointer else None

    def _step(self, name: str) -> None:
        if self.on_step is not None:
            self.on_step(name)

    def close(self) -> None:
        self.store.close()


def _info(row: IndexVersion) -> IndexVersionInfo:
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


def _all_tenants(session: Session, version_id: str) -> list[str]:
    with_docs = set(session.scalars(select(DocumentVersion.tenant_id).distinct()))
    indexed = set(
        session.scalars(
            select(IndexChunk.tenant_id).where(IndexChunk.index_version == version_id).distinct()
        )
    )
    return sorted(with_docs | indexed)


def _document_where(tenant_id: str, document_id: str, version: int | None) -> dict[str, object]:
    clauses: list[dict[str, object]] = [{"tenant_id": tenant_id}, {"document_id": document_id}]
    if version is not None:
        clauses.append({"document_version": version})
    return {"$and": clauses}


def _merge(a: SyncReport, b: SyncReport) -> SyncReport:
    return SyncReport(
        index_version=b.index_version,
        rebuilt=a.rebuilt or b.rebuilt,
        tenants=a.tenants + b.tenants,
        documents_added=a.documents_added + b.documents_added,
        documents_removed=a.documents_removed + b.documents_removed,
        metadata_updated=a.metadata_updated + b.metadata_updated,
        chunks_added=a.chunks_added + b.chunks_added,
        chunks_removed=a.chunks_removed + b.chunks_removed,
    )


def _batches(items: Sequence[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _array(values: list[float]) -> Vectors:
    return np.asarray(values, dtype=np.float32)
