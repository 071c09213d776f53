"""Revocation on SQLite and PostgreSQL with embedded Chroma: purge proven by re-querying it all."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bootstrap import Services
from services.core.errors import InvalidInput
from tests.support.corpus import write_corpus
from tests.support.publishing import (
    AS_OF,
    LEADTIME_QUERY,
    approved_leadtime,
    publishing_corpus,
    served_versions,
    who,
)


@pytest.fixture
def loaded_owners(services: Services, tmp_path: Path) -> Services:
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", publishing_corpus()))
    return services


def vectors_in_index(services: Services, document_id: str) -> list[str]:
    """Ask the vector store itself, in every collection, by metadata."""
    store = services.index.store
    return [
        record.id
        for collection in store.collections()
        for record in store.get(collection, where={"document_id": document_id})
    ]


def draft_citing(services: Services, document_id: str, version: int) -> int:
    return services.approvals.request(
        who(services, "a.sales"),
        task_id="Q42",
        decision_version=2,
        payload={
            "citations": [
                {
                    "evidence_id": f"{document_id}@{version}:0-5",
                    "document_id": document_id,
                    "version": version,
                }
            ]
        },
    ).id


def test_revoking_the_current_version_purges_index_and_caches_verified(
    loaded_owners: Services,
) -> None:
    s = loaded_owners
    assert served_versions(s) == {2}  # warms the caches with SOP-LEADTIME chunks
    assert s.retrieval.caches.mentions("A/SOP-LEADTIME@2#") > 0
    assert vectors_in_index(s, "SOP-LEADTIME")
    draft = draft_citing(s, "SOP-LEADTIME", 2)

    result = s.publisher.revoke(
        who(s, "a.owner"), "SOP-LEADTIME", version=2, reason="lead time under review"
    )
    assert result.purge_verified and result.purge is not None
    assert result.versions == [2] and result.still_eligible == []
    assert result.purge.chunks_removed > 0 and result.purge.probe_hits == 0
    assert [d.approval_id for d in result.flagged_drafts] == [draft]

    # Re-query everything ourselves: the store by metadata, every cache, governed retrieval.
    assert vectors_in_index(s, "SOP-LEADTIME") == []
    assert s.retrieval.caches.mentions("A/SOP-LEADTIME@") == 0
    after = s.retrieval.retrieve(who(s, "a.sales"), LEADTIME_QUERY, as_of=AS_OF)
    assert all(e.document_id != "SOP-LEADTIME" for e in after.evidence)
    assert s.retrieval.caches.mentions("A/SOP-LEADTIME@") == 0  # nothing came back
    version = s.knowledge.get(who(s, "a.owner"), "SOP-LEADTIME", 2)
    assert (version.status, version.status_reason) == ("revoked", "lead time under review")
    stale = s.citations.check_approval(who(s, "a.sales"), draft, as_of=AS_OF)
    assert [c.state for c in stale.citations] == ["revoked"]
    actions = {e.action for e in s.audit.search(who(s, "a.admin"))}
    assert {"document.revoked", "index.purged", "draft.citation_revoked"} <= actions


def test_revoking_a_whole_document_revokes_every_live_version(loaded_owners: Services) -> None:
    s = loaded_owners
    candidate = approved_leadtime(s)
    s.publisher.publish(who(s, "a.owner"), candidate.candidate_id)
    assert served_versions(s) == {3}
    result = s.publisher.revoke(who(s, "a.owner"), "SOP-LEADTIME", reason="withdrawn")
    assert result.versions == [1, 2, 3] and result.purge_verified
    assert served_versions(s) == set()
    assert vectors_in_index(s, "SOP-LEADTIME") == []
    with pytest.raises(InvalidInput, match="already revoked"):
        s.publisher.revoke(who(s, "a.owner"), "SOP-LEADTIME", reason="again")
