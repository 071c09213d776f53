"""What a query remembers for the next ones (a view's document frequencies, the tagger's unknown
runs a tenant's chunks share): used again, and gone once a document of the tenant is purged."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bootstrap import Services
from services.retrieval import service
from tests.support.corpus import corpus_dict, doc
from tests.support.retrieval import AS_OF, fake_services, fake_store, load, who

__all__ = ["fake_services", "fake_store"]


def test_a_units_document_frequency_is_counted_once_per_view(
    fake_services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load(fake_services, tmp_path)
    counted: list[str] = []
    count = service.document_frequency

    def counting(unit: str, *args: object) -> int:
        counted.append(unit)
        return count(unit, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(service, "document_frequency", counting)
    sales = who(fake_services, "a.sales")
    first = fake_services.retrieval.retrieve(sales, "標準交期是幾天", as_of=AS_OF)
    assert counted
    asked = list(counted)
    again = fake_services.retrieval.retrieve(sales, "標準交期是幾天？", as_of=AS_OF)
    assert counted == asked  # the same units, the same eligible chunks: nothing counted again
    assert [e.evidence_id for e in again.evidence] == [e.evidence_id for e in first.evidence]


def test_purging_a_document_drops_the_tenants_frequencies_and_shared_runs(
    fake_services: Services, tmp_path: Path
) -> None:
    # A second lead time, worded otherwise: the conflict reading compares the two statements'
    # words (read through the tagger runs the tenant's chunks share), which it reads only for
    # answers that disagree on an amount.
    corpus = corpus_dict()
    corpus["documents"].append(
        doc("SOP-SHIPPING", 1, body="出貨規範：一般訂單於下單後 20 日內出貨")
    )
    load(fake_services, tmp_path, corpus)
    sales = who(fake_services, "a.sales")
    fake_services.retrieval.retrieve(sales, "標準交期是幾天", as_of=AS_OF)
    caches = fake_services.retrieval.caches
    assert any(key[1] == "A" for key, _count in caches.frequencies.items())
    assert any(key[0] == "A/" for key, _value in caches.analyses._lru.items())

    report = fake_services.index.purge_document(
        tenant_id="A", document_id="SOP-LEADTIME", version=None
    )

    assert report.verified
    assert not any(key[1] == "A" for key, _count in caches.frequencies.items())
    assert not any(key[0] == "A/" for key, _value in caches.analyses._lru.items())
