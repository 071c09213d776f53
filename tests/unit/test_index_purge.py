"""Purging a document removes its vectors and cache entries, and the check proves it."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bootstrap import Services
from services.contracts.corpus import DocStatus
from services.core.errors import IndexUnavailable
from tests.support.retrieval import AS_OF, fake_services, fake_store, load, who
from tests.support.vectors import InMemoryVectorStore

__all__ = ["fake_services", "fake_store"]


def vectors_of(store: InMemoryVectorStore, document_id: str) -> list[str]:
    return [
        record_id
        for records in store.data.values()
        for record_id, (_vector, meta) in records.items()
        if meta.get("document_id") == document_id
    ]


def test_revoke_then_purge_removes_vectors_rows_and_cache_entries(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    sales = who(fake_services, "a.sales")
    hit = fake_services.retrieval.retrieve(sales, "標準交期是幾天", as_of=AS_OF)
    assert hit.evidence[0].document_id == "SOP-LEADTIME"
    assert fake_services.retrieval.caches.mentions("A/SOP-LEADTIME@") > 0

    owner = who(fake_services, "a.owner")
    fake_services.knowledge.change_status(
        owner, document_id="SOP-LEADTIME", version=2, target=DocStatus.revoked, reason="wrong"
    )
    # Governance does not wait for the purge: the revoked version is no longer eligible.
    after = fake_services.retrieval.retrieve(sales, "標準交期是幾天", as_of=AS_OF)
    assert all(e.document_id != "SOP-LEADTIME" for e in after.evidence)

    report = fake_services.index.purge_document(
        tenant_id="A", document_id="SOP-LEADTIME", version=None
    )
    assert report.verified
    assert report.chunks_removed > 0
    assert report.cache_entries_remaining == 0 and report.probe_hits == 0
    assert vectors_of(fake_store, "SOP-LEADTIME") == []
    assert fake_services.retrieval.caches.mentions("A/SOP-LEADTIME@") == 0


def test_a_store_that_only_pretends_to_delete_fails_the_check(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    fake_store.deletes_are_ignored = True  # delete() "succeeds" and removes nothing
    with pytest.raises(IndexUnavailable, match="still present"):
        fake_services.index.purge_document(tenant_id="A", document_id="MAIL-42", version=None)


def test_purging_one_version_keeps_the_others(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    before = vectors_of(fake_store, "CONTRACT-ACME")
    assert before
    report = fake_services.index.purge_document(
        tenant_id="A", document_id="SOP-LEADTIME", version=2
    )
    assert report.verified
    assert vectors_of(fake_store, "CONTRACT-ACME") == before


def test_purge_is_recorded_in_the_audit_log(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    fake_services.index.purge_document(tenant_id="A", document_id="MAIL-42", version=1)
    entries = fake_services.audit.search(who(fake_services, "a.admin"), action="index.purged")
    assert entries and entries[0].subject_id == "MAIL-42@1"
