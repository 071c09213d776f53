"""How a resume treats the task state: supplements merge as evidence without overwriting confirmed
fields, every hand-off leaves a packet and a checkpoint, and evidence a checkpoint relied on is
re-validated before it is used again."""

from __future__ import annotations

from services.contracts.corpus import DocStatus
from services.contracts.packets import HandoffPacket
from services.contracts.task_state import TaskStatus
from tests.conftest import principal
from tests.support.scenario import SUPPLEMENT, load_scenario, resume_q42


def test_a_supplement_contradicting_a_confirmed_field_becomes_a_conflict(services, tmp_path):
    load_scenario(services, tmp_path)
    run = resume_q42(services, supplement="客戶確認需要特殊檢驗，數量改為 1,500 件。")
    sales = principal(services, "a.sales")
    record = services.tasks.get(sales, "Q42")
    assert record.state.confirmed["quantity"] == 1200  # never overwritten
    [conflict] = record.conflicts
    assert (conflict.field, conflict.confirmed, conflict.proposed) == ("quantity", 1200, 1500)
    assert conflict.source == run.run_id
    assert record.state.status == TaskStatus.waiting_input
    assert "quantity" in record.state.next_step
    assert services.approvals.search(sales, task_id="Q42") == []


def test_the_supplement_is_merged_as_evidence_and_answers_the_pending_item(services, tmp_path):
    load_scenario(services, tmp_path)
    run = resume_q42(services)
    state = services.tasks.get(principal(services, "a.sales"), "Q42").state
    assert f"supplement:{run.run_id}" in state.evidence_ids
    assert "MAIL-42" in state.evidence_ids
    assert state.confirmed == {"material": "SUS304", "quantity": 1200, "special_inspection": True}
    assert "special_inspection" not in state.pending


def test_a_declined_requirement_is_not_looked_up(services, tmp_path):
    load_scenario(services, tmp_path)
    run = resume_q42(services, supplement="客戶確認不需要特殊檢驗，請依標準交期回覆。")
    sales = principal(services, "a.sales")
    state = services.tasks.get(sales, "Q42").state
    assert state.confirmed["special_inspection"] is False
    needs = [
        e.payload["need"] for e in services.runs.events(sales, run.run_id) if e.kind == "retrieval"
    ]
    assert "special_inspection" not in needs


def test_every_hand_off_leaves_a_packet_and_a_checkpoint(services, tmp_path):
    load_scenario(services, tmp_path)
    run = resume_q42(services)
    sales = principal(services, "a.sales")
    packets = [
        HandoffPacket.model_validate(e.payload)
        for e in services.runs.events(sales, run.run_id)
        if e.kind == "handoff"
    ]
    assert [(p.source_agent, p.target_agent) for p in packets] == [
        ("supervisor", "analysis"),
        ("analysis", "review"),
        ("review", "supervisor"),
        ("supervisor", "human"),
    ]
    assert [p.payload_schema for p in packets] == [
        "memory-input@1",
        "memory-decision@1",
        "review-report@1",
        "approval-request@1",
    ]
    assert all(p.run_id == run.run_id and p.task_id == "Q42" for p in packets)
    stages = [c.stage for c in services.tasks.checkpoints(sales, "Q42") if c.run_id == run.run_id]
    assert stages == ["restoring", "retrieving", "analyzing", "reviewing", "awaiting_approval"]
    analyzing = [c for c in services.tasks.checkpoints(sales, "Q42") if c.stage == "analyzing"]
    assert {entry["evidence_id"] for entry in analyzing[-1].relied_on} == {
        e.evidence_id for e in services.runs.evidence(sales, run.run_id)
    }


def test_evidence_revoked_since_the_checkpoint_is_not_reused(services, tmp_path):
    load_scenario(services, tmp_path)
    first = resume_q42(services)
    sales, owner = principal(services, "a.sales"), principal(services, "a.owner")
    relied = {e.evidence_id for e in services.runs.evidence(sales, first.run_id)}
    inspection = sorted(eid for eid in relied if eid.startswith("SOP-INSPECTION@1"))
    assert inspection
    services.knowledge.change_status(
        owner, document_id="SOP-INSPECTION", version=1, target=DocStatus.revoked, reason="withdrawn"
    )
    second = resume_q42(services, supplement=None)
    events = services.runs.events(sales, second.run_id)
    [revalidated] = [e for e in events if e.kind == "revalidated"]
    dropped = {d["evidence_id"] for d in revalidated.payload["dropped"]}
    assert set(inspection) <= dropped
    assert not set(inspection) & set(revalidated.payload["kept"])
    used = {e.document_id for e in services.runs.evidence(sales, second.run_id)}
    assert "SOP-INSPECTION" not in used
    cited = {eid for claim in second.decision["claims"] for eid in claim["evidence_ids"]}
    assert not any(eid.startswith("SOP-INSPECTION") for eid in cited)


def test_the_resume_restores_by_the_principals_tenant_only(services, tmp_path):
    load_scenario(services, tmp_path)
    resume_q42(services, supplement=SUPPLEMENT)
    b_sales = principal(services, "b.sales")
    assert services.runs.search(b_sales) == []
