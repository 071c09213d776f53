"""Approvals of a resumed draft, on SQLite and PostgreSQL: idempotent, concurrent-safe, never
automatic, engineering items for engineers, and people's decisions move the task on."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.contracts.task_state import TaskStatus
from services.core.errors import IdempotencyConflict, InvalidInput, NotAuthorized
from tests.conftest import principal
from tests.support.scenario import load_scenario, resume_q42


@pytest.fixture
def awaiting(services, tmp_path):
    load_scenario(services, tmp_path)
    run = resume_q42(services)
    assert run.status == "succeeded", run.error
    return services


def items(services, kind=None):
    found = services.approval_flow.current(principal(services, "a.sales"), "Q42")
    return [item for item in found if kind is None or item.kind == kind]


def test_a_ready_draft_asks_sales_and_engineering_and_approves_nothing(awaiting):
    [draft] = items(awaiting, "draft")
    engineering = items(awaiting, "engineering")
    assert draft.required_role == "sales"
    assert [item.payload["text"][:2] for item in engineering] == ["1.", "2.", "3."]
    assert {item.required_role for item in engineering} == {"engineer"}
    assert {item.status for item in items(awaiting)} == {"pending"}
    assert all(item.decided_by is None for item in items(awaiting))
    state = awaiting.tasks.get(principal(awaiting, "a.sales"), "Q42").state
    assert state.status == TaskStatus.awaiting_approval
    assert "engineering_confirmation" in state.pending
    assert draft.decision_version == draft.payload["decision"]["state_revision"]


def test_a_repeated_request_returns_the_first_and_a_changed_payload_is_refused(awaiting):
    sales = principal(awaiting, "a.sales")
    [draft] = items(awaiting, "draft")
    again = awaiting.approvals.request(
        sales,
        task_id="Q42",
        decision_version=draft.decision_version,
        payload=draft.payload,
        kind="draft",
        required_role="sales",
        item_key="draft",
        run_id=draft.run_id,
    )
    assert again.id == draft.id
    with pytest.raises(IdempotencyConflict):
        awaiting.approvals.request(
            sales,
            task_id="Q42",
            decision_version=draft.decision_version,
            payload={**draft.payload, "draft": "something else"},
            kind="draft",
            required_role="sales",
            item_key="draft",
        )
    assert len(items(awaiting)) == 4


def test_concurrent_requests_for_one_key_produce_exactly_one_approval(awaiting):
    sales = principal(awaiting, "a.sales")
    start = threading.Barrier(8)

    def request(_: int) -> int:
        start.wait()
        return awaiting.approvals.request(
            sales,
            task_id="Q42",
            decision_version=99,
            payload={"draft": "same"},
        ).id

    with ThreadPoolExecutor(max_workers=8) as pool:
        ids = set(pool.map(request, range(8)))
    assert len(ids) == 1
    assert (
        len(
            [a for a in awaiting.approvals.search(sales, task_id="Q42") if a.decision_version == 99]
        )
        == 1
    )


def test_concurrent_approvals_of_one_item_record_one_decision(awaiting):
    sales = principal(awaiting, "a.sales")
    [draft] = items(awaiting, "draft")
    start = threading.Barrier(6)

    def approve(_: int) -> str:
        start.wait()
        return awaiting.approval_flow.decide(
            sales, draft.id, approve=True, comment="ok"
        ).approval.status

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert set(pool.map(approve, range(6))) == {"approved"}
    admin = principal(awaiting, "a.admin")
    approved = [
        r
        for r in awaiting.audit.search(admin, action="approval.approved")
        if r.subject_id.endswith(":draft")
    ]
    assert len(approved) == 1


def test_roles_decide_only_their_own_items(awaiting):
    [draft] = items(awaiting, "draft")
    first = items(awaiting, "engineering")[0]
    with pytest.raises(NotAuthorized):
        awaiting.approval_flow.decide(principal(awaiting, "a.engineer"), draft.id, approve=True)
    with pytest.raises(NotAuthorized):
        awaiting.approval_flow.decide(principal(awaiting, "a.sales"), first.id, approve=True)
    with pytest.raises(InvalidInput):
        awaiting.approval_flow.decide(principal(awaiting, "a.engineer"), first.id, approve=False)


def test_all_approved_completes_the_task_with_who_when_why(awaiting, clock):
    engineer = principal(awaiting, "a.engineer")
    for item in items(awaiting, "engineering"):
        outcome = awaiting.approval_flow.decide(
            engineer, item.id, approve=True, comment="confirmed"
        )
        assert outcome.state.status == TaskStatus.awaiting_approval  # the draft is still open
    [draft] = items(awaiting, "draft")
    outcome = awaiting.approval_flow.decide(
        principal(awaiting, "a.sales"), draft.id, approve=True, comment="draft is fine"
    )
    assert outcome.state.status == TaskStatus.completed
    assert "engineering_confirmation" not in outcome.state.pending
    decided = {item.item_key: item for item in items(awaiting)}
    assert decided["draft"].decided_by == "a.sales"
    assert decided["draft"].comment == "draft is fine"
    assert decided["draft"].decided_at == clock.now()
    assert decided["engineering-1"].decided_by == "a.engineer"


def test_a_rejection_sends_the_task_back_for_input_with_the_reason(awaiting):
    [draft] = items(awaiting, "draft")
    outcome = awaiting.approval_flow.decide(
        principal(awaiting, "a.sales"), draft.id, approve=False, comment="cite the contract too"
    )
    assert outcome.state.status == TaskStatus.awaiting_approval  # engineering still pending
    engineer = principal(awaiting, "a.engineer")
    for item in items(awaiting, "engineering"):
        outcome = awaiting.approval_flow.decide(engineer, item.id, approve=True)
    assert outcome.state.status == TaskStatus.waiting_input
    assert "cite the contract too" in outcome.state.next_step


def test_a_new_resume_supersedes_the_old_draft(awaiting):
    old = items(awaiting, "draft")[0]
    run = resume_q42(awaiting, supplement=None)
    assert run.status == "succeeded"
    new = items(awaiting, "draft")[0]
    assert new.decision_version > old.decision_version
    with pytest.raises(InvalidInput, match="belongs to decision"):
        awaiting.approval_flow.decide(principal(awaiting, "a.sales"), old.id, approve=True)
