"""Tampered citations are refused wherever they are checked: by retrieval's re-verification
against SQL, by the Review agent, and when a person approves a draft. Tampering here is done
behind the services' backs (SQL updates, a forged vector), as an attacker with store access or
a bug would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import update

from services import bootstrap
from services.agents.review import ReviewAgent
from services.bootstrap import Services
from services.contracts.corpus import DocStatus
from services.contracts.decision import MemoryDecision
from services.contracts.memory_input import MemoryInput
from services.contracts.task_state import TaskStatus
from services.core.clock import FakeClock
from services.core.errors import InvalidInput, NotFound
from services.db.models import DocumentVersion, IndexChunk
from services.settings import Settings
from tests.security.conftest import AS_OF
from tests.support.corpus import doc
from tests.support.ids import SequentialIds
from tests.support.scenario import load_scenario, resume_q42, scenario_corpus

QUERY = "標準交期是幾天"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Services]:
    settings = Settings(
        home=tmp_path / "home",
        database_url=f"sqlite:///{tmp_path / 'm.db'}",
        embedding_backend="hashing",
    )
    services = bootstrap.build(settings, clock=FakeClock(), ids=SequentialIds())
    bootstrap.initialise(services)
    load_scenario(services, tmp_path)
    yield services
    services.close()


def sales(s: Services):
    return s.directory.principal("a.sales")


def leadtime(s: Services):
    result = s.retrieval.retrieve(sales(s), QUERY, as_of=AS_OF)
    return next(e for e in result.evidence if e.document_id == "SOP-LEADTIME")


def edit_body_keeping_hash(s: Services, document_id: str, version: int, old: str, new: str):
    with s.db.write() as session:
        row = session.get(DocumentVersion, ("A", document_id, version))
        assert row is not None and old in row.body
        row.body = row.body.replace(old, new)  # content_hash left as it was


# ---- retrieval ----------------------------------------------------------------------------


def test_a_body_edited_under_its_old_hash_is_dropped_by_retrieval_and_resolve(store):
    cited = leadtime(store)
    edit_body_keeping_hash(store, "SOP-LEADTIME", 2, "15 日", "5 日")
    result = store.retrieval.retrieve(sales(store), QUERY, as_of=AS_OF)
    assert "SOP-LEADTIME" not in {e.document_id for e in result.evidence}
    assert result.dropped.get("content_hash_mismatch", 0) >= 1
    with pytest.raises(NotFound):
        store.retrieval.resolve(sales(store), cited.evidence_id, as_of=AS_OF)


@pytest.mark.parametrize("span", ["0-99999", "5-3", "7-7", "x-4"])
def test_a_citation_with_offsets_outside_the_body_does_not_resolve(store, span):
    with pytest.raises(NotFound):
        store.retrieval.resolve(sales(store), f"SOP-LEADTIME@2:{span}", as_of=AS_OF)


def test_index_offsets_tampered_in_sql_are_dropped(store):
    cited = leadtime(store)
    with store.db.write() as session:
        session.execute(
            update(IndexChunk)
            .where(IndexChunk.chunk_id == cited.chunk_id)
            .values(end=IndexChunk.end + 10_000)
        )
    store.index.caches.clear()  # a fresh process: nothing remembered from before the tampering
    result = store.retrieval.retrieve(sales(store), QUERY, as_of=AS_OF)
    assert cited.chunk_id not in {e.chunk_id for e in result.evidence}
    assert result.dropped.get("offsets_out_of_range", 0) >= 1


def test_a_forged_vector_claiming_another_tenants_chunk_for_this_tenant_is_never_returned(store):
    """Chroma is not the tenant boundary: a record planted in the collection with tenant A's
    metadata, pointing at tenant B's document, has no SQL chunk row A may read."""
    active = store.index.active()
    assert active is not None
    vector = store.index.embedder.embed_query("SUS304 交期")
    store.index.store.upsert(
        active.collection,
        ids=["A/B-PRICE@1#0"],
        embeddings=np.asarray([vector]),
        metadatas=[
            {
                "tenant_id": "A",
                "document_id": "B-PRICE",
                "document_version": 1,
                "acl_tenant": True,
                "content_hash": "sha256:forged",
                "index_version": active.index_version,
            }
        ],
    )
    result = store.retrieval.retrieve(sales(store), "SUS304 交期 B 客戶專屬資料", as_of=AS_OF)
    assert "B-PRICE" not in {e.document_id for e in result.evidence}
    assert all("B 客戶專屬資料" not in e.quote for e in result.evidence)
    with pytest.raises(NotFound):
        store.retrieval.resolve(sales(store), "B-PRICE@1:0-10", as_of=AS_OF)


# ---- review and approval ------------------------------------------------------------------


@pytest.fixture
def drafted(store) -> Services:
    run = resume_q42(store)
    assert run.status == "succeeded", run.error
    assert store.tasks.get(sales(store), "Q42").state.status == TaskStatus.awaiting_approval
    return store


def _review_again(s: Services, decision: dict, pool_from_run: str):
    """The Review agent's verdict on a (possibly altered) decision against the run's pool."""
    run = s.runs.system_get(pool_from_run)
    pool = {e.evidence_id: e for e in s.runs.evidence(sales(s), run.run_id)}
    handoffs = [e for e in s.runs.system_events(run.run_id) if e.kind == "handoff"]
    data = next(
        h.payload["payload"] for h in handoffs if h.payload["payload_schema"] == "memory-input@1"
    )
    return ReviewAgent(retriever=s.retrieval).review(
        sales(s),
        raw_decision=decision,
        data=MemoryInput.model_validate(data),
        pool=pool,
        as_of=AS_OF,
    )


def _draft(s: Services):
    return next(a for a in s.approvals.search(sales(s), task_id="Q42") if a.kind == "draft")


def test_review_refuses_shifted_offsets_and_other_tenants_chunks(drafted):
    s = drafted
    draft = _draft(s)
    decision = draft.payload["decision"]
    assert _review_again(s, decision, draft.run_id).passed  # the control: as drafted, it holds
    cited = decision["claims"][0]["evidence_ids"][0]
    document, _, span = cited.rpartition(":")
    start, _, end = span.partition("-")
    shifted = f"{document}:{int(start) + 1}-{end}"
    for forged in (shifted, "B-PRICE@1:0-10", "SOP-LEADTIME@1:0-10", "DRAFT-INJECT@1:0-5"):
        altered = {**decision, "claims": [{"text": "交期 15 日", "evidence_ids": [forged]}]}
        report = _review_again(s, altered, draft.run_id)
        assert not report.passed
        assert any(f"{forged} was not retrieved in this run" in r for r in report.reasons)


def test_a_revoked_citation_fails_review_and_cannot_be_approved(drafted):
    s = drafted
    draft = _draft(s)
    decision = MemoryDecision.model_validate(draft.payload["decision"])
    revoked = draft.payload["citations"][0]
    owner = s.directory.principal("a.owner")
    s.knowledge.change_status(
        owner,
        document_id=revoked["document_id"],
        version=revoked["version"],
        target=DocStatus.revoked,
        reason="found wrong",
    )
    report = _review_again(s, decision.model_dump(mode="json"), draft.run_id)
    assert any(
        f"{revoked['evidence_id']} is not readable evidence now" in r for r in report.reasons
    )
    before = s.tasks.get(sales(s), "Q42").state
    with pytest.raises(InvalidInput, match="no longer holds"):
        s.approval_flow.decide(sales(s), draft.id, approve=True)
    assert s.approvals.get(sales(s), draft.id).status == "pending"
    assert s.tasks.get(sales(s), "Q42").state == before
    # Rejecting stays possible: a person can always say no.
    outcome = s.approval_flow.decide(sales(s), draft.id, approve=False, comment="SOP revoked")
    assert outcome.approval.status == "rejected"


def test_a_draft_whose_cited_body_was_edited_under_its_hash_cannot_be_approved(drafted):
    s = drafted
    draft = _draft(s)
    cited = draft.payload["citations"][0]
    # Change one character inside the cited span itself (a span is a sentence or a clause).
    quote = s.retrieval.resolve(sales(s), cited["evidence_id"], as_of=AS_OF).quote
    old = next(ch for ch in quote if "\u4e00" <= ch <= "\u9fff")
    edit_body_keeping_hash(s, cited["document_id"], cited["version"], old, "〇")
    with pytest.raises(InvalidInput, match="no longer holds"):
        s.approval_flow.decide(sales(s), draft.id, approve=True)
    with pytest.raises(InvalidInput):
        s.desk.decide(
            sales(s),
            draft.id,
            approve=True,
            comment="",
            seen_revision=s.tasks.get(sales(s), "Q42").state.revision,
        )
    assert s.approvals.get(sales(s), draft.id).status == "pending"


def test_an_untampered_draft_is_approved_normally(drafted):
    """The control for the two tests above: the same approval goes through untouched."""
    s = drafted
    draft = _draft(s)
    outcome = s.approval_flow.decide(sales(s), draft.id, approve=True)
    assert outcome.approval.status == "approved"


def test_a_citation_check_says_nothing_of_a_version_the_reader_may_not_read(tmp_path):
    """Revoked, customer-restricted: for a colleague without the grant it is as unknown as a
    document that does not exist (its status is not leaked)."""
    settings = Settings(
        home=tmp_path / "home",
        database_url=f"sqlite:///{tmp_path / 'm.db'}",
        embedding_backend="hashing",
    )
    s = bootstrap.build(settings, clock=FakeClock(), ids=SequentialIds())
    try:
        bootstrap.initialise(s)
        restricted = doc(
            "CONTRACT-OLD", 1, status="revoked", acl=["customer:C-ACME"], body="舊合約：交期 9 日"
        )
        load_scenario(s, tmp_path, documents=[*scenario_corpus()["documents"], restricted])
        check = [{"document_id": "CONTRACT-OLD", "version": 1}]
        nowhere = [{"document_id": "DOC-NOWHERE", "version": 1}]
        colleague = s.directory.principal("a.sales2")
        assert [c.state for c in s.citations.check(colleague, check, as_of=AS_OF)] == [
            c.state for c in s.citations.check(colleague, nowhere, as_of=AS_OF)
        ]
        granted = s.directory.principal("a.sales")
        assert [c.state for c in s.citations.check(granted, check, as_of=AS_OF)] == ["revoked"]
    finally:
        s.close()
