"""A process dies between writing approval rows and moving the task on; recovery finishes the
move without a second approval, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from services.approvals.flow import ApprovalFlow
from services.contracts.task_state import TaskStatus
from tests.conftest import principal
from tests.support.agents import rebuild_agents
from tests.support.scenario import SUPPLEMENT, CrashingTasks, SimulatedCrash, load_scenario


def test_crash_after_the_approval_requests_is_recovered_without_a_second_request(
    services, tmp_path, clock
):
    load_scenario(services, tmp_path)
    sales = principal(services, "a.sales")
    crashing = rebuild_agents(
        services, tasks=CrashingTasks(services.tasks, crash_on=TaskStatus.awaiting_approval)
    )
    run = services.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    with pytest.raises(SimulatedCrash):
        crashing.worker.drain(run.run_id)

    requested = services.approvals.search(sales, task_id="Q42")
    assert len(requested) == 4  # draft + 3 engineering items were written before the crash
    assert services.tasks.get(sales, "Q42").state.status == TaskStatus.reviewing
    assert services.runs.get(sales, run.run_id).status == "running"

    clock.advance(seconds=services.settings.run_timeout_seconds + 1)  # the claim goes stale
    recovered = services.worker.run_once()

    assert recovered is not None and recovered.run_id == run.run_id
    assert recovered.status == "succeeded"
    assert recovered.attempts == 2
    assert services.tasks.get(sales, "Q42").state.status == TaskStatus.awaiting_approval
    after = services.approvals.search(sales, task_id="Q42")
    assert [a.id for a in after] == [a.id for a in requested]
    assert {a.status for a in after} == {"pending"}
    kinds = [e.kind for e in services.runs.events(sales, run.run_id)]
    assert "resumed_from_checkpoint" in kinds
    assert kinds.count("model_call") == 1  # the reviewed decision was not produced again
    admin = principal(services, "a.admin")
    assert len(services.audit.search(admin, action="approval.requested")) == 4


def test_crash_after_the_last_decision_is_recovered_without_deciding_twice(services, tmp_path):
    load_scenario(services, tmp_path)
    sales, engineer = principal(services, "a.sales"), principal(services, "a.engineer")
    services.worker.drain(services.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT).run_id)
    flow = services.approval_flow
    for item in flow.current(sales, "Q42"):
        if item.kind == "engineering":
            flow.decide(engineer, item.id, approve=True, comment="confirmed")
    [draft] = [item for item in flow.current(sales, "Q42") if item.kind == "draft"]

    crashing = ApprovalFlow(
        db=services.db,
        approvals=services.approvals,
        tasks=CrashingTasks(services.tasks, crash_on=TaskStatus.completed),
        directory=services.directory,
    )
    with pytest.raises(SimulatedCrash):
        crashing.decide(sales, draft.id, approve=True, comment="looks right")

    decided = services.approvals.get(sales, draft.id)
    assert decided.status == "approved"
    assert services.tasks.get(sales, "Q42").state.status == TaskStatus.awaiting_approval

    assert flow.recover_all() == ["A/Q42"]
    state = services.tasks.get(sales, "Q42").state
    assert state.status == TaskStatus.completed
    again = services.approvals.get(sales, draft.id)
    assert (again.decided_by, again.decided_at, again.comment) == (
        decided.decided_by,
        decided.decided_at,
        decided.comment,
    )
    assert flow.recover_all() == []
    # Repeating the person's own click is harmless too: same decision, nothing new.
    repeat = flow.decide(sales, draft.id, approve=True, comment="looks right")
    assert repeat.approval.decided_at == decided.decided_at
    admin = principal(services, "a.admin")
    approved = services.audit.search(admin, action="approval.approved")
    assert len([r for r in approved if r.subject_id.endswith(":draft")]) == 1


def test_idle_recovery_reads_tasks_still_waiting_for_people_in_one_statement(services, tmp_path):
    # Every idle worker calls recover_all on every poll: a task whose items are still pending
    # must cost nothing beyond the one statement that finds the settleable tasks.
    load_scenario(services, tmp_path)
    sales = principal(services, "a.sales")
    services.worker.drain(services.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT).run_id)
    assert services.tasks.get(sales, "Q42").state.status == TaskStatus.awaiting_approval
    assert any(item.status == "pending" for item in services.approval_flow.current(sales, "Q42"))

    statements: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(statement)

    event.listen(services.db.engine, "before_cursor_execute", count)
    try:
        assert services.approval_flow.recover_all() == []
    finally:
        event.remove(services.db.engine, "before_cursor_execute", count)
    selects = [s for s in statements if s.lstrip().upper().startswith(("SELECT", "WITH"))]
    assert len(selects) == 1, statements
