"""The `task` case runner of `memdesk eval` (registered with services.evaluation).

Each case resumes its task as the case's user, with the case's supplement, through the runs
queue (the same path as `memdesk resume`). See services/agents/eval_tasks.py for what is
measured. Evaluation time is synthetic (a fake clock at the dataset's as_of): each case starts
one rate-limit slot after the previous one, so the per-tenant rate limit (a production guard)
paces a long golden set instead of refusing it.
"""

from __future__ import annotations

from services.agents.eval_tasks import run_task_case
from services.clock import FakeClock
from services.contracts.golden import TaskCase
from services.errors import MemdeskError, NotFound
from services.evaluation import CaseOutcome, Citation, EvalContext, register_case_runner


@register_case_runner("task")
def run_task(context: EvalContext, case: TaskCase) -> CaseOutcome:
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
