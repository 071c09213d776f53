"""Who may approve, publish, revoke and hold, and which proposals are refused (fast, fakes).

The same rules run on both databases in tests/integration; these case tables use real SQLite,
the hand-written in-memory vector store and the hashing embedder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bootstrap import Services
from services.core.errors import InvalidInput, NotAuthorized, NotFound
from services.publishing.candidates import Proposal
from tests.support.corpus import write_corpus
from tests.support.publishing import (
    V3_BODY,
    propose_leadtime,
    publishing_corpus,
    served_versions,
    who,
)
from tests.support.retrieval import fake_services, fake_store

__all__ = ["fake_services", "fake_store"]


@pytest.fixture
def published(fake_services: Services, tmp_path: Path) -> Services:
    fake_services.importer.import_file(write_corpus(tmp_path / "c.json", publishing_corpus()))
    return fake_services


@pytest.mark.parametrize(
    ("proposer", "approver", "message"),
    [
        ("a.owner", "a.owner", "the proposer may not approve their own candidate"),
        ("a.sales", "a.sales", "only a knowledge owner may approve"),
        ("a.sales", "a.admin", "only a knowledge owner may approve"),
        ("a.engineer", "a.engineer", "only a knowledge owner may approve"),
    ],
)
def test_only_another_knowledge_owner_may_approve(
    published: Services, proposer: str, approver: str, message: str
) -> None:
    candidate = propose_leadtime(published, proposer)
    with pytest.raises(NotAuthorized, match=message):
        published.candidates.approve(who(published, approver), candidate.candidate_id)
    if approver != proposer and approver.startswith("a.owner"):
        return
    review = published.candidates.review(who(published, "a.owner2"), candidate.candidate_id)
    assert review.can_approve  # another owner still may
    approved = published.candidates.approve(who(published, "a.owner2"), candidate.candidate_id)
    assert approved.status == "approved" and approved.decided_by == "a.owner2"


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"body": "  "}, "empty"),
        ({"origin": "inference"}, "run_id"),
        ({"origin": "memory"}, "memory ids"),
        ({"evidence_ids": ["SOP-LEADTIME-2"]}, "DOC@VERSION:START-END"),
        ({"evidence_ids": ["SOP-LEADTIME@2:0-999"]}, "offsets"),
        ({"acl": ["everyone"]}, "ACL"),
    ],
)
def test_malformed_proposals_are_refused_naming_the_problem(
    published: Services, fields: dict[str, object], error: str
) -> None:
    proposal = Proposal(**{"document_id": "SOP-LEADTIME", "body": V3_BODY, **fields})  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match=error):
        published.candidates.propose(who(published, "a.sales"), proposal)


@pytest.mark.parametrize(
    ("user_id", "reason", "error"),
    [
        ("a.sales", "wrong", NotAuthorized),
        ("a.engineer", "wrong", NotAuthorized),
        ("a.owner", "  ", InvalidInput),
        ("b.owner", "wrong", NotFound),  # another tenant's document looks missing
    ],
)
def test_revocation_needs_a_knowledge_owner_of_the_tenant_and_a_reason(
    published: Services, user_id: str, reason: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        published.publisher.revoke(
            who(published, user_id), "SOP-LEADTIME", version=2, reason=reason
        )
    assert served_versions(published) == {2}
    assert published_leadtime_vectors(published)


@pytest.mark.parametrize(
    ("user_id", "record_type", "record_id", "reason", "error"),
    [
        ("a.owner", "task", "Q42", "x", NotAuthorized),
        ("a.sales", "task", "Q42", "x", NotAuthorized),
        ("a.admin", "task", "Q42", " ", InvalidInput),
        ("a.admin", "task", "NOPE", "x", NotFound),
        ("a.admin", "document", "B-PRICE", "x", NotFound),  # tenant B's document
        ("a.admin", "document", "SOP-LEADTIME@x", "x", InvalidInput),
        ("a.admin", "memory", "mem-unknown", "x", NotFound),
        ("a.admin", "invoice", "I-1", "x", InvalidInput),
    ],
)
def test_holds_need_an_admin_a_reason_and_a_record_of_the_tenant(
    published: Services, user_id: str, record_type: str, record_id: str, reason: str, error: type
) -> None:
    with pytest.raises(error):
        published.retention.set_hold(
            who(published, user_id), record_type=record_type, record_id=record_id, reason=reason
        )
    assert published.retention.holds(who(published, "a.admin")) == []


def published_leadtime_vectors(services: Services) -> list[str]:
    store = services.index.store
    return [
        record.id
        for collection in store.collections()
        for record in store.get(collection, where={"document_id": "SOP-LEADTIME"})
    ]


def test_publications_are_listed_to_owners_and_to_the_proposer_only(published: Services) -> None:
    candidate = propose_leadtime(published, "a.sales")
    published.candidates.approve(who(published, "a.owner"), candidate.candidate_id)
    published.publisher.publish(who(published, "a.owner"), candidate.candidate_id)
    for user_id, count in [("a.owner", 1), ("a.admin", 1), ("a.sales", 1), ("a.sales2", 0)]:
        assert len(published.publisher.publications(who(published, user_id))) == count, user_id
    assert published.publisher.publications(who(published, "b.owner")) == []


def test_an_owner_does_not_see_a_candidate_whose_acl_they_do_not_match(published: Services) -> None:
    candidate = published.candidates.propose(
        who(published, "a.sales"),
        Proposal(
            document_id="CONTRACT-ACME",
            body="ACME 年度合約：付款條件月結 90 天。",
            evidence_ids=["CONTRACT-ACME@1:0-10"],
        ),
    )
    assert candidate.acl == ["customer:C-ACME"]  # the contract's ACL, kept
    assert published.candidates.list(who(published, "a.owner")) == []
    with pytest.raises(NotFound):
        published.candidates.review(who(published, "a.owner"), candidate.candidate_id)
    assert [c.candidate_id for c in published.candidates.list(who(published, "a.sales"))] == [
        candidate.candidate_id
    ]


def test_an_addition_is_appended_to_the_current_text(published: Services) -> None:
    candidate = published.candidates.propose(
        who(published, "a.sales"),
        Proposal(document_id="SOP-LEADTIME", body="特殊檢驗可能延長交期。", append=True),
    )
    assert candidate.body == "新版：標準交期 15 日；特殊檢驗另評估\n特殊檢驗可能延長交期。"
    review = published.candidates.review(who(published, "a.owner"), candidate.candidate_id)
    assert [s.kind for s in review.diff.inline] == ["equal", "insert"]


def test_a_published_candidate_still_shows_what_it_changed(published: Services) -> None:
    candidate = propose_leadtime(published)
    owner = who(published, "a.owner")
    published.candidates.approve(owner, candidate.candidate_id)
    published.publisher.publish(owner, candidate.candidate_id)
    review = published.candidates.review(owner, candidate.candidate_id)
    assert review.base_is_current and review.current is not None
    assert review.current.version == 2 and review.diff.changed
    assert not review.can_approve
