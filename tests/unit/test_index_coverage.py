"""Index coverage: a sync owed while the index was unreachable is recorded and done by the next
import (even an unchanged one), `index sync` or worker start; and retrieval never answers `ok`
while an approved version that bears on the question has no chunks."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import delete

from services.bootstrap import Services
from services.db.models import IndexChunk
from tests.support.corpus import corpus_dict, doc, write_corpus
from tests.support.retrieval import AS_OF, fake_services, fake_store, load, who
from tests.support.vectors import InMemoryVectorStore

__all__ = ["fake_services", "fake_store"]

ZINC = "鍍鋅層厚度規範：一般件 8 µm 以上，戶外件 12 µm 以上。"


def with_zinc() -> dict:
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-ZINC", 1, body=ZINC))
    return corpus


def zinc_refs(services: Services) -> list[str]:
    result = services.retrieval.retrieve(who(services, "a.sales"), "鍍鋅層厚度規範", as_of=AS_OF)
    return [e.ref for e in result.evidence]


def test_an_import_while_the_index_is_down_is_synced_by_the_next_unchanged_import(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    path = write_corpus(tmp_path / "zinc.json", with_zinc())
    fake_store.down = True
    first = fake_services.importer.import_file(path)
    assert first.changed and first.index_sync == "deferred"
    assert fake_services.index.deferred() == ["A"]
    fake_store.down = False
    again = fake_services.importer.import_file(path)
    assert not again.changed  # "unchanged" — and still the owed sync is done
    assert again.index_sync == "synced"
    assert fake_services.index.deferred() == []
    assert "SOP-ZINC@1" in zinc_refs(fake_services)


def test_a_deferred_sync_is_done_at_catch_up_as_a_worker_starts(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    fake_store.down = True
    fake_services.importer.import_file(write_corpus(tmp_path / "zinc.json", with_zinc()))
    fake_store.down = False
    report = fake_services.index.catch_up()
    assert report is not None and "A/SOP-ZINC@1" in report.documents_added
    assert fake_services.index.catch_up() is None  # nothing owed any more
    assert "SOP-ZINC@1" in zinc_refs(fake_services)


def test_retrieval_is_not_ok_while_a_relevant_approved_version_has_no_chunks(
    fake_services: Services, tmp_path: Path
) -> None:
    load(fake_services, tmp_path, with_zinc())
    sales = who(fake_services, "a.sales")
    assert fake_services.retrieval.retrieve(sales, "鍍鋅層厚度規範", as_of=AS_OF).status == "ok"
    with fake_services.db.write() as session:  # the chunks are lost (e.g. a bad unstage)
        session.execute(delete(IndexChunk).where(IndexChunk.document_id == "SOP-ZINC"))
    fake_services.retrieval.caches.clear()
    result = fake_services.retrieval.retrieve(sales, "鍍鋅層厚度規範", as_of=AS_OF)
    assert result.status != "ok"
    assert any("SOP-ZINC@1" in item for item in result.missing)
    # A question the unsearchable document does not bear on is answered as before.
    other = fake_services.retrieval.retrieve(sales, "標準交期是幾天", as_of=AS_OF)
    assert other.status == "ok"
