"""Chunk ids are unambiguous by construction: no two (tenant, document) pairs share one, even for
ids stored before id validation existed (separators inside the ids are escaped)."""

from __future__ import annotations

from datetime import date
from itertools import combinations
from pathlib import Path

import pytest
from sqlalchemy import func, select

from services.bootstrap import Services
from services.db.models import DocumentAcl, DocumentVersion, IndexChunk, Tenant
from services.records.knowledge import content_hash
from services.retrieval.records import chunk_id_for, chunk_prefix, next_chunk_id
from tests.support.retrieval import fake_services, fake_store, load

__all__ = ["fake_services", "fake_store"]

TRICKY = [
    ("A/B", "C"),
    ("A", "B/C"),
    ("A", "B@1#0"),
    ("A", "B"),
    ("A@1", "B"),
    ("A", "B%2FC"),
    ("A%", "2FB/C"),
    ("A#", "B"),
]


@pytest.mark.parametrize(("first", "second"), list(combinations(TRICKY, 2)))
def test_different_tenant_and_document_pairs_never_share_a_chunk_id(
    first: tuple[str, str], second: tuple[str, str]
) -> None:
    assert chunk_id_for(*first, 1, 0) != chunk_id_for(*second, 1, 0)
    # A purge by prefix never reaches the other pair's chunks either.
    assert not chunk_id_for(*second, 1, 0).startswith(chunk_prefix(*first))


def test_ordinary_ids_keep_their_readable_chunk_ids() -> None:
    assert chunk_id_for("A", "SOP-LEADTIME", 2, 0) == "A/SOP-LEADTIME@2#0"
    assert chunk_prefix("A", "SOP-LEADTIME", 2) == "A/SOP-LEADTIME@2#"


def test_a_chunks_neighbours_are_named_within_its_document_version() -> None:
    # a document id holding the separator itself ("#") is escaped, so the ordinal is the last part
    third = chunk_id_for("A", "PRICE#2026", 1, 2)
    assert next_chunk_id(third, 1) == chunk_id_for("A", "PRICE#2026", 1, 3)
    assert next_chunk_id(third, -2) == chunk_id_for("A", "PRICE#2026", 1, 0)
    assert next_chunk_id(chunk_id_for("A", "PRICE#2026", 1, 0), -1) is None
    assert next_chunk_id("A/PRICE@1", 1) is None  # no ordinal: not a chunk of the index


def _stored(services: Services, tenant_id: str, document_id: str, body: str) -> None:
    """An approved version written straight into SQL, as a store filled before ids were
    validated on the way in would hold it."""
    with services.db.write() as session:
        if session.get(Tenant, tenant_id) is None:
            session.add(
                Tenant(tenant_id=tenant_id, name=tenant_id, created_at=services.clock.now())
            )
            session.flush()
        session.add(
            DocumentVersion(
                tenant_id=tenant_id,
                document_id=document_id,
                version=1,
                doc_type="sop",
                knowledge_class="fact",
                status="approved",
                valid_from=date(2025, 1, 1),
                language="en",
                title=document_id,
                body=body,
                content_hash=content_hash(body),
                acl=["tenant"],
                created_by="legacy",
                created_at=services.clock.now(),
                status_changed_at=services.clock.now(),
            )
        )
        session.flush()
        session.add(
            DocumentAcl(tenant_id=tenant_id, document_id=document_id, version=1, tag="tenant")
        )


def _indexed(services: Services) -> dict[tuple[str, str], int]:
    active = services.index.active()
    assert active is not None
    with services.db.read() as session:
        rows = session.execute(
            select(IndexChunk.tenant_id, IndexChunk.document_id, func.count())
            .where(IndexChunk.index_version == active.index_version)
            .group_by(IndexChunk.tenant_id, IndexChunk.document_id)
        ).all()
    return {(tenant, document): count for tenant, document, count in rows}


def test_colliding_legacy_ids_are_both_indexed_by_sync_and_by_rebuild(
    fake_services: Services, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    _stored(fake_services, "A/B", "C", "Tenant A/B: document C about anodising thickness.")
    _stored(fake_services, "A", "B/C", "Tenant A: document B/C about passivation baths.")
    fake_services.index.sync()
    indexed = _indexed(fake_services)
    assert indexed[("A/B", "C")] >= 1 and indexed[("A", "B/C")] >= 1
    fake_services.index.rebuild()
    rebuilt = _indexed(fake_services)
    assert rebuilt[("A/B", "C")] >= 1 and rebuilt[("A", "B/C")] >= 1
    assert rebuilt[("A", "SOP-LEADTIME")] >= 1  # every other tenant is still served
