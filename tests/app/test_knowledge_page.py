"""The knowledge owner's page from app.py: review a candidate's diff, approve, publish, revoke."""

from __future__ import annotations

from datetime import date

import pytest

from app_pages import _session
from services.contracts.task_state import TaskStatus
from services.publishing.candidates import CandidateView, Proposal
from tests.app.conftest import logged_in, texts, visit

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


def knowledge_page(user_id: str = "a.owner", candidate: str | None = None):
    at = logged_in(user_id)
    if candidate is None:
        return at.switch_page("app_pages/knowledge.py").run()
    return visit(at, "knowledge", candidate=candidate)


def table(at, key: str) -> list[dict]:
    """The rows of the static table inside the container with `key`."""
    [found] = [t for t in at.table if _inside(t, key)]
    return found.value.to_dict("records")


def _inside(element, key: str) -> bool:
    node = element
    while node is not None:
        if getattr(node, "key", None) == key:
            return True
        node = getattr(node, "parent", None)
    return False


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
    at = knowledge_page(candidate=candidate.candidate_id)
    assert not at.exception
    shown = texts(at)
    assert "供應商交期變更" in shown
    assert ":red-background[~~5~~]" in shown and ":green-background[8]" in shown
    [rows] = [t.value for t in at.table]
    assert set(rows["變更 change"]) == {"修改 Changed"}  # only changed lines, in words
    assert any("18" in row for row in rows["提議 Proposed"])
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
    at = knowledge_page("a.owner", candidate.candidate_id)
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
    at = knowledge_page(candidate=candidate.candidate_id)
    at.button(key="knowledge.publish").click().run()
    assert not at.exception
    page = shown(at)
    assert "已發布 Published SOP\\-LEADTIME\\@3，取代 superseded v2" in page
    assert "5/5" in page and "active version switched" in page  # progress inside st.status
    result = services.retrieval.retrieve(
        services.directory.principal("a.sales"), "標準交期是幾天", as_of=date.today()
    )
    assert {e.version for e in result.evidence if e.document_id == "SOP-LEADTIME"} == {3}


def test_revoking_defaults_to_one_version_and_confirms_what_is_purged(home):
    at = knowledge_page()
    at.selectbox(key="knowledge.revoke_doc").select("SOP-LEADTIME").run()
    assert at.selectbox(key="knowledge.revoke_version.SOP-LEADTIME").value == 2  # not all
    at.button(key="knowledge.revoke").click().run()
    named = texts(at)
    assert "You will revoke: **SOP\\-LEADTIME\\@2" in named
    assert "SOP\\-LEADTIME\\@1" not in named  # one version only
    assert "vectors and cache entries in the index" in named
    at.button(key="knowledge.revoke_confirm").click().run()
    assert "reason is required" in texts(at)  # nothing happens without a reason
    at.text_input(key="knowledge.revoke_reason").input("交期規範改版")
    at.button(key="knowledge.revoke_confirm").click().run()
    assert not at.exception
    [toast] = [t.value for t in at.toast]
    assert toast.startswith("已撤銷 Revoked SOP-LEADTIME v2; purge verified")
    services = _session.services()
    assert services.retrieval.caches.mentions("A/SOP-LEADTIME@2") == 0
    versions = services.knowledge.versions(services.directory.principal("a.owner"), "SOP-LEADTIME")
    assert {v.version: v.status for v in versions} == {1: "superseded", 2: "revoked"}


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


def packing(services):
    owner = services.directory.principal("a.owner")
    return next(
        c
        for c in services.candidates.list(owner, statuses=["pending"])
        if c.document_id == "SOP-PACKING"
    )


def test_landing_counts_what_waits_and_submitted_versions_join_the_queue(home):
    at = knowledge_page()
    counts = {m.label: m.value for m in at.metric}
    assert counts["送審中的文件版本 Submitted versions"] == "2"
    assert counts["待審候選 Candidates to review"] == "0"
    at.button(key="knowledge.adopt").click().run()
    assert not at.exception
    counts = {m.label: m.value for m in at.metric}
    assert counts["待審候選 Candidates to review"] == "2"
    assert counts["送審中的文件版本 Submitted versions"] == "0"
    options = at.selectbox(key="knowledge.pick").options
    assert any("SOP-PACKING" in o for o in options) and any(
        "MEMO-AI-LEADTIME" in o for o in options
    )
    candidate = packing(_session.services())
    at.selectbox(key="knowledge.pick").select(candidate.candidate_id).run()
    assert at.query_params == {"candidate": candidate.candidate_id}  # the candidate's own URL
    assert "VCI" in shown(at)


def test_an_owner_edits_title_and_body_as_a_new_revision_then_publishes_it(home):
    services = _session.services()
    services.candidates.adopt_pending(services.directory.principal("a.owner"))
    original = packing(services)
    assert "（修訂草案）" in original.title and "待知識負責人核准" in original.body
    at = knowledge_page(candidate=original.candidate_id)
    title = original.title.replace("（修訂草案）", "").strip()
    body = "\n".join(line for line in original.body.splitlines() if "待知識負責人核准" not in line)
    at.text_input(key="knowledge.edit_title").input(title)
    at.text_area(key="knowledge.edit_body").input(body)
    at.text_input(key="knowledge.edit_note").input("去掉草案字樣")
    [save] = [b for b in at.button if b.label == "儲存為新修訂 Save as a new revision"]
    save.click().run()
    assert not at.exception
    revision_id = at.query_params["candidate"]
    assert revision_id != original.candidate_id
    page = texts(at)
    assert "修訂 revision 2（a\\.owner 編輯 edited）" in page
    assert "本次修訂 This revision's edit" in [s.value for s in at.subheader]
    assert ":red-background[~~" in page and "待知識負責人核准" in page  # the edit, struck out
    owner = services.directory.principal("a.owner")
    assert services.candidates.get(owner, original.candidate_id).status == "revised"
    # The old revision says where its successor is.
    old = knowledge_page(candidate=original.candidate_id)
    assert ("開啟新修訂 Open the newer revision " + revision_id) in [
        link.value for link in old.get("page_link")
    ]

    at.button(key="knowledge.approve").click().run()
    at.button(key="knowledge.publish").click().run()
    assert not at.exception
    published = services.knowledge.get(owner, "SOP-PACKING")
    assert published.title == title and "待知識負責人核准" not in published.body
    assert "（修訂草案）" not in published.title


def test_an_approved_unpublished_candidate_can_be_withdrawn_or_rejected(home):
    services = _session.services()
    owner = services.directory.principal("a.owner")
    first, second = propose(), propose("a.sales2")
    services.candidates.approve(owner, first.candidate_id)
    services.candidates.approve(owner, second.candidate_id)
    at = knowledge_page(candidate=first.candidate_id)
    at.text_input(key="knowledge.withdraw_reason").input("還要跟採購確認")
    at.button(key="knowledge.withdraw").click().run()
    assert not at.exception
    assert services.candidates.get(owner, first.candidate_id).status == "pending"
    assert at.button(key="knowledge.approve")  # pending again: it can be edited or approved

    at = knowledge_page(candidate=second.candidate_id)
    at.button(key="knowledge.reject_approved").click().run()
    assert "reason is required" in texts(at)  # a reason first
    at.text_input(key="knowledge.withdraw_reason").input("與現行規範重複")
    at.button(key="knowledge.reject_approved").click().run()
    rejected = services.candidates.get(owner, second.candidate_id)
    assert (rejected.status, rejected.decision_comment) == ("rejected", "與現行規範重複")


def test_another_tenants_candidate_link_says_not_found(home):
    candidate = propose()
    at = knowledge_page("b.owner", candidate.candidate_id)
    assert [e.value for e in at.error] == [
        f"找不到 Not found: candidate {candidate.candidate_id.replace('-', chr(92) + '-')}"
    ]
