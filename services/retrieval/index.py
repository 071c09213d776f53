"""Index versions: build, verify, switch atomically in SQL, sync incrementally, purge with proof."""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from services.core.clock import Clock, IdGenerator
from services.core.errors import IndexUnavailable
from services.db.engine import Database, refresh_statistics
from services.db.models import DocumentVersion, IndexChunk, IndexPointer, IndexVersion
from services.db.models_retrieval import IndexSyncPending
from services.records import audit
from services.retrieval.blocks import BlockBuilder, BlockFiles
from services.retrieval.caches import RetrievalCaches
from services.retrieval.chunker import CHUNKER_VERSION
from services.retrieval.embedders import Embedder
from services.retrieval.health import IndexHealth, check_health
from services.retrieval.purge import PurgeReport, purge
from services.retrieval.records import (
    DOC_META_FIELDS,
    IndexedDocument,
    chunk_records,
    collection_name,
    indexable_documents,
    space_key,
)
from services.retrieval.vectorstore import VectorStore
from services.retrieval.verification import verify_document, verify_version
from services.retrieval.versions import IndexVersionInfo, version_info
from services.retrieval.writer import ChunkWriter, delete_rows

log = logging.getLogger(__name__)

SYSTEM_TENANT = "*"  # audit entries about the index as a whole
REBUILD_STEPS = (
    "registered",
    "collection_created",
    "chunks_written",
    "verified",
    "switched",
    "previous_dropped",
)


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


class StagedDocument(BaseModel):
    """One document version written into the active index ahead of its switch."""

    model_config = ConfigDict(frozen=True)

    index_version: str
    collection: str
    tenant_id: str
    document_id: str
    version: int
    chunks: int


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
        indexing_embedder: Embedder | None = None,
        on_step: Callable[[str], None] | None = None,
        batch_size: int = 128,
        blocks_dir: Path | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self.embedder = embedder
        self.store = store
        self.caches = caches
        self.on_step = on_step
        # Documents are embedded by the model itself when `indexing_embedder` is given, not
        # through the vectors the serving side shares (services/retrieval/embedding_store.py).
        self.writer = ChunkWriter(
            db=db,
            store=store,
            embedder=indexing_embedder or embedder,
            caches=caches,
            batch_size=batch_size,
        )
        # Tenant blocks persisted under `blocks_dir` (none: each process builds its own).
        self.blocks = BlockBuilder(
            db=db, store=store, files=BlockFiles(blocks_dir) if blocks_dir else None
        )
        self._lock = threading.RLock()

    @property
    def space(self) -> str:
        return space_key(self.embedder)

    # ---- reads ---------------------------------------------------------------------------
    def active(self) -> IndexVersionInfo | None:
        with self._db.read() as session:
            row = self._active_row(session)
            return version_info(row) if row else None

    def versions(self) -> list[IndexVersionInfo]:
        with self._db.read() as session:
            rows = session.scalars(select(IndexVersion).order_by(IndexVersion.created_at)).all()
            return [version_info(row) for row in rows]

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
            try:
                self._step("registered")
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
                self.writer.write(collection, version_id, records)
                self._step("chunks_written")
                verify_version(
                    self._db,
                    self.store,
                    version_id=version_id,
                    collection=collection,
                    expected=len(records),
                )
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
        """Bring the active version in line with SQL for these tenants (all when None). A
        tenant synced here is no longer owed a deferred sync (see `defer`)."""
        with self._lock:
            started = self._clock.now()
            with self._db.read() as session:
                active = self._active_row(session)
                stale = active is not None and active.chunker_version != CHUNKER_VERSION
            if active is None or stale:
                info = self.rebuild(actor=actor)
                self._settle_deferred(None, started)
                return SyncReport(index_version=info.index_version, rebuilt=True)
            report = SyncReport(index_version=active.index_version)
            with self._db.read() as session:
                tenants = tenant_ids or _all_tenants(session, active.index_version)
            for tenant_id in sorted(tenants):
                report = _merge(report, self._sync_tenant(active, tenant_id, actor=actor))
                self._settle_deferred([tenant_id], started)
                self._persist_block(tenant_id)
            refresh_statistics(self._db.engine)
            return report

    def _persist_block(self, tenant_id: str) -> None:
        """The tenant's block for the chunk list just synced, on disk for the next process's
        first query; not having it costs that query time, never correctness."""
        try:
            self.blocks.persist(self.space, tenant_id)
        except (IndexUnavailable, OSError) as exc:
            log.warning("retrieval block of %s not persisted: %s", tenant_id, exc)

    # ---- deferred syncs: work owed while the index was unreachable ------------------------
    def defer(self, tenant_ids: list[str], *, reason: str) -> None:
        """Record in SQL that these tenants' documents changed but the index could not follow;
        the next import, `memdesk index sync` or worker start does it (`catch_up`)."""
        now = self._clock.now()
        with self._db.write() as session:
            for tenant_id in sorted(set(tenant_ids)):
                row = session.get(IndexSyncPending, tenant_id, with_for_update=True)
                if row is None:
                    session.add(IndexSyncPending(tenant_id=tenant_id, since=now, reason=reason))
                else:
                    row.reason = reason[:2000]

    def deferred(self) -> list[str]:
        """Tenants owed a sync."""
        with self._db.read() as session:
            return sorted(session.scalars(select(IndexSyncPending.tenant_id)))

    def catch_up(self, *, actor: str = "system:index") -> SyncReport | None:
        """Do the syncs deferred earlier (None: nothing was owed)."""
        tenants = self.deferred()
        return self.sync(tenants, actor=actor) if tenants else None

    def _settle_deferred(self, tenant_ids: list[str] | None, started: datetime) -> None:
        # Only what was deferred before this sync read SQL: a deferral recorded meanwhile by
        # another process may concern changes this sync did not see.
        with self._db.write() as session:
            query = delete(IndexSyncPending).where(IndexSyncPending.since <= started)
            if tenant_ids is not None:
                query = query.where(IndexSyncPending.tenant_id.in_(tenant_ids))
            session.execute(query)

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
            self.writer.remove(version_id, collection, doomed)
        records = [r for doc in add for r in chunk_records(doc)]
        if records:
            self.writer.write(collection, version_id, records)
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
        records = self.store.get(collection, ids=list(probes))
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

    # ---- staging one document version (publishing) --------------------------------------
    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold off this process's other index writers (sync, rebuild, purge) meanwhile."""
        with self._lock:
            yield

    def stage_document(self, document: IndexedDocument) -> StagedDocument:
        """Write one version's chunks into the active index before SQL makes it eligible.

        Retrieval only serves chunks of versions SQL calls current, so staged chunks stay
        invisible until the publisher's switch commits; `document.status` is what the version
        will be then, so the next sync finds nothing to re-embed. Staging is idempotent: chunks
        already there with this content are kept and only missing ones written, so two calls
        staging one version never remove each other's chunks; chunks of other content go first.
        """
        with self._lock:
            active = self.active() or self.rebuild()
            records = chunk_records(document)
            with self._db.read() as session:
                present = {
                    chunk_id: chash
                    for chunk_id, chash in session.execute(
                        select(IndexChunk.chunk_id, IndexChunk.content_hash).where(
                            IndexChunk.index_version == active.index_version,
                            IndexChunk.tenant_id == document.tenant_id,
                            IndexChunk.document_id == document.document_id,
                            IndexChunk.version == document.version,
                        )
                    )
                }
            wanted = {r.chunk_id for r in records}
            if set(present) - wanted or set(present.values()) - {document.content_hash}:
                self.unstage_document(
                    tenant_id=document.tenant_id,
                    document_id=document.document_id,
                    version=document.version,
                )
                present = {}
            missing = [r for r in records if r.chunk_id not in present]
            self.writer.write(active.collection, active.index_version, missing)
            return StagedDocument(
                index_version=active.index_version,
                collection=active.collection,
                tenant_id=document.tenant_id,
                document_id=document.document_id,
                version=document.version,
                chunks=len(records),
            )

    def verify_staged(self, staged: StagedDocument) -> None:
        """IndexVerificationFailed unless SQL, the store and a probe query agree on it."""
        verify_document(
            self._db,
            self.store,
            version_id=staged.index_version,
            collection=staged.collection,
            tenant_id=staged.tenant_id,
            document_id=staged.document_id,
            version=staged.version,
            expected=staged.chunks,
        )

    def unstage_document(self, *, tenant_id: str, document_id: str, version: int) -> int:
        """Remove one version's chunks from the active index (an abandoned publication). Never
        those of a version that serves: its SQL rows go in a transaction that locks the version
        row and finds it not approved, so a switch either sees them gone or keeps them.

        The vectors go inside that same transaction, before it commits. Deleted after it, they
        could belong to a re-stage of the same chunk ids by another process (a `publish` taking
        the publication over) that landed in between and switched in: SQL would then list
        chunks the store no longer has, which no SQL-side check can see."""
        with self._lock:
            active = self.active()
            if active is None:
                return 0
            with self._db.write() as session:
                row = session.get(
                    DocumentVersion,
                    (tenant_id, document_id, version),
                    with_for_update=True,
                    populate_existing=True,
                )
                if row is not None and row.status == "approved":
                    return 0
                ids = list(
                    session.scalars(
                        select(IndexChunk.chunk_id).where(
                            IndexChunk.index_version == active.index_version,
                            IndexChunk.tenant_id == tenant_id,
                            IndexChunk.document_id == document_id,
                            IndexChunk.version == version,
                        )
                    )
                )
                if not ids:
                    return 0
                delete_rows(session, active.index_version, ids)
                self.writer.remove_vectors(active.collection, ids)
            self.writer.evict(ids)
            return len(ids)

    # ---- purge and health --------------------------------------------------------------
    def purge_document(
        self,
        *,
        tenant_id: str,
        document_id: str,
        version: int | None,
        actor: str = "system:purge",
    ) -> PurgeReport:
        """Remove a document's (or one version's) vectors and cache entries, then prove it.

        The proof re-reads the store by id and by metadata, searches with the removed vectors
        themselves, and scans every cache; IndexUnavailable when anything is left.
        """
        with self._lock:
            report = purge(
                db=self._db,
                store=self.store,
                caches=self.caches,
                writer=self.writer,
                blocks=self.blocks,
                space=self.space,
                tenant_id=tenant_id,
                document_id=document_id,
                version=version,
            )
            with self._db.write() as session:
                audit.record(
                    session,
                    clock=self._clock,
                    tenant_id=tenant_id,
                    actor=actor,
                    action="index.purged" if report.verified else "index.purge_unverified",
                    subject_type="document",
                    subject_id=document_id if version is None else f"{document_id}@{version}",
                    detail=report.model_dump(mode="json"),
                )
        if not report.verified:
            raise IndexUnavailable(f"purge of {document_id} could not be verified: {report}")
        return report

    def health(self) -> IndexHealth:
        """For the admin page: active version, counts, lag behind SQL, orphans, leftovers."""
        return check_health(self._db, self.store, space=self.space, active=self.active())

    def _switch(self, version_id: str, *, actor: str) -> tuple[str, str] | None:
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
            return previous.index_version, previous.collection

    def _drop(self, previous: tuple[str, str]) -> None:
        """After the switch: failures here leave garbage for health(), never a broken index."""
        version_id, collection = previous
        try:
            self.store.drop_collection(collection)
            with self._db.write() as session:
                session.execute(delete(IndexChunk).where(IndexChunk.index_version == version_id))
                row = session.get(IndexVersion, version_id)
                if row is not None:
                    row.detail = {**row.detail, "dropped_at": self._clock.now().isoformat()}
            self.caches.evict_index_version(version_id)
            if self.blocks.files is not None:
                self.blocks.files.drop_version(version_id)
        except Exception as exc:
            log.warning("previous index %s not dropped yet: %s", version_id, exc)

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


def _all_tenants(session: Session, version_id: str) -> list[str]:
    with_docs = set(session.scalars(select(DocumentVersion.tenant_id).distinct()))
    indexed = set(
        session.scalars(
            select(IndexChunk.tenant_id).where(IndexChunk.index_version == version_id).distinct()
        )
    )
    return sorted(with_docs | indexed)


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
