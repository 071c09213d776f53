"""Knowledge owners edit candidates before publishing (a new revision with its diff), withdraw or
reject an approved candidate that is not published yet, and see what waits for them."""

from __future__ import annotations

import pytest

from services.core.errors import InvalidInput, NotAuthorized
from services.publishing.candidates import Proposal
from tests.conftest import principal


def propose(services, user_id: str = "a.sales", body: str = "交期為 18 個工作天。"):
    return services.candidates.propose(
        principal(services, user_id),
        Proposal(document_id="SOP-NEW", title="（草案）新規範", body=body, rationale="r"),
    )


def test_an_edit_is_a_new_revision_with_its_diff_and_the_proposer_stays(loaded):
    owner = principal(loaded, "a.owner")
    first = propose(loaded)
    second = loaded.candidates.revise(
        owner, first.candidate_id, title="新規範", body="交期為 20 個工作天。", note="改天數"
    )
    assert second.candidate_id != first.candidate_id
    assert (second.revision, second.revised_from, second.proposed_by) == (
        2,
        first.candidate_id,
        "a.sales",
    )
    assert loaded.candidates.get(owner, first.candidate_id).status == "revised"
    review = loaded.candidates.review(owner, second.candidate_id)
    assert review.previous is not None and review.previous.candidate_id == first.candidate_id
    assert review.title_changed
    assert review.revision_diff is not None
    changed = [(s.kind, s.text) for s in review.revision_diff.inline if s.kind != "equal"]
    assert ("delete", "18") in changed and ("insert", "20") in changed
    assert loaded.candidates.review(owner, first.candidate_id).newer == second.candidate_id
    assert review.can_approve  # the owner who edited is not the proposer
    with pytest.raises(InvalidInput, match="revised"):
        loaded.candidates.approve(owner, first.candidate_id)


@pytest.mark.parametrize(
    ("title", "body", "problem"),
    [
        ("", "x", "title"),
        ("t" * 301, "x", "title"),
        ("t", "  ", "body"),
        ("（草案）新規範", "交期為 18 個工作天。", "nothing changed"),
    ],
)
def test_a_bad_edit_names_its_field_and_changes_nothing(loaded, title, body, problem):
    owner = principal(loaded, "a.owner")
    first = propose(loaded)
    with pytest.raises(InvalidInput, match=problem):
        loaded.candidates.revise(owner, first.candidate_id, title=title, body=body)
    assert loaded.candidates.get(owner, first.candidate_id).status == "pending"


def test_only_knowledge_owners_edit(loaded):
    first = propose(loaded)
    with pytest.raises(NotAuthorized):
        loaded.candidates.revise(
            principal(loaded, "a.sales"), first.candidate_id, title="x", body="y"
        )


def test_an_approved_unpublished_candidate_is_withdrawn_or_rejected(loaded):
    owner = principal(loaded, "a.owner")
    first, second = propose(loaded), propose(loaded, body="另一個提議。")
    loaded.candidates.approve(owner, first.candidate_id)
    loaded.candidates.approve(owner, second.candidate_id)
    with pytest.raises(InvalidInput, match="reason"):
        loaded.candidates.withdraw(owner, first.candidate_id, reason=" ")
    back = loaded.candidates.withdraw(owner, first.candidate_id, reason="再確認")
    assert (back.status, back.decided_by) == ("pending", None)
    edited = loaded.candidates.revise(owner, first.candidate_id, title="新規範", body="改過。")
    assert edited.status == "pending"
    rejected = loaded.candidates.reject(owner, second.candidate_id, reason="重複")
    assert rejected.status == "rejected"
    with pytest.raises(InvalidInput, match="not approved"):
        loaded.candidates.withdraw(owner, second.candidate_id, reason="x")


def test_what_waits_is_counted_for_the_owner(loaded):
    owner = principal(loaded, "a.owner")
    before = loaded.candidates.waiting(owner)
    first = propose(loaded)
    propose(loaded, body="第二個。")
    loaded.candidates.approve(owner, first.candidate_id)
    after = loaded.candidates.waiting(owner)
    assert (after.pending - before.pending, after.approved - before.approved) == (1, 1)
    with pytest.raises(NotAuthorized):
        loaded.candidates.waiting(principal(loaded, "a.sales"))
