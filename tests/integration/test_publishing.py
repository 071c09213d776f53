"""Publishing on SQLite and PostgreSQL with embedded Chroma: candidate → diff → approve → v3."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bootstrap import Services
from services.core.errors import InvalidInput, NotAuthorized, NotFound
from services.publishing.candidates import Proposal
from tests.support.corpus import write_corpus
from tests.support.publishing import (
    AS_OF,
    V3_BODY,
    approved_leadtime,
    eligible_versions,
    propose_leadtime,
    publishing_corpus,
    served_versions,
    who,
)


@pytest.fixture
def published(services: Services, tmp_path: Path) -> Services:
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", publishing_corpus()))
    return services


def test_candidate_to_published_v3_and_retrieval_cites_v3_never_v2(published: Services) -> None:
    s = published
    assert served_versions(s) == {2}
    candidate = propose_leadtime(s)
    assert (candidate.knowledge_class, candidate.status, candidate.base_version) == (
        "inference",
        "pending",
        2,
    )
    [source] = candidate.sources
    assert source.quote == "新版：標準交期 15 日；特殊檢驗另評估"  # re-sliced from v2's body

    review = s.candidates.review(who(s, "a.owner"), candidate.candidate_id)
    assert review.current is not None and review.current.version == 2
    assert review.can_approve and review.base_is_current
    assert [(seg.kind, seg.text) for seg in review.diff.inline if seg.kind != "equal"] == [
        ("delete", "5"),
        ("insert", "8"),
    ]
    assert [row.kind for row in review.diff.rows] == ["replace"]

    s.candidates.approve(who(s, "a.owner"), candidate.candidate_id, comment="ok")
    steps: list[str] = []
    result = s.publisher.publish(
        who(s, "a.owner"), candidate.candidate_id, progress=lambda p: steps.append(p.step)
    )
    assert steps == ["version_written", "staged", "verified", "switched", "cleaned"]
    assert result.publication.status == "published" and not result.cleanup_pending
    assert (result.document.version, result.document.status) == (3, "approved")
    assert result.document.knowledge_class == "fact" and result.document.body == V3_BODY
    assert result.document.valid_from == s.clock.now().date()
    assert result.superseded == [2]

    versions = {
        v.version: v.status for v in s.knowledge.versions(who(s, "a.owner"), "SOP-LEADTIME")
    }
    assert versions == {1: "superseded", 2: "superseded", 3: "approved"}
    v2 = s.knowledge.get(who(s, "a.owner"), "SOP-LEADTIME", 2)
    assert v2.valid_to == result.document.valid_from  # when it stopped applying
    assert served_versions(s) == eligible_versions(s) == {3}
    evidence = s.retrieval.retrieve(who(s, "a.sales"), "標準交期是幾天", as_of=AS_OF).evidence
    assert "18 日" in next(e.quote for e in evidence if e.document_id == "SOP-LEADTIME")
    assert s.candidates.get(who(s, "a.owner"), candidate.candidate_id).published_version == 3
    actions = [e.action for e in s.audit.search(who(s, "a.admin"), subject_id="SOP-LEADTIME@3")]
    assert "knowledge.published" in actions and "document.approved" in actions


def test_publishing_twice_returns_the_first_publication(published: Services) -> None:
    candidate = approved_leadtime(published)
    owner = who(published, "a.owner")
    first = published.publisher.publish(owner, candidate.candidate_id)
    again = published.publisher.publish(owner, candidate.candidate_id)
    assert again.publication.publication_id == first.publication.publication_id
    assert [v.version for v in published.knowledge.versions(owner, "SOP-LEADTIME")] == [1, 2, 3]


def test_an_unapproved_candidate_cannot_be_published(published: Services) -> None:
    candidate = propose_leadtime(published)
    with pytest.raises(InvalidInput, match="not approved"):
        published.publisher.publish(who(published, "a.owner"), candidate.candidate_id)
    assert served_versions(published) == {2}


def test_a_rejected_candidate_keeps_its_reason_and_changes_nothing(published: Services) -> None:
    candidate = propose_leadtime(published)
    owner = who(published, "a.owner")
    with pytest.raises(InvalidInput, match="reason"):
        published.candidates.reject(owner, candidate.candidate_id, reason=" ")
    rejected = published.candidates.reject(owner, candidate.candidate_id, reason="not confirmed")
    assert (rejected.status, rejected.decision_comment) == ("rejected", "not confirmed")
    with pytest.raises(InvalidInput, match="rejected, not pending"):
        published.candidates.approve(who(published, "a.owner2"), candidate.candidate_id)
    assert eligible_versions(published) == {2}


def test_a_candidate_written_against_an_old_version_must_be_proposed_again(
    published: Services,
) -> None:
    late = propose_leadtime(published, body="新版：標準交期 20 日")
    first = approved_leadtime(published)
    published.publisher.publish(who(published, "a.owner"), first.candidate_id)
    review = published.candidates.review(who(published, "a.owner"), late.candidate_id)
    assert not review.base_is_current and not review.can_approve
    assert review.current is not None and review.current.version == 3
    with pytest.raises(InvalidInput, match="SOP-LEADTIME@3 is current now"):
        published.candidates.approve(who(published, "a.owner"), late.candidate_id)


def test_a_new_document_is_published_as_version_1(published: Services) -> None:
    sales, owner = who(published, "a.sales"), who(published, "a.owner")
    candidate = published.candidates.propose(
        sales,
        Proposal(
            document_id="SOP-INSPECTION",
            title="特殊檢驗作業",
            body="特殊檢驗需工程部確認檢驗項目與治具。",
            evidence_ids=["MAIL-42@1:0-10"],
        ),
    )
    assert candidate.base_version is None and candidate.acl == ["tenant"]
    review = published.candidates.review(owner, candidate.candidate_id)
    assert review.current is None
    assert [seg.kind for seg in review.diff.inline] == ["insert"]
    published.candidates.approve(owner, candidate.candidate_id)
    result = published.publisher.publish(owner, candidate.candidate_id)
    assert (result.document.ref, result.superseded) == ("SOP-INSPECTION@1", [])
    hits = published.retrieval.retrieve(sales, "特殊檢驗 治具", as_of=AS_OF).evidence
    assert any(e.document_id == "SOP-INSPECTION" for e in hits)


def test_another_tenants_candidate_and_evidence_look_missing(published: Services) -> None:
    candidate = propose_leadtime(published)
    with pytest.raises(NotFound):
        published.candidates.get(who(published, "b.owner"), candidate.candidate_id)
    with pytest.raises(NotFound):
        published.publisher.publish(who(published, "b.owner"), candidate.candidate_id)
    assert published.candidates.list(who(published, "b.owner")) == []
    with pytest.raises(NotFound):
        published.candidates.propose(
            who(published, "a.sales"),
            Proposal(document_id="X", title="x", body="x", evidence_ids=["B-PRICE@1:0-4"]),
        )
    # A sales user sees only what they proposed; owners see the queue.
    assert [c.candidate_id for c in published.candidates.list(who(published, "a.sales2"))] == []
    assert len(published.candidates.list(who(published, "a.owner"), statuses=["pending"])) == 1


def test_a_draft_citing_v2_is_flagged_stale_after_v3_is_published(published: Services) -> None:
    s = published
    sales = who(s, "a.sales")
    # A real run drafts the answer citing v2 and waits for approval.
    s.resumer.resume(sales, "Q42", supplement="客戶確認需要特殊檢驗，請接著處理。", as_of=AS_OF)
    [draft] = [a for a in s.approvals.search(sales, task_id="Q42") if a.kind == "draft"]
    before = s.citations.check_approval(sales, draft.id)
    assert not before.stale
    [card] = s.desk.approval_queue(sales)
    assert card.stale_citations == []
    candidate = approved_leadtime(s)
    result = s.publisher.publish(who(s, "a.owner"), candidate.candidate_id)
    assert [d.approval_id for d in result.flagged_drafts] == [draft.id]
    after = s.citations.check_approval(sales, draft.id, as_of=AS_OF)
    assert after.stale
    [citation] = after.stale_citations
    assert (citation.state, citation.current_version) == ("superseded", 3)
    [card] = s.desk.approval_queue(sales)  # what the approvals page shows the reviewer
    assert [(c.document_id, c.version, c.state) for c in card.stale_citations] == [
        ("SOP-LEADTIME", 2, "superseded")
    ]
    flagged = s.audit.search(who(s, "a.admin"), action="draft.citation_superseded")
    assert [e.subject_id for e in flagged] == [str(draft.id)]


def test_an_ai_inference_from_a_run_is_proposed_as_an_addition_with_its_sources(
    published: Services,
) -> None:
    s = published
    sales = who(s, "a.sales")
    result = s.resumer.resume(
        sales, "Q42", supplement="客戶確認需要特殊檢驗，請接著處理。", as_of=AS_OF
    )
    claims = result.decision["claims"] if result.decision else []
    index = next(i for i, c in enumerate(claims) if c["evidence_ids"])
    candidate = s.candidates.propose_from_run(
        sales, run_id=result.run.run_id, claim=index, document_id="SOP-LEADTIME"
    )
    assert (candidate.origin, candidate.knowledge_class, candidate.run_id) == (
        "inference",
        "inference",
        result.run.run_id,
    )
    assert {src.ref for src in candidate.sources if src.kind == "evidence"} == set(
        claims[index]["evidence_ids"]
    )
    review = s.candidates.review(who(s, "a.owner"), candidate.candidate_id)
    added = "".join(seg.text for seg in review.diff.inline if seg.kind == "insert")
    assert added.strip() == claims[index]["text"].strip()
    assert not [seg for seg in review.diff.inline if seg.kind == "delete"]
    with pytest.raises(NotFound):
        s.candidates.propose_from_run(
            who(s, "b.owner"), run_id=result.run.run_id, claim=index, document_id="X"
        )
    with pytest.raises(InvalidInput, match="no claim"):
        s.candidates.propose_from_run(
            sales, run_id=result.run.run_id, claim=len(claims), document_id="SOP-LEADTIME"
        )


def test_pending_versions_join_the_queue_once_and_publish_under_their_own_number(
    published: Services,
) -> None:
    s = published
    owner = who(s, "a.owner")
    with pytest.raises(NotAuthorized):
        s.candidates.adopt_pending(who(s, "a.sales"))
    adopted = {c.document_id: c for c in s.candidates.adopt_pending(owner)}
    assert set(adopted) == {"SOP-PACKING", "MEMO-AI-LEADTIME"}
    assert s.candidates.adopt_pending(owner) == []  # idempotent
    packing, memo = adopted["SOP-PACKING"], adopted["MEMO-AI-LEADTIME"]
    assert (packing.base_version, packing.origin, memo.origin) == (1, "correction", "inference")
    assert all(c.knowledge_class == "inference" for c in adopted.values())

    s.candidates.approve(owner, packing.candidate_id)
    result = s.publisher.publish(owner, packing.candidate_id)
    assert (result.document.ref, result.superseded) == ("SOP-PACKING@2", [1])
    assert result.document.valid_from == s.clock.now().date()  # effective when switched

    s.candidates.reject(owner, memo.candidate_id, reason="工程部未確認，不得一律加 3 日")
    assert s.knowledge.get(owner, "MEMO-AI-LEADTIME", 1).status == "rejected"
    hits = s.retrieval.retrieve(who(s, "a.sales"), "不鏽鋼 包裝", as_of=AS_OF).evidence
    assert {e.ref for e in hits if e.document_id == "SOP-PACKING"} == {"SOP-PACKING@2"}


def test_a_run_started_after_the_switch_cites_v3_and_never_v2(published: Services) -> None:
    s = published
    candidate = approved_leadtime(s)
    s.publisher.publish(who(s, "a.owner"), candidate.candidate_id)
    result = s.resumer.resume(
        who(s, "a.sales"), "Q42", supplement="客戶確認需要特殊檢驗，請接著處理。", as_of=AS_OF
    )
    assert result.decision is not None
    cited = {eid for claim in result.decision["claims"] for eid in claim["evidence_ids"]}
    assert any(eid.startswith("SOP-LEADTIME@3:") for eid in cited)
    assert not any(eid.startswith("SOP-LEADTIME@2:") for eid in cited)
    assert {e.ref for e in result.evidence if e.document_id == "SOP-LEADTIME"} == {"SOP-LEADTIME@3"}
