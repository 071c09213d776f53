"""The review desk service (services/desk.py) on the demo corpus: tenant and role refusals,
conflict settlement and escalation with reasons in the audit log, stale decisions refused."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from pathlib import Path

import pytest

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.core.errors import InvalidInput, NotAuthorized, NotFound, StaleRevision
from services.settings import Settings
from tests.support.ids import SequentialIds

DATA = Path(__file__).resolve().parents[2] / "data"
AS_OF = date(2026, 11, 29)
Q42_SUPPLEMENT = "客戶確認需要特殊檢驗，請接著處理。"
Q43_SUPPLEMENT = (
    "陳先生回覆：表面處理確定改成黑色硬陽極，請依我們公司的標準確認膜厚後繼續準備報價。"
)
Q46_SUPPLEMENT = "客戶確認鹽霧試驗報告是出貨必附文件，請依公司標準確認試驗時數後繼續。"


@pytest.fixture(scope="module")
def desk_store(tmp_path_factory) -> Iterator[Services]:
    """The demo corpus with Q42 at a draft and Q43/Q46 stopped on conflicting sources. Each test
    below writes to at most one task that no other test reads."""
    clock = FakeClock(datetime.combine(AS_OF, time(9), tzinfo=UTC))
    services = bootstrap.build(
        Settings(home=tmp_path_factory.mktemp("desk"), analyzer="offline"),
        clock=clock,
        ids=SequentialIds(),
    )
    bootstrap.initialise(services)
    services.importer.import_file(DATA / "demo-corpus.json")
    services.index.sync()
    sales = services.directory.principal("a.sales")
    for task_id, supplement in (
        ("Q42", Q42_SUPPLEMENT),
        ("Q43", Q43_SUPPLEMENT),
        ("Q46", Q46_SUPPLEMENT),
    ):
        services.resumer.resume(sales, task_id, supplement=supplement, as_of=AS_OF)
    yield services
    services.close()


def who(services: Services, user_id: str):
    return services.directory.principal(user_id)


def conflict_of(services: Services, task_id: str):
    cases = {
        c.record.state.task_id: c for c in services.desk.open_conflicts(who(services, "a.sales"))
    }
    case = cases[task_id]
    [conflict] = case.source_conflicts
    return case.record.state, conflict


def test_open_conflicts_show_each_disagreement_once_side_by_side(desk_store):
    state, conflict = conflict_of(desk_store, "Q43")
    assert sorted(v["document_id"] for v in conflict.values) == ["SOP-ANODIZE", "SOP-ANODIZE-QC"]
    assert sorted(v["value"] for v in conflict.values) == ["25 µm", "35 µm"]
    assert state.status.value == "waiting_input"


@pytest.mark.parametrize(
    ("user", "error"),
    [
        ("a.engineer", NotAuthorized),
        ("a.owner", NotAuthorized),
        ("b.sales", NotFound),
        ("b.admin", NotFound),
    ],
)
def test_only_sales_or_admin_of_the_tenant_may_settle(desk_store, user, error):
    state, conflict = conflict_of(desk_store, "Q43")
    with pytest.raises(error):
        desk_store.desk.settle_source_conflict(
            who(desk_store, user),
            "Q43",
            expected_revision=state.revision,
            run_id=conflict.run_id,
            fact=conflict.fact,
            action="choose",
            evidence_id=conflict.values[0]["evidence_id"],
            reason="試試看",
        )
    assert desk_store.tasks.get(who(desk_store, "a.sales"), "Q43").state.revision == state.revision


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"reason": "  "}, InvalidInput),
        ({"evidence_id": "SOP-LEADTIME@2:0-10"}, InvalidInput),
        ({"evidence_id": None}, InvalidInput),
        ({"fact": "另一個事實"}, NotFound),
        ({"expected_revision": 1}, StaleRevision),
    ],
    ids=["no-reason", "not-a-candidate", "no-choice", "unknown-fact", "stale"],
)
def test_a_settlement_with_bad_input_changes_nothing(desk_store, changes, error):
    state, conflict = conflict_of(desk_store, "Q43")
    arguments = {
        "expected_revision": state.revision,
        "run_id": conflict.run_id,
        "fact": conflict.fact,
        "action": "choose",
        "evidence_id": conflict.values[0]["evidence_id"],
        "reason": "依品保規範",
        **changes,
    }
    with pytest.raises(error):
        desk_store.desk.settle_source_conflict(who(desk_store, "a.sales"), "Q43", **arguments)
    assert desk_store.tasks.get(who(desk_store, "a.sales"), "Q43").state.revision == state.revision


def test_escalating_blocks_the_task_and_audits_the_reason(desk_store):
    state, conflict = conflict_of(desk_store, "Q46")
    record = desk_store.desk.settle_source_conflict(
        who(desk_store, "a.admin"),
        "Q46",
        expected_revision=state.revision,
        run_id=conflict.run_id,
        fact=conflict.fact,
        action="escalate",
        reason="兩份 SOP 皆有效，需品保主管裁示",
    )
    assert record.state.status.value == "blocked"
    assert record.state.revision == state.revision + 1
    [entry] = desk_store.audit.search(
        who(desk_store, "a.admin"), action="task.source_conflict_escalated"
    )
    assert (entry.actor, entry.subject_id) == ("a.admin", "Q46")
    assert entry.detail["reason"] == "兩份 SOP 皆有效，需品保主管裁示"
    assert sorted(entry.detail["candidates"]) == sorted(v["evidence_id"] for v in conflict.values)
    timeline = desk_store.desk.task_view(who(desk_store, "a.sales"), "Q46").timeline
    assert timeline[0].title == "source_conflict_escalated" and timeline[0].actor == "a.admin"


def test_queues_hold_only_the_items_of_the_deciders_role(desk_store):
    sales = desk_store.desk.approval_queue(who(desk_store, "a.sales"))
    engineer = desk_store.desk.approval_queue(who(desk_store, "a.engineer"))
    assert {c.approval.kind for c in sales} == {"draft"}
    assert {c.approval.kind for c in engineer} == {"engineering"}
    assert desk_store.desk.approval_queue(who(desk_store, "b.sales")) == []
    [draft] = sales
    assert draft.draft is not None
    refs = {c.ref for claim in draft.draft.claims for c in claim.citations}
    assert "SOP-LEADTIME@2" in refs and "SOP-LEADTIME@1" not in refs


def test_deciding_on_a_revision_that_moved_is_refused(desk_store):
    sales = who(desk_store, "a.sales")
    [card] = desk_store.desk.approval_queue(sales)
    with pytest.raises(StaleRevision):
        desk_store.desk.decide(
            sales, card.approval.id, approve=True, comment="", seen_revision=card.task_revision - 1
        )
    assert desk_store.approvals.get(sales, card.approval.id).status == "pending"
    diff = desk_store.desk.changes_since(sales, "Q42", card.task_revision - 1)
    assert diff.stale and diff.writes


def test_another_tenant_cannot_open_a_citation(desk_store):
    own = desk_store.desk.evidence_view(who(desk_store, "a.sales"), "SOP-LEADTIME@2:0-20")
    assert own.eligible and own.hash_ok
    with pytest.raises(NotFound):
        desk_store.desk.evidence_view(who(desk_store, "b.sales"), "SOP-LEADTIME@2:0-20")
    superseded = desk_store.desk.evidence_view(who(desk_store, "a.sales"), "SOP-LEADTIME@1:0-10")
    assert superseded.document.status == "superseded" and not superseded.eligible
    with pytest.raises(NotFound):  # a draft is not readable outside the curators
        desk_store.desk.evidence_view(who(desk_store, "a.sales"), "DRAFT-INJECT@1:0-5")
    with pytest.raises(InvalidInput):
        desk_store.desk.evidence_view(who(desk_store, "a.sales"), "not a citation")
