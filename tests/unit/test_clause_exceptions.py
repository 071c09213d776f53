"""Clauses that qualify other clauses: a rule's own document sets it aside for this task, so
the draft states the exception with its own citation and review refuses the rule alone."""

from __future__ import annotations

from datetime import date

import pytest

from services.agents.analysis_offline import OfflineAnalyzer
from services.agents.documents import DocumentReader
from services.agents.exceptions import exceptions_to, task_facts
from services.agents.review import ReviewAgent
from services.contracts.evidence_id import evidence_id_for, parse_evidence_id
from services.contracts.memory_input import InputEvidence, InputTask, MemoryInput, Need
from services.core.errors import NotFound
from services.core.principals import Principal
from services.retrieval import spans
from services.retrieval.types import Evidence

SALES = Principal(user_id="a.sales", tenant_id="A", roles=("sales",))
AS_OF = date(2026, 11, 29)
# The same shape in two languages: a standard rule, then a clause that sets it aside.
ZH = (
    "一、適用範圍：本程序適用於一般切削件之報價。\n"
    "二、常備材料（SUS304）之訂單，標準交期 15 日。\n"
    "三、特殊檢驗：客戶要求全檢或第三方見證等特殊檢驗時，不直接適用標準交期；"
    "總交期須由工程部評估後確認。\n"
    "四、客戶延遲提供圖面時，交期自最後確認日起算。"
)
EN = (
    "Delivery terms for machined parts.\n"
    "Standard lead time for AL6082 brackets is 20 working days.\n"
    "If an order needs special inspection, the standard lead time does not apply; engineering "
    "confirms the total.\n"
    "If the drawing changes, the lead time restarts from the last confirmation."
)
DOCS = {"SOP-LT": ZH, "DELIVERY": EN}


def span(document_id: str, start: int, end: int) -> Evidence:
    body = DOCS[document_id]
    return Evidence(
        evidence_id=evidence_id_for(document_id, 1, start, end),
        document_id=document_id,
        version=1,
        chunk_id=f"{document_id}#0",
        knowledge_class="fact",
        doc_type="sop",
        title=document_id,
        start=start,
        end=end,
        quote=body[start:end],
        content_hash=f"sha256:{document_id}",
    )


def sentence(document_id: str, text: str) -> Evidence:
    start = DOCS[document_id].index(text)
    return span(document_id, start, start + len(text))


class DocumentsRetriever:
    """Resolves and splits the two documents above, as the governed retriever would."""

    def retrieve(self, *args, **kwargs):  # pragma: no cover - nothing here searches
        raise AssertionError("no search expected")

    def resolve(self, principal, evidence_id, *, as_of=None):
        parsed = parse_evidence_id(evidence_id)
        if parsed is None or parsed[0] not in DOCS:
            raise NotFound("evidence", evidence_id)
        return span(parsed[0], parsed[2], parsed[3])

    def units(self, principal, document_id, version, *, as_of=None):
        if document_id not in DOCS:
            raise NotFound("evidence", f"{document_id}@{version}")
        return [span(document_id, s, e) for s, e in spans.units(DOCS[document_id])]


RULES = {
    "SOP-LT": ("二、常備材料（SUS304）之訂單，標準交期 15 日。", "三、特殊檢驗"),
    "DELIVERY": ("Standard lead time for AL6082 brackets is 20 working days.", "If an order"),
}


UNITS = DocumentReader(DocumentsRetriever(), SALES, as_of=AS_OF)


@pytest.mark.parametrize("document_id", ["SOP-LT", "DELIVERY"])
def test_a_clause_setting_the_rule_aside_applies_when_the_task_has_its_condition(document_id):
    rule_text, exception_start = RULES[document_id]
    rule = sentence(document_id, rule_text)
    confirmed = {"special_inspection": True}
    [clause] = exceptions_to(rule, {"lead_time"}, task_facts(confirmed, []), UNITS)
    assert clause.quote.startswith(exception_start)
    assert DOCS[document_id][clause.start : clause.end] == clause.quote  # an ordinary span
    assert clause.quote.rstrip().endswith(("確認。", "total."))  # with what it requires instead
    # Pending counts as met (it may apply); declined or absent does not.
    assert exceptions_to(rule, {"lead_time"}, task_facts({}, ["special_inspection"]), UNITS)
    for facts in (task_facts({"special_inspection": False}, []), task_facts({}, [])):
        assert exceptions_to(rule, {"lead_time"}, facts, UNITS) == []


def data_for(document_id: str, confirmed: dict, evidence: list[Evidence], exceptions=()):
    return MemoryInput(
        task=InputTask(
            task_id="T1", revision=2, status="analyzing", confirmed=confirmed, pending=[]
        ),
        needs=[
            Need(
                key="lead_time",
                label="交期" if document_id == "SOP-LT" else "lead time",
                query="交期 lead time",
                required=True,
                source="pending",
                evidence_ids=[e.evidence_id for e in evidence if e.evidence_id not in exceptions],
                exceptions=list(exceptions),
            )
        ],
        evidence=[
            InputEvidence(
                evidence_id=e.evidence_id,
                document_id=e.document_id,
                version=e.version,
                knowledge_class=e.knowledge_class,
                doc_type=e.doc_type,
                title=e.title,
                quote=e.quote,
            )
            for e in evidence
        ],
    )


def review(decision: dict, data: MemoryInput, pool: list[Evidence]):
    return ReviewAgent(retriever=DocumentsRetriever()).review(
        SALES,
        raw_decision=decision,
        data=data,
        pool={e.evidence_id: e for e in pool},
        as_of=AS_OF,
    )


@pytest.mark.parametrize("document_id", ["SOP-LT", "DELIVERY"])
def test_the_draft_states_the_exception_and_review_passes_it(document_id):
    rule = sentence(document_id, RULES[document_id][0])
    confirmed = {"special_inspection": True}
    [clause] = exceptions_to(rule, {"lead_time"}, task_facts(confirmed, []), UNITS)
    data = data_for(document_id, confirmed, [rule, clause], exceptions=[clause.evidence_id])
    decision = OfflineAnalyzer().analyze(SALES, data, run_id="r").decision
    cited = [eid for c in decision.claims for eid in c.evidence_ids]
    assert cited == [clause.evidence_id]  # the exception, not the rule it sets aside
    assert clause.quote in decision.claims[0].text
    report = review(decision.model_dump(mode="json"), data, [rule, clause])
    assert report.passed, report.reasons


@pytest.mark.parametrize("document_id", ["SOP-LT", "DELIVERY"])
def test_review_refuses_a_claim_stating_a_rule_its_exception_sets_aside(document_id):
    rule = sentence(document_id, RULES[document_id][0])
    label = "交期" if document_id == "SOP-LT" else "lead time"
    decision = {
        "task_id": "T1",
        "state_revision": 2,
        "status": "ready_for_review",
        "claims": [{"text": f"{label}: 「{rule.quote}」", "evidence_ids": [rule.evidence_id]}],
        "missing_fields": [],
        "proposed_next_action": "human_review",
    }
    needing = data_for(document_id, {"special_inspection": True}, [rule])
    report = review(decision, needing, [rule])
    failed = {c.name: c.problems for c in report.checks if not c.passed}
    assert "sets aside for this task" in failed["exceptions_respected"][0]
    declined = data_for(document_id, {"special_inspection": False}, [rule])
    assert review(decision, declined, [rule]).passed
