"""Approvals: idempotent on tenant + task + decision_version + item, decided only by a person."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.core.errors import (
    IdempotencyConflict,
    IllegalTransition,
    InvalidInput,
    NotAuthorized,
    NotFound,
)
from tests.conftest import principal

DRAFT = {"text": "標準交期依 SOP-v2 為 15 日；本案含特殊檢驗，總交期仍待工程確認。"}


def request(services, user="a.sales", **overrides):
    fields = {"task_id": "Q42", "decision_version": 1, "payload": DRAFT} | overrides
    return services.approvals.request(principal(services, user), **fields)


def test_a_repeated_request_returns_the_first_result(loaded):
    first = request(loaded)
    again = request(loaded, user="a.sales2")
    assert again == first
    assert len(loaded.approvals.search(principal(loaded, "a.sales"), task_id="Q42")) == 1
    assert loaded.audit.count(principal(loaded, "a.admin"), action="approval.requested") == 1


def test_same_key_with_a_different_payload_is_refused(loaded):
    request(loaded)
    with pytest.raises(IdempotencyConflict):
        request(loaded, payload={"text": "交期 10 日"})
    with pytest.raises(IdempotencyConflict):
        request(loaded, required_role="engineer")


def test_a_new_decision_version_or_item_is_a_new_request(loaded):
    first = request(loaded)
    second = request(loaded, decision_version=2)
    item = request(loaded, item_key="special_inspection", required_role="engineer")
    assert len({first.id, second.id, item.id}) == 3


@pytest.mark.parametrize("same_payload", [True, False], ids=["same", "different"])
def test_concurrent_submissions_leave_exactly_one_row(loaded, same_payload):
    start = threading.Barrier(8)

    def submit(n: int):
        payload = DRAFT if same_payload else {"text": f"draft {n}"}
        start.wait()
        try:
            return request(loaded, payload=payload)
        except IdempotencyConflict:
            return None

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(submit, range(8)))
    rows = loaded.approvals.search(principal(loaded, "a.sales"), task_id="Q42")
    assert len(rows) == 1
    winners = [r for r in results if r is not None]
    assert {r.id for r in winners} == {rows[0].id}
    assert len(winners) == (8 if same_payload else 1)


def test_nothing_is_approved_without_a_person(loaded):
    approval = request(loaded)
    assert (approval.status, approval.decided_by, approval.decided_at) == ("pending", None, None)
    assert loaded.approvals.get(principal(loaded, "a.sales"), approval.id).status == "pending"


def test_a_decision_records_who_when_and_why(loaded, clock):
    approval = request(loaded, item_key="special_inspection", required_role="engineer")
    with pytest.raises(NotAuthorized):
        loaded.approvals.decide(principal(loaded, "a.sales"), approval.id, approve=True)
    clock.advance(hours=3)
    decided = loaded.approvals.decide(
        principal(loaded, "a.engineer"), approval.id, approve=True, comment="inspection: +3 days"
    )
    assert (decided.status, decided.decided_by, decided.comment) == (
        "approved",
        "a.engineer",
        "inspection: +3 days",
    )
    assert decided.decided_at == clock.now()


def test_rejecting_needs_a_comment(loaded):
    approval = request(loaded)
    with pytest.raises(InvalidInput):
        loaded.approvals.decide(principal(loaded, "a.sales"), approval.id, approve=False)


def test_a_decision_can_be_repeated_but_not_reversed(loaded):
    approval = request(loaded)
    sales = principal(loaded, "a.sales")
    first = loaded.approvals.decide(sales, approval.id, approve=True, comment="ok")
    assert loaded.approvals.decide(sales, approval.id, approve=True) == first
    with pytest.raises(IllegalTransition):
        loaded.approvals.decide(sales, approval.id, approve=False, comment="changed my mind")


def test_another_tenant_sees_no_approval_and_no_task(loaded):
    approval = request(loaded)
    other = principal(loaded, "b.sales")
    with pytest.raises(NotFound) as hidden:
        loaded.approvals.get(other, approval.id)
    with pytest.raises(NotFound) as missing:
        loaded.approvals.get(other, 999_999)
    assert str(hidden.value).split(":")[0] == str(missing.value).split(":")[0]
    with pytest.raises(NotFound):
        loaded.approvals.decide(other, approval.id, approve=True)
    with pytest.raises(NotFound):
        request(loaded, user="b.sales")


def test_two_people_deciding_at_once_leave_one_decision(loaded):
    approval = request(loaded)
    start = threading.Barrier(2)

    def decide(approve: bool):
        start.wait()
        user = "a.sales" if approve else "a.sales2"
        try:
            return loaded.approvals.decide(
                principal(loaded, user), approval.id, approve=approve, comment="decided"
            )
        except IllegalTransition:
            return None

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = [r for r in pool.map(decide, [True, False]) if r is not None]
    assert len(results) == 1
    final = loaded.approvals.get(principal(loaded, "a.sales"), approval.id)
    assert (final.status, final.decided_by) == (results[0].status, results[0].decided_by)
    decisions = [
        e.action
        for e in loaded.audit.search(principal(loaded, "a.admin"))
        if e.action in ("approval.approved", "approval.rejected")
    ]
    assert len(decisions) == 1
