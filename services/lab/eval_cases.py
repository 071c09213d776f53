"""The case runners of `memdesk eval`: one per golden@1 case kind, each reporting a CaseOutcome.

`retrieval` cases ask governed retrieval directly. `task` cases resume their task as the case's
user, with the case's supplement, through the runs queue (the same path as `memdesk resume`;
services.lab.eval_tasks says what is measured). Evaluation time is synthetic (a fake clock at
the dataset's as_of): each task case starts one rate-limit slot after the previous one, so the
per-tenant rate limit (a production guard) paces a long golden set instead of refusing it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from services.bootstrap import Services
from services.contracts.golden import Golden, RetrievalCase, TaskCase
from services.core.clock import FakeClock
from services.core.errors import MemdeskError, NotFound
from services.lab.eval_tasks import run_task_case


@dataclass(frozen=True)
class Citation:
    document_id: str
    version: int
    start: int
    end: int
    quote: str
    content_hash: str


@dataclass(frozen=True)
class CaseOutcome:
    """What a runner reports for one case; metrics are computed from these alone."""

    case_id: str
    status: str
    ranked: list[tuple[str, int]]  # (document_id, version) of the evidence, best first
    citations: list[Citation]
    latency_ms: float
    tenant_id: str
    model_calls: int = 0
    tokens: int = 0
    reasked_confirmed: int | None = None  # task cases: confirmed fields asked again
    needed_human: bool | None = None  # task cases: stopped for a person
    problems: list[str] = field(default_factory=list)  # anything the runner itself rejected


@dataclass(frozen=True)
class EvalContext:
    services: Services
    golden: Golden
    as_of: date


def run_retrieval_case(context: EvalContext, case: RetrievalCase) -> CaseOutcome:
    principal = context.services.directory.principal(case.user_id)
    started = time.perf_counter()
    result = context.services.retrieval.retrieve(
        principal, case.query, k=case.k, as_of=context.as_of
    )
    latency = (time.perf_counter() - started) * 1000
    return CaseOutcome(
        case_id=case.case_id,
        status=result.status,
        ranked=[(e.document_id, e.version) for e in result.evidence],
        citations=[
            Citation(e.document_id, e.version, e.start, e.end, e.quote, e.content_hash)
            for e in result.evidence
        ],
        latency_ms=latency,
        tenant_id=principal.tenant_id,
        model_calls=result.model_calls,  # a model reader's, when one judged the spans
        tokens=result.tokens,
    )


def run_task_case_outcome(context: EvalContext, case: TaskCase) -> CaseOutcome:
    services = context.services
    if isinstance(services.clock, FakeClock):
        services.clock.advance(seconds=60 / services.runs.limits.runs_per_minute + 0.001)
    try:
        outcome = run_task_case(services, case, as_of=context.as_of)
    except NotFound:
        raise  # reported by the evaluation as a failure of this case
    except MemdeskError as exc:
        tenant = services.directory.principal(case.user_id).tenant_id
        return CaseOutcome(
            case_id=case.case_id,
            status=f"refused_{type(exc).__name__}",
            ranked=[],
            citations=[],
            latency_ms=0.0,
            tenant_id=tenant,
            reasked_confirmed=0,
            needed_human=True,
            problems=[f"the run was refused: {exc}"],
        )
    return CaseOutcome(
        case_id=outcome.case_id,
        status=outcome.status,
        ranked=outcome.ranked,
        citations=[
            Citation(e.document_id, e.version, e.start, e.end, e.quote, e.content_hash)
            for e in outcome.citations
        ],
        latency_ms=outcome.latency_ms,
        tenant_id=outcome.tenant_id,
        model_calls=outcome.model_calls,
        tokens=outcome.tokens,
        reasked_confirmed=outcome.reasked_confirmed,
        needed_human=outcome.needed_human,
        problems=outcome.problems,
    )


CaseRunner = Callable[[EvalContext, Any], CaseOutcome]
CASE_RUNNERS: dict[str, CaseRunner] = {
    "retrieval": run_retrieval_case,
    "task": run_task_case_outcome,
}
