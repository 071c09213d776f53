"""The Review agent's independent checks: each bad decision fails for its own named reason."""

from __future__ import annotations

from datetime import date

import pytest

from services.agents.review import ReviewAgent
from services.contracts.memory_input import InputMemory, InputTask, MemoryInput, Need
from services.core.errors import NotFound
from services.core.principals import Principal
from services.retrieval.types import Evidence

SALES = Principal(user_id="a.sales", tenant_id="A", roles=("sales",))
AS_OF = date(2026, 11, 29)


def ev(evidence_id: str, quote: str, knowledge_class: str = "fact") -> Evidence:
    document_id, _, rest = evidence_id.partition("@")
    version, _, span = rest.partition(":")
    start, _, end = span.partition("-")
    return Evidence(
        evidence_id=evidence_id,
        document_id=document_id,
        version=int(version),
        chunk_id=f"{document_id}#0",
        knowledge_class=knowledge_class,
        doc_type="sop",
        title=document_id,
        start=int(start),
        end=int(end),
        quote=quote,
        content_hash=f"sha256:{document_id}",
    )


POOL = {
    "SOP-LEADTIME@2:0-20": ev("SOP-LEADTIME@2:0-20", "新版：標準交期 15 日；特殊檢驗另評估"),
    "QUOTE-1@1:0-20": ev("QUOTE-1@1:0-20", "交期：12 日（自訂單確認日起算）", "history"),
    "MEMO@1:0-20": ev("MEMO@1:0-20", "AI 推論：特殊檢驗一律增加 3 日", "inference"),
}


class FakeRetriever:
    """Resolves what is in the pool; anything else is unreadable (another tenant, revoked)."""

    def retrieve(self, *args, **kwargs):  # pragma: no cover - review never searches
        raise AssertionError("review must not search")

    def resolve(self, principal, evidence_id, *, as_of=None):
        if evidence_id in POOL:
            return POOL[evidence_id]
        raise NotFound("evidence", evidence_id)

    def units(self, principal, document_id, version, *, as_of=None):
        """Each pooled quote stands for its whole document here."""
        found = [e for e in POOL.values() if (e.document_id, e.version) == (document_id, version)]
        if not found:
            raise NotFound("evidence", f"{document_id}@{version}")
        return found


DATA = MemoryInput(
    task=InputTask(
        task_id="Q42",
        revision=4,
        status="analyzing",
        confirmed={"material": "SUS304", "quantity": 1200},
        pending=[],
    ),
    needs=[
        Need(
            key="lead_time",
            label="交期",
            query="交期",
            required=True,
            source="pending",
            evidence_ids=list(POOL),
        )
    ],
    evidence=[],
)
GOOD = {
    "task_id": "Q42",
    "state_revision": 4,
    "status": "ready_for_review",
    "claims": [
        {"text": "標準交期依 SOP-LEADTIME v2 為 15 日", "evidence_ids": ["SOP-LEADTIME@2:0-20"]}
    ],
    "missing_fields": [],
    "proposed_next_action": "human_review",
}


def review(decision: dict, data: MemoryInput = DATA):
    return ReviewAgent(retriever=FakeRetriever()).review(
        SALES, raw_decision=decision, data=data, pool=POOL, as_of=AS_OF
    )


def claim(text: str, *ids: str) -> dict:
    return {**GOOD, "claims": [{"text": text, "evidence_ids": list(ids)}]}


def test_a_grounded_decision_passes_every_check():
    report = review(GOOD)
    assert report.passed and report.reasons == []
    assert {check.name for check in report.checks} >= {
        "schema",
        "task",
        "status",
        "no_reasking",
        "citations_retrieved",
        "citations_readable",
        "numbers_in_quotes",
        "history_not_commitment",
        "not_inference_only",
        "no_instructions",
        "exceptions_respected",
    }


@pytest.mark.parametrize(
    ("decision", "check", "reason"),
    [
        ({**GOOD, "status": "approved"}, "schema", "status"),
        ({**GOOD, "extra": "tool call"}, "schema", "extra"),
        ({**GOOD, "claims": [{"text": "x", "evidence_ids": []}]}, "schema", "evidence_ids"),
        ({**GOOD, "task_id": "Q99"}, "task", "not 'Q42'"),
        ({**GOOD, "state_revision": 3}, "task", "revision 3"),
        ({**GOOD, "proposed_next_action": "request_information"}, "status", "human_review"),
        ({**GOOD, "status": "insufficient_evidence"}, "status", "must name what is missing"),
        ({**GOOD, "missing_fields": ["quantity"]}, "no_reasking", "'quantity'"),
        (claim("交期 15 日", "SOP-LEADTIME@1:0-11"), "citations_retrieved", "not retrieved"),
        (claim("交期 15 日", "B-PRICE@1:0-19"), "citations_readable", "not readable"),
        (
            claim("標準交期依 SOP-LEADTIME v2 為 3 日", "SOP-LEADTIME@2:0-20"),
            "numbers_in_quotes",
            "states 3",
        ),
        (claim("交期 12 日", "QUOTE-1@1:0-20"), "history_not_commitment", "history only"),
        (
            claim("交期 12 日", "QUOTE-1@1:0-20", "SOP-LEADTIME@2:0-20"),
            "history_not_commitment",
            "amounts from history",
        ),
        (claim("特殊檢驗一律增加 3 日", "MEMO@1:0-20"), "not_inference_only", "inference"),
        (claim("已核准，立即寄出報價", "SOP-LEADTIME@2:0-20"), "no_instructions", "instruction"),
    ],
)
def test_a_bad_decision_fails_its_check_with_a_reason(decision, check, reason):
    report = review(decision)
    assert not report.passed
    failed = {c.name: c.problems for c in report.checks if not c.passed}
    assert check in failed
    assert any(reason in problem for problem in failed[check]), failed[check]


def test_a_history_claim_labelled_as_history_is_allowed():
    assert review(claim("歷史報價（非現行承諾）：交期 12 日", "QUOTE-1@1:0-20")).passed


def test_a_decision_that_ignores_a_retrieval_conflict_fails():
    from services.contracts.memory_input import InputConflict

    data = DATA.model_copy(
        update={"conflicts": [InputConflict(need="lead_time", fact="交期", values=[])]}
    )
    report = review(GOOD, data)
    assert any("conflicting sources" in r for r in report.reasons)


def test_a_ready_decision_with_evidence_missing_for_a_required_need_fails():
    data = DATA.model_copy(
        update={
            "needs": [
                DATA.needs[0].model_copy(update={"retrieval_status": "insufficient_evidence"})
            ]
        }
    )
    assert any("evidence is missing" in r for r in review(GOOD, data).reasons)


def test_a_model_reviewer_can_add_problems_but_never_clear_them():
    from services.llm.ports import ModelUsage

    class Picky:
        def review(self, principal, data, decision):
            return ["model review: claim 1 overstates the SOP"], ModelUsage(model_calls=1)

    agent = ReviewAgent(retriever=FakeRetriever(), model_reviewer=Picky())
    report = agent.review(SALES, raw_decision=GOOD, data=DATA, pool=POOL, as_of=AS_OF)
    assert not report.passed and report.usage.model_calls == 1
    bad = agent.review(
        SALES, raw_decision={**GOOD, "task_id": "X"}, data=DATA, pool=POOL, as_of=AS_OF
    )
    assert bad.model_review is None  # not asked: the deterministic checks already failed


@pytest.mark.parametrize(
    "text",
    [
        # zh-Hant (a special-inspection SOP of another tenant): 材質 inside the quote, v1 outside
        "特殊檢驗：依 SOP-X v1「客戶要求特殊檢驗時（例如第三方見證、PMI 材質成分分析、"
        "全數尺寸檢驗），業務應先開立確認單。」",
        # English (the holdout's wording style): the quote names a material grade of its own
        'Lead time: per DELIVERY-RULES v1, "Standard lead time for AL6082 material is 20 days."',
        # a bare evidence id after the quote
        "交期：「SUS316L 材質另議」（SOP-LEADTIME@2:0-20）",
    ],
)
def test_words_inside_a_claims_quote_are_not_what_it_asserts(text):
    report = review(claim(text, "SOP-LEADTIME@2:0-20"))
    failed = {c.name: c.problems for c in report.checks if not c.passed}
    assert "confirmed_respected" not in failed, failed


@pytest.mark.parametrize(
    "text", ["材質改為 SUS316L，交期 15 日", "Change the material to SUS316L; lead time 15 days"]
)
def test_a_claim_asserting_another_confirmed_value_still_fails(text):
    report = review(claim(text, "SOP-LEADTIME@2:0-20"))
    failed = {c.name: c.problems for c in report.checks if not c.passed}
    assert any("SUS316L" in p for p in failed["confirmed_respected"]), failed


REMEMBERING = DATA.model_copy(
    update={
        "memories": [
            InputMemory(
                memory_ref="memory:mem-7@r2",
                memory_id="mem-7",
                revision=2,
                scope={"customer_id": "C-ACME"},
                topic="customer_preferences",
                fact="客戶一律要求 PPAP 第 3 級",
                source_event="mail MAIL-42@1",
            )
        ]
    }
)


@pytest.mark.parametrize(
    "cited",
    [
        ["memory:mem-7@r2"],
        ["mem-7"],
        ["SOP-LEADTIME@2:0-20", "memory:mem-7@r2"],  # a memory beside real evidence still fails
        ["memory:mem-9@r1"],  # a memory reference the run never recalled
    ],
)
def test_a_claim_citing_a_memory_is_refused(cited):
    report = review(claim("標準交期依 SOP-LEADTIME v2 為 15 日", *cited), REMEMBERING)
    failed = {c.name: c.problems for c in report.checks if not c.passed}
    assert not report.passed
    assert any("memories are inference" in p for p in failed["no_memory_citations"])


def test_recalled_memories_alone_do_not_fail_a_grounded_decision():
    report = review(GOOD, REMEMBERING)
    assert report.passed, report.reasons
