"""A curator's status change may reject or revoke a version, never approve it: approving means
indexing the new version and superseding the old one, which only the publishing flow does."""

from __future__ import annotations

import json

import pytest

from services.bootstrap import Services
from services.contracts.corpus import DocStatus
from services.core.errors import InvalidInput
from tests.conftest import principal
from tests.support.corpus import corpus_dict, doc, import_bytes


@pytest.fixture
def pending(services: Services) -> Services:
    """The small corpus plus SOP-PACK@1 waiting for approval."""
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-PACK", 1, status="pending_approval", body="包裝規範"))
    import_bytes(services.importer, json.dumps(corpus).encode(), source="c.json", actor="a.admin")
    return services


def test_a_status_change_cannot_approve_and_names_the_publishing_flow(pending: Services) -> None:
    owner = principal(pending, "a.owner")
    with pytest.raises(InvalidInput) as refused:
        pending.knowledge.change_status(
            owner, document_id="SOP-PACK", version=1, target=DocStatus.approved
        )
    assert "publish" in str(refused.value) and "candidate" in str(refused.value)
    assert pending.knowledge.get(owner, "SOP-PACK", 1).status == "pending_approval"
    assert not [
        e
        for e in pending.audit.search(principal(pending, "a.admin"))
        if e.action == "document.approved"
    ]


def test_the_publishing_flow_approves_the_pending_version(pending: Services) -> None:
    owner = principal(pending, "a.owner")
    (candidate,) = pending.candidates.adopt_pending(owner)
    pending.candidates.approve(owner, candidate.candidate_id)
    result = pending.publisher.publish(owner, candidate.candidate_id)
    assert result.document.ref == "SOP-PACK@1"
    assert pending.knowledge.get(owner, "SOP-PACK", 1).status == "approved"


def test_a_status_change_still_rejects_a_pending_version(pending: Services) -> None:
    owner = principal(pending, "a.owner")
    changed = pending.knowledge.change_status(
        owner, document_id="SOP-PACK", version=1, target=DocStatus.rejected, reason="incomplete"
    )
    assert changed.status == "rejected"
