"""The task page shows the memories a run used (scope, revision, source event), never as a
citation, and proposes one as knowledge through the candidate flow (the Q42 proof)."""

from __future__ import annotations

from app_pages import _session
from tests.app.conftest import logged_in, texts, visit
from tests.app.test_journeys import SUPPLEMENT, run_analysis


def test_q42_remembers_its_supplement_and_the_next_run_shows_it_as_used_context(home):
    at = logged_in("a.sales")
    visit(at, "task", id="Q42")
    run_analysis(at, SUPPLEMENT)
    assert not at.exception, at.exception
    services = _session.services()
    sales = services.directory.principal("a.sales")
    remembered = services.memories.list_memories(sales, scope={"task_id": "Q42"})
    assert "客戶確認需要特殊檢驗" in [m.fact for m in remembered]
    run_analysis(at, "請接著處理。")
    assert not at.exception, at.exception
    page = texts(at)
    assert "用到的記憶 Memories used" in " ".join(s.value for s in at.subheader)
    shown = [line for line in page.split("\n") if ":material/psychology:" in line]
    assert any("客戶確認需要特殊檢驗" in line and "task_id=Q42" in line for line in shown), shown
    view = services.desk.task_view(sales, "Q42")
    used = {m.memory_id for m in view.used_memories}
    assert used and view.draft is not None
    cited = {c.evidence_id for claim in view.draft.claims for c in claim.citations}
    assert not any(eid.startswith("memory:") or eid in used for eid in cited)

    at.text_input(key="task.propose_memory_document").input("SOP-INSPECTION")
    at.button(key="FormSubmitter:task.propose_memory-提議 Propose").click().run()
    assert not at.exception, at.exception
    assert at.success and at.success[0].value.startswith("候選 cand")
    owner = services.directory.principal("a.owner")
    [candidate] = services.candidates.list(owner)
    assert [(s.kind, s.ref) for s in candidate.sources if s.kind == "memory"] == [
        ("memory", view.used_memories[0].memory_id)
    ]


def test_someone_who_may_not_read_the_scope_sees_no_used_memories(home):
    at = logged_in("a.sales")
    visit(at, "task", id="Q42")
    run_analysis(at, SUPPLEMENT)
    run_analysis(at, "請接著處理。")
    services = _session.services()
    sales_view = services.desk.task_view(services.directory.principal("a.sales"), "Q42")
    other_view = services.desk.task_view(services.directory.principal("a.sales2"), "Q42")
    assert any(m.scope == {"user_id": "a.sales"} for m in sales_view.used_memories)
    assert any("MAIL-42@1:0-" in (m.source_event or "") for m in sales_view.used_memories)
    # a.sales's own scope is theirs alone, and MAIL-42 needs the C-ACME grant a.sales2 lacks.
    assert other_view.used_memories
    assert not any(m.scope == {"user_id": "a.sales"} for m in other_view.used_memories)
    assert not any("MAIL-42@1:0-" in (m.source_event or "") for m in other_view.used_memories)
