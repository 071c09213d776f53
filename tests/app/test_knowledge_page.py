"""The knowledge owner's page from app.py: review a candidate's diff, approve, publish, revoke."""

from __future__ import annotations

from datetime import date

import pytest

from app_pages import _session
from services.contracts.task_state import TaskStatus
from services.publishing.candidates import CandidateView, Proposal
from tests.app.conftest import logged_in, texts

NEW_BODY = "標準交期為 18 個工作天。"


def propose(user_id: str = "a.sales") -> CandidateView:
    services = _session.services()
    current = services.knowledge.get(services.directory.principal("a.owner"), "SOP-LEADTIME")
    return services.candidates.propose(
        services.directory.principal(user_id),
        Proposal(
            document_id="SOP-LEADTIME",
            body=current.body.replace("15", "18", 1),
            evidence_ids=[f"SOP-LEADTIME@{current.version}:0-10"],
            rationale="供應商交期變更",
        ),
    )


def shown(at) -> str:
    return texts(at) + "\n" + "\n".join(str(s.value) for s in at.success)


def knowledge_page(user_id: str = "a.owner"):
    return logged_in(user_id).switch_page("app_pages/knowledge.py").run()


@pytest.mark.parametrize("user_id", ["a.sales", "a.engineer", "a.admin"])
def test_only_knowledge_owners_have_the_page(shared_home, user_id):
    with pytest.raises(ValueError):
        knowledge_page(user_id)


def test_an_empty_queue_says_so(shared_home):
    at = knowledge_page()
    assert not at.exception
    assert at.title[0].value == "知識審核 Knowledge"
    assert "No candidates with this status" in texts(at)


def test_the_owner_sees_sources_and_both_diffs_then_approves_with_a_comment(home):
    candidate = propose()
    at = knowledge_page()
    assert not at.exception
    shown = texts(at)
    assert "供應商交期變更" in shown
    assert ":red-background[~~5~~]" in shown and ":green-background[8]" in shown
    table = at.dataframe[0].value
    assert "replace" in set(table["變更 change"])
    assert any("18" in row for row in table["提議 Proposed"])
    assert not at.button(key="knowledge.approve").disabled

    at.text_input(key="knowledge.comment").input("與採購確認過")
    at.button(key="knowledge.approve").click().run()
    assert not at.exception
    services = _session.services()
    approved = services.candidates.get(
        services.directory.principal("a.owner"), candidate.candidate_id
    )
    assert (approved.status, approved.decision_comment) == ("approved", "與採購確認過")


def test_the_proposer_cannot_approve_their_own_candidate(home):
    candidate = propose("a.owner")
    at = knowledge_page("a.owner")
    assert at.button(key="knowledge.approve").disabled
    assert "the proposer may not approve their own candidate" in texts(at)
    services = _session.services()
    still = services.candidates.get(services.directory.principal("a.owner"), candidate.candidate_id)
    assert still.status == "pending"


def test_publishing_shows_progress_and_retrieval_then_cites_the_new_version(home):
    candidate = propose()
    services = _session.services()
    owner = services.directory.principal("a.owner")
    services.candidates.approve(owner, candidate.candidate_id)
    at = knowledge_page()
    at.selectbox(key="knowledge.status").select("approved").run()
    at.button(key="knowledge.publish").click().run()
    assert not at.exception
    page = shown(at)
    assert "已發布 Published SOP\\-LEADTIME\\@3，取代 superseded v2" in page
    assert "5/5" in page and "active version switched" in page  # progress inside st.status
    result = services.retrieval.retrieve(
        services.directory.principal("a.sales"), "標準交期是幾天", as_of=date.today()
    )
    assert {e.version for e in result.evidence if e.document_id == "SOP-LEADTIME"} == {3}


def test_revoking_shows_the_purge_was_verified(home):
    at = knowledge_page()
    at.selectbox(key="knowledge.revoke_doc").select("SOP-PACKING").run()
    at.button(key="knowledge.revoke").click().run()
    assert "reason is required" in texts(at)  # nothing happens without a reason
    at.text_input(key="knowledge.revoke_reason").input("包裝規範停用")
    at.button(key="knowledge.revoke").click().run()
    assert not at.exception
    assert "Purge verified" in shown(at)
    services = _session.services()
    assert services.retrieval.caches.mentions("A/SOP-PACKING@") == 0
    versions = services.knowledge.versions(services.directory.principal("a.owner"), "SOP-PACKING")
    assert {v.version: v.status for v in versions}[1] == "revoked"


def test_a_draft_made_before_a_publication_is_flagged_stale_on_the_approvals_page(home):
    services = _session.services()
    sales, owner = (services.directory.principal(u) for u in ("a.sales", "a.owner"))
    # The queue shows only items of tasks awaiting approval: walk Q42 there as a run would.
    revision = services.tasks.get(sales, "Q42").state.revision
    for status in ("restoring", "retrieving", "analyzing", "reviewing", "awaiting_approval"):
        revision = services.tasks.update(
            sales, "Q42", expected_revision=revision, status=TaskStatus(status)
        ).state.revision
    services.approvals.request(
        sales,
        task_id="Q42",
        decision_version=revision,
        payload={
            "draft": "標準交期依 SOP-v2 為 15 日",
            "citations": [
                {"evidence_id": "SOP-LEADTIME@2:0-10", "document_id": "SOP-LEADTIME", "version": 2}
            ],
        },
    )
    before = logged_in("a.sales").switch_page("app_pages/approvals.py").run()
    assert "no longer current" not in texts(before)
    candidate = propose()
    services.candidates.approve(owner, candidate.candidate_id)
    services.publisher.publish(owner, candidate.candidate_id)
    after = logged_in("a.sales").switch_page("app_pages/approvals.py").run()
    assert not after.exception
    page = texts(after)
    assert "no longer current" in page and "current v3" in page and "Superseded" in page


def test_submitted_versions_are_brought_into_the_queue_and_published(home):
    at = knowledge_page()
    at.button(key="knowledge.adopt").click().run()
    assert not at.exception
    options = at.selectbox(key="knowledge.pick").options
    assert any("SOP-PACKING" in o for o in options) and any(
        "MEMO-AI-LEADTIME" in o for o in options
    )
    services = _session.services()
    owner = services.directory.principal("a.owner")
    packing = next(
        c
        for c in services.candidates.list(owner, statuses=["pending"])
        if c.document_id == "SOP-PACKING"
    )
    at.selectbox(key="knowledge.pick").select(packing.candidate_id).run()
    assert "VCI" in shown(at)
    at.button(key="knowledge.approve").click().run()
    at.selectbox(key="knowledge.status").select("approved").run()
    at.button(key="knowledge.publish").click().run()
    assert not at.exception
    assert "已發布 Published SOP\\-PACKING\\@2" in shown(at)
