"""Evaluation of `task` cases (golden@1): resume the task as the case's user, then measure.

Per case it reports the decision status (or the run's failure), the documents the decision
cited followed by the rest of what it was given (for relevant/forbidden matching), every
citation for independent checking against SQL, model calls and tokens, how many confirmed
fields the decision asked for again, and whether a person had to step in beyond the planned
approval: the run failed, was dead-lettered or cancelled, or review sent it to human review.
"""

from __future__ import annotations

import time
from datetime import date

from pydantic import BaseModel, ConfigDict

from services.bootstrap import Services
from services.contracts.golden import TaskCase
from services.retrieval.types import Evidence

NEEDS_PERSON = ("failed", "dead_letter", "cancelled")


class TaskCaseOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    case_id: str
    tenant_id: str
    status: str
    ranked: list[tuple[str, int]]
    citations: list[Evidence]
    latency_ms: float
    model_calls: int
    tokens: int
    reasked_confirmed: int
    needed_human: bool
    problems: list[str]
    run_id: str


def run_task_case(services: Services, case: TaskCase, *, as_of: date) -> TaskCaseOutcome:
    principal = services.directory.principal(case.user_id)
    confirmed_before = set(services.tasks.get(principal, case.task_id).state.confirmed)
    started = time.perf_counter()
    queued = services.runs.enqueue(principal, case.task_id, supplement=case.supplement, as_of=as_of)
    run = services.worker.drain(queued.run_id)
    latency = (time.perf_counter() - started) * 1000
    pool = services.runs.evidence(principal, run.run_id)
    by_id = {item.evidence_id: item for item in pool}
    problems: list[str] = []
    decision = run.decision or {}
    cited_ids = [eid for claim in decision.get("claims", []) for eid in claim["evidence_ids"]]
    citations = []
    for evidence_id in dict.fromkeys(cited_ids):
        if evidence_id in by_id:
            citations.append(by_id[evidence_id])
        else:
            problems.append(f"cites {evidence_id}, which the run did not retrieve")
    ranked = [(e.document_id, e.version) for e in citations]
    ranked += [(e.document_id, e.version) for e in sorted(pool, key=lambda e: e.rank)]
    asked = set(decision.get("missing_fields", []))
    reasked = sorted(asked & (confirmed_before | set(case.must_not_request)))
    if reasked:
        problems.append(f"asks again for confirmed {reasked}")
    review = run.review or {}
    if run.status in NEEDS_PERSON:
        problems.append(f"run {run.status}: {run.error}")
    status = decision.get("status") if run.decision and review.get("passed") else None
    return TaskCaseOutcome(
        case_id=case.case_id,
        tenant_id=principal.tenant_id,
        status=status or f"run_{run.status}",
        ranked=list(dict.fromkeys(ranked)),
        citations=citations,
        latency_ms=latency,
        model_calls=run.model_calls,
        tokens=run.tokens_in + run.tokens_out,
        reasked_confirmed=len(reasked),
        needed_human=run.status in NEEDS_PERSON or review.get("passed") is False,
        problems=problems,
        run_id=run.run_id,
    )
