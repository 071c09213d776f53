"""Approvals of a resumed draft, on SQLite and PostgreSQL: idempotent, concurrent-safe, never
automatic, engineering items for engineers, and people's decisions move the task on."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.approvals.handover import EngineeringHandover, EngineeringResult
from services.contracts.task_state import TaskStatus
from services.core.errors import (
    IdempotencyConflict,
    IllegalTransition,
    InvalidInput,
    NotAuthorized,
    NotFound,
)
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


def approve_engineering(services, **result):
    engineer = principal(services, "a.engineer")
    for item in items(services, "engineering"):
        services.approval_flow.decide(
            engineer,
            item.id,
            approve=True,
            comment="confirmed",
            result=EngineeringResult(**result) if result else None,
        )


def test_concurrent_approvals_of_one_item_record_one_decision(awaiting):
    sales = principal(awaiting, "a.sales")
    approve_engineering(awaiting)
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


def test_an_approval_read_before_another_person_completed_the_task_is_a_repeat(
    awaiting, monkeypatch
):
    """The race the concurrent test can hit: this approver read the draft while it was pending,
    another approved it and the task completed before this approver's checks ran."""
    sales = principal(awaiting, "a.sales")
    approve_engineering(awaiting)
    [draft] = items(awaiting, "draft")
    awaiting.approval_flow.decide(sales, draft.id, approve=True, comment="first")
    assert awaiting.tasks.get(sales, "Q42").state.status == TaskStatus.completed
    store = awaiting.approval_flow._approvals
    fresh = store.get
    reads = iter([draft])  # the first read returns the view from before the other approval
    monkeypatch.setattr(store, "get", lambda p, i: next(reads, None) or fresh(p, i))
    outcome = awaiting.approval_flow.decide(sales, draft.id, approve=True, comment="second")
    assert outcome.approval.status == "approved"
    assert outcome.approval.comment == "first"
    assert outcome.state.status == TaskStatus.completed
    reads = iter([draft])
    with pytest.raises(InvalidInput, match="completed, not awaiting approval"):
        awaiting.approval_flow.decide(sales, draft.id, approve=False, comment="too late")


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


def test_a_draft_rejection_sends_the_task_back_at_once_and_withdraws_the_rest(awaiting):
    [draft] = items(awaiting, "draft")
    outcome = awaiting.approval_flow.decide(
        principal(awaiting, "a.sales"), draft.id, approve=False, comment="cite the contract too"
    )
    assert outcome.state.status == TaskStatus.waiting_input
    assert "cite the contract too" in outcome.state.next_step
    assert {item.status for item in items(awaiting, "engineering")} == {"withdrawn"}
    assert awaiting.approval_flow.queue(principal(awaiting, "a.engineer")) == []


def test_the_draft_waits_for_every_engineering_item_of_its_decision(awaiting):
    sales, engineer = principal(awaiting, "a.sales"), principal(awaiting, "a.engineer")
    [draft] = items(awaiting, "draft")
    first, *rest = items(awaiting, "engineering")
    awaiting.approval_flow.decide(engineer, first.id, approve=True, comment="ok")
    assert [w.item_key for w in awaiting.approval_flow.waiting_for(sales, draft.id)] == [
        item.item_key for item in rest
    ]
    with pytest.raises(InvalidInput, match="waits for engineering: engineering-2"):
        awaiting.approval_flow.decide(sales, draft.id, approve=True, comment="looks fine")
    assert items(awaiting, "draft")[0].status == "pending"
    for item in rest:
        awaiting.approval_flow.decide(engineer, item.id, approve=True, comment="ok")
    assert awaiting.approval_flow.waiting_for(sales, draft.id) == []
    outcome = awaiting.approval_flow.decide(sales, draft.id, approve=True, comment="fine")
    assert outcome.state.status == TaskStatus.completed


def test_an_engineering_rejection_sends_the_task_back_with_the_reason(awaiting):
    engineer = principal(awaiting, "a.engineer")
    first, second, third = items(awaiting, "engineering")
    awaiting.approval_flow.decide(engineer, first.id, approve=True, comment="ok")
    outcome = awaiting.approval_flow.decide(
        engineer, second.id, approve=False, comment="fixture not available this month"
    )
    assert outcome.state.status == TaskStatus.waiting_input
    assert "engineering-2 rejected by a.engineer: fixture not available" in (
        outcome.state.next_step or ""
    )
    statuses = {item.item_key: item.status for item in items(awaiting)}
    assert statuses == {
        "draft": "withdrawn",
        "engineering-1": "approved",
        "engineering-2": "rejected",
        "engineering-3": "withdrawn",
    }
    with pytest.raises(IllegalTransition):
        awaiting.approvals.decide(engineer, third.id, approve=True)


def test_an_engineers_structured_result_is_recorded_and_handed_to_the_next_run(awaiting):
    approve_engineering(
        awaiting,
        extra_working_days=3,
        method="CMM full inspection",
        acceptance_criteria="±0.01 mm on all datums",
        equipment="Zeiss CMM",
    )
    sales = principal(awaiting, "a.sales")
    decided = items(awaiting, "engineering")
    assert decided[0].result == {
        "extra_working_days": 3,
        "method": "CMM full inspection",
        "acceptance_criteria": "±0.01 mm on all datums",
        "equipment": "Zeiss CMM",
    }
    facts = EngineeringHandover(approvals=awaiting.approvals).facts(sales, "Q42")
    assert [fact.approval_id for fact in facts] == [item.id for item in decided]
    evidence = facts[0].as_evidence()
    assert evidence.evidence_id == f"APPROVAL-{decided[0].id}@{decided[0].decision_version}:0-" + (
        str(len(evidence.quote))
    )
    assert "extra working days: 3" in evidence.quote and evidence.knowledge_class == "fact"
    # Another tenant sees no such record.
    assert (
        EngineeringHandover(approvals=awaiting.approvals).facts(
            principal(awaiting, "b.sales"), "Q42"
        )
        == []
    )


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        ({"extra_working_days": -1}, "extra_working_days"),
        ({"extra_working_days": 400}, "extra_working_days"),
        ({"method": "x" * 301}, "method"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_structured_result_names_its_field(result, problem):
    with pytest.raises(InvalidInput, match=problem):
        EngineeringResult.parse(result)


def test_a_result_goes_only_with_an_engineering_approval(awaiting):
    [draft] = items(awaiting, "draft")
    first = items(awaiting, "engineering")[0]
    result = EngineeringResult(extra_working_days=2)
    with pytest.raises(InvalidInput, match="no result"):
        awaiting.approval_flow.decide(
            principal(awaiting, "a.sales"), draft.id, approve=True, result=result
        )
    with pytest.raises(InvalidInput, match="not with a rejection"):
        awaiting.approval_flow.decide(
            principal(awaiting, "a.engineer"), first.id, approve=False, comment="no", result=result
        )


def test_a_new_resume_supersedes_the_old_draft(awaiting):
    old = items(awaiting, "draft")[0]
    run = resume_q42(awaiting, supplement=None)
    assert run.status == "succeeded"
    new = items(awaiting, "draft")[0]
    assert new.decision_version > old.decision_version
    with pytest.raises(InvalidInput, match="belongs to decision"):
        awaiting.approval_flow.decide(principal(awaiting, "a.sales"), old.id, approve=True)


def test_the_next_run_gets_engineering_results_as_evidence_cited_to_their_approval(awaiting):
    approve_engineering(awaiting, extra_working_days=3, method="CMM full inspection")
    sales = principal(awaiting, "a.sales")
    [draft] = items(awaiting, "draft")
    awaiting.approval_flow.decide(sales, draft.id, approve=False, comment="state the days")
    run = resume_q42(awaiting, supplement=None)
    assert run.status == "succeeded", run.error
    handoffs = [e for e in awaiting.runs.events(sales, run.run_id) if e.kind == "handoff"]
    data = next(
        h.payload["payload"] for h in handoffs if h.payload["payload_schema"] == "memory-input@1"
    )
    approved = {f"APPROVAL-{item.id}" for item in items_of(awaiting, draft.decision_version)}
    cited = [e for e in data["evidence"] if e["document_id"] in approved]
    assert len(cited) == 3 and {e["knowledge_class"] for e in cited} == {"fact"}
    assert all("extra working days: 3" in e["quote"] for e in cited), [e["quote"] for e in cited]
    backed = {eid for need in data["needs"] for eid in need["evidence_ids"]}
    assert {e["evidence_id"] for e in cited} <= backed  # each backs a need of the run
    # Review and approval re-check such a citation like any other: it resolves while it holds.
    first = cited[0]["evidence_id"]
    assert awaiting.approval_flow._retriever.resolve(sales, first).quote == cited[0]["quote"]
    with pytest.raises(NotFound):
        awaiting.approval_flow._retriever.resolve(sales, first.replace(":0-", ":1-"))
    # The evidence page shows the record beside its text; another tenant finds nothing.
    shown = awaiting.desk.evidence_view(sales, first)
    assert shown.document.body == cited[0]["quote"] and shown.hash_ok and shown.quote_matches
    assert shown.document.approved_by == "a.engineer"
    with pytest.raises(NotFound):
        awaiting.desk.evidence_view(principal(awaiting, "b.sales"), first)


def items_of(services, version):
    sales = principal(services, "a.sales")
    return [
        item
        for item in services.approvals.search(sales, task_id="Q42")
        if item.decision_version == version and item.kind == "engineering"
    ]


def rerun_after_rejection(services):
    """Sales sends the draft back; the task's next run."""
    sales = principal(services, "a.sales")
    [draft] = items(services, "draft")
    services.approval_flow.decide(sales, draft.id, approve=False, comment="state the days")
    run = resume_q42(services, supplement=None)
    assert run.status == "succeeded", run.error
    return run


def test_the_offline_draft_states_engineering_results_cited_to_their_approval(awaiting):
    approve_engineering(awaiting, extra_working_days=3, method="CMM full inspection")
    confirmed = items(awaiting, "engineering")
    run = rerun_after_rejection(awaiting)
    assert run.review is not None and run.review["passed"], run.review
    claims = run.decision["claims"]
    stated = [c for c in claims if c["text"].startswith("工程已確認")]
    # One claim per confirmed point, each citing nothing but its own approval record.
    assert sorted(c["evidence_ids"][0].split("@")[0] for c in stated) == sorted(
        f"APPROVAL-{item.id}" for item in confirmed
    )
    assert all(len(c["evidence_ids"]) == 1 and "extra working days: 3" in c["text"] for c in stated)
    # A confirmed point is not asked again: not in the draft, not in the engineer's queue.
    assert not [c for c in claims if c["text"].startswith("需工程確認")]
    assert [item.kind for item in items(awaiting)] == ["draft"]
    assert awaiting.approval_flow.queue(principal(awaiting, "a.engineer")) == []
    [draft] = items(awaiting, "draft")
    outcome = awaiting.approval_flow.decide(
        principal(awaiting, "a.sales"), draft.id, approve=True, comment="days stated"
    )
    assert outcome.state.status == TaskStatus.completed


def test_a_point_confirmed_without_a_result_is_asked_again(awaiting):
    approve_engineering(awaiting)  # approved, but nothing recorded to hand over
    rerun_after_rejection(awaiting)
    assert [item.kind for item in items(awaiting)] == ["draft"] + ["engineering"] * 3


def test_a_later_rejection_of_a_point_withdraws_its_earlier_result(awaiting):
    sales, engineer = principal(awaiting, "a.sales"), principal(awaiting, "a.engineer")
    approve_engineering(awaiting, extra_working_days=3)
    first = items(awaiting, "engineering")[0]
    handover = EngineeringHandover(approvals=awaiting.approvals)
    assert len(handover.facts(sales, "Q42")) == 3
    # The same point decided again in a later decision (a store from before confirmed points
    # stopped being asked again), and rejected this time.
    again = awaiting.approvals.request(
        sales,
        task_id="Q42",
        decision_version=first.decision_version + 1,
        payload=first.payload,
        kind="engineering",
        required_role="engineer",
        item_key=first.item_key,
    )
    awaiting.approvals.decide(engineer, again.id, approve=False, comment="needs a new fixture")
    texts = [fact.item_text for fact in handover.facts(sales, "Q42")]
    assert first.payload["text"] not in texts and len(texts) == 2
