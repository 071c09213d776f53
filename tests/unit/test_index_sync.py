"""Sync keeps the active version in line with SQL; health reports lag and orphans."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.retrieval.embedders import HashingEmbedder
from services.retrieval.records import indexable_documents
from services.settings import Settings
from tests.support.corpus import corpus_dict, doc, write_corpus
from tests.support.ids import SequentialIds
from tests.support.retrieval import AS_OF, fake_services, fake_store, load, who
from tests.support.vectors import InMemoryVectorStore

__all__ = ["fake_services", "fake_store"]


def _restrict_leadtime(services: Services, tmp_path: Path) -> str:
    """Re-import with SOP-LEADTIME@2 readable by engineers only; its signature in SQL after."""
    corpus = corpus_dict()
    for document in corpus["documents"]:
        if document["document_id"] == "SOP-LEADTIME" and document["version"] == 2:
            document["acl"] = ["role:engineer"]
    load(services, tmp_path, corpus)
    with services.db.read() as session:
        return {d.key: d.signature for d in indexable_documents(session)}[("SOP-LEADTIME", 2)]


def _leadtime_signatures(store: InMemoryVectorStore, collection: str) -> set[str]:
    return {
        meta["signature"]
        for _v, meta in store.data[collection].values()
        if meta["document_id"] == "SOP-LEADTIME" and meta["document_version"] == 2
    }


def test_an_acl_change_by_reimport_re_signs_the_vectors(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    active = fake_services.index.active()
    assert active is not None
    before = _leadtime_signatures(fake_store, active.collection)
    now = _restrict_leadtime(fake_services, tmp_path)
    # One signature per version, the new ACL's; governance itself is never stored in Chroma.
    assert _leadtime_signatures(fake_store, active.collection) == {now} != before
    assert all(
        set(meta)
        == {
            "tenant_id",
            "document_id",
            "document_version",
            "content_hash",
            "signature",
            "index_version",
        }
        for _v, meta in fake_store.data[active.collection].values()
    )
    sales = fake_services.retrieval.retrieve(who(fake_services, "a.sales"), "標準交期", as_of=AS_OF)
    assert all(e.document_id != "SOP-LEADTIME" for e in sales.evidence)
    engineer = fake_services.retrieval.retrieve(
        who(fake_services, "a.engineer"), "標準交期", as_of=AS_OF
    )
    assert engineer.evidence[0].ref == "SOP-LEADTIME@2"


def test_vectors_written_with_the_earlier_fuller_metadata_are_not_re_embedded(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    """An index written before Chroma kept six keys (status, validity, ACL, model, ... were
    stored too) has the same content hash and signature: a sync leaves it as it is."""
    load(fake_services, tmp_path)
    active = fake_services.index.active()
    assert active is not None
    held = fake_store.data[active.collection]
    ids = sorted(held)
    fake_store.update_metadata(
        active.collection,
        ids=ids,
        metadatas=[
            {
                **held[i][1],
                "status": "approved",
                "acl": ["tenant"],
                "valid_to": 99991231,
                "chunk_id": i,
                "embedding_model": "hashing",
                "chunker_version": "old",
            }
            for i in ids
        ],
    )
    report = fake_services.index.sync()
    assert (report.documents_added, report.metadata_updated, report.chunks_added) == ([], [], 0)
    now = _restrict_leadtime(
        fake_services, tmp_path
    )  # a real change is still seen, by its signature
    assert fake_services.index.health().ok
    assert _leadtime_signatures(fake_store, active.collection) == {now}


def test_a_change_made_by_another_process_is_seen_on_the_next_query(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path, sqlite_url: str
) -> None:
    """Two service stacks on one database (e.g. the console and the CLI)."""
    load(fake_services, tmp_path)
    sales = who(fake_services, "a.sales")
    first = fake_services.retrieval.retrieve(sales, "鍍鋅層厚度規範", as_of=AS_OF)
    assert all(e.document_id != "SOP-ZINC" for e in first.evidence)

    other = bootstrap.build(
        Settings(home=tmp_path / "home", database_url=sqlite_url),
        clock=FakeClock(),
        ids=SequentialIds(),
        vector_store=fake_store,
        embedder=HashingEmbedder(),
    )
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-ZINC", 1, body="鍍鋅層厚度規範：鍍鋅層厚度為 12 µm。"))
    other.importer.import_file(write_corpus(tmp_path / "more.json", corpus))
    other.close()
    second = fake_services.retrieval.retrieve(sales, "鍍鋅層厚度規範", as_of=AS_OF)
    assert second.evidence[0].document_id == "SOP-ZINC"


def test_health_reports_unsearchable_versions_and_orphan_vectors(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    healthy = fake_services.index.health()
    assert healthy.ok and healthy.sql_chunks == healthy.vector_count

    fake_store.down = True  # the import commits, the sync after it cannot reach the index
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-NEW", 1, body="新增的作業規定。"))
    load(fake_services, tmp_path, corpus)
    fake_store.down = False
    active = fake_services.index.active()
    assert active is not None
    fake_store.upsert(
        active.collection,
        ids=["A/GHOST@1#0"],
        embeddings=np.ones((1, 256), dtype=np.float32) / 16,
        metadatas=[{"index_version": active.index_version, "document_id": "GHOST"}],
    )
    report = fake_services.index.health()
    assert not report.ok
    assert report.not_indexed == ["A/SOP-NEW@1"]
    assert report.orphan_vectors == 1
