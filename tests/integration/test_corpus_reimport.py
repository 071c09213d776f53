"""Re-importing a corpus never undoes a lifecycle step made in the store; it may advance one."""

from __future__ import annotations

import json

import pytest

from services.contracts.corpus import DocStatus
from services.core.errors import InvalidInput
from tests.conftest import principal
from tests.support.corpus import corpus_dict, doc, import_bytes
from tests.support.snapshot import database_digest


def reimport(services, corpus):
    raw = json.dumps(corpus, ensure_ascii=False).encode()
    return import_bytes(services.importer, raw, source="again.json", actor="system:test")


def test_a_revocation_survives_reimport_of_the_original_file(loaded):
    owner = principal(loaded, "a.owner")
    loaded.knowledge.change_status(
        owner, document_id="SOP-LEADTIME", version=2, target=DocStatus.revoked, reason="wrong"
    )
    before = database_digest(loaded.db.engine)
    report = reimport(loaded, corpus_dict())
    assert not report.changed
    assert any("SOP-LEADTIME@2" in w and "revoked" in w for w in report.warnings)
    assert database_digest(loaded.db.engine) == before
    assert (
        loaded.knowledge.eligible(
            owner, as_of=loaded.clock.now().date(), document_ids=["SOP-LEADTIME"]
        )
        == []
    )


def test_a_file_may_advance_a_version_along_its_lifecycle(loaded):
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-PACK", 1, status="draft", body="包裝規範草稿"))
    reimport(loaded, corpus)
    corpus["documents"][-1]["status"] = "pending_approval"
    report = reimport(loaded, corpus)
    assert report.updated == {"documents": 1}
    owner = principal(loaded, "a.owner")
    assert loaded.knowledge.get(owner, "SOP-PACK", 1).status == "pending_approval"
    actions = [e.action for e in loaded.audit.search(principal(loaded, "a.admin"))]
    assert "document.pending_approval" in actions


def test_a_status_the_lifecycle_cannot_reach_is_refused(loaded):
    owner = principal(loaded, "a.owner")
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-PACK", 1, status="pending_approval", body="包裝規範"))
    reimport(loaded, corpus)
    loaded.knowledge.change_status(
        owner, document_id="SOP-PACK", version=1, target=DocStatus.rejected, reason="incomplete"
    )
    corpus["documents"][-1]["status"] = "approved"
    before = database_digest(loaded.db.engine)
    with pytest.raises(InvalidInput) as refused:
        reimport(loaded, corpus)
    assert refused.value.problems == [
        "documents[6] (SOP-PACK@1).status: the store has it as rejected, which cannot become "
        "approved"
    ]
    assert database_digest(loaded.db.engine) == before
