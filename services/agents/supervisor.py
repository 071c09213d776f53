"""The Supervisor: deterministic code that restores a task, routes Analysis → Review, moves state.

One attempt of a run: restore the task by the principal's tenant + task_id and merge the
supplement (never overwriting a confirmed field), gather evidence (re-validating what the last
checkpoint relied on), hand the memory-input@1 to the Analysis agent, hand its decision to the
Review agent, then stop for people: approval requests, a request for information, or human
review with the reasons. Every hand-off is a packet in run_events and a task checkpoint; every
state write carries expected_revision. Nothing here sends mail, orders or writes SOPs.
"""

from __future__ import annotations

import time
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict

from services.agents.gathering import Gathered, Gatherer
from services.agents.memories import RunMemories
from services.agents.planning import read_supplement
from services.agents.ports import Analyzer, RunCancelled
from services.agents.review import ReviewAgent, ReviewReport
from services.agents.runs import FAILED, SUCCEEDED, NewEvent, RunQueue, RunView
from services.agents.tools import call_with_timeout
from services.approvals.engineering import EngineeringItem
from services.approvals.flow import ApprovalFlow
from services.contracts.decision import DecisionStatus, MemoryDecision
from services.contracts.memory_input import InputMemory
from services.contracts.packets import Agent, HandoffPacket
from services.contracts.task_state import WORKING, TaskState, TaskStatus, can_transition
from services.core.clock import Clock, today
from services.core.errors import (
    BudgetExceeded,
    ConfirmedFieldConflict,
    MemdeskError,
    NotFound,
    StaleRevision,
)
from services.core.principals import Principal
from services.language.glossary import ENGINEERING_PENDING
from services.llm.ports import AnalysisRejected, ModelUsage, TransientFailure
from services.llm.prompts import PromptSpec
from services.records.directory import Directory
from services.records.tasks import TaskService
from services.retrieval.types import Evidence


class RunOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    status: str
    error: str | None = None
    # The last hand-off, written with the run's end in one transaction (RunQueue.finish).
    events: tuple[NewEvent, ...] = ()


class Supervisor:
    def __init__(
        self,
        *,
        queue: RunQueue,
        tasks: TaskService,
        directory: Directory,
        gatherer: Gatherer,
        analyzer: Analyzer,
        reviewer: ReviewAgent,
        flow: ApprovalFlow,
        clock: Clock,
        prompt: PromptSpec,
        model_timeout_seconds: float,
        daily_token_budget: int,
        memories: RunMemories | None = None,
    ) -> None:
        self._memories = memories
        self._queue = queue
        self._tasks = tasks
        self._directory = directory
        self._gatherer = gatherer
        self._analyzer = analyzer
        self._reviewer = reviewer
        self._flow = flow
        self._clock = clock
        self._prompt = prompt
        self._model_timeout = model_timeout_seconds
        self._token_budget = daily_token_budget

    @property
    def analyzer(self) -> Analyzer:
        return self._analyzer

    # ---- one attempt -------------------------------------------------------------------
    def execute(self, run: RunView) -> RunOutcome:
        self._cancel_point(run)  # a stale claim (LeaseLost) or a cancel stops before any write
        principal = self._principal(run)
        outcome = self._attempt(principal, run)
        return outcome.model_copy(
            update={"events": (*outcome.events, *self._generate_memories(principal, run))}
        )

    def _attempt(self, principal: Principal, run: RunView) -> RunOutcome:
        as_of = run.as_of or today(self._clock)
        timings: dict[str, float] = {}
        recovered = self._recover_saved(principal, run, as_of)
        if recovered is not None:
            return recovered
        started = time.perf_counter()
        state, merged = self._restore(principal, run)
        timings["restore_ms"] = _ms(started)
        recalled, remembered = self._recall(principal, run, state)
        self._step(run, *merged, *remembered)
        started = time.perf_counter()
        state = self._move(principal, run, state, TaskStatus.retrieving)
        reading = read_supplement(state, run.supplement)
        gathered = self._gatherer.gather(
            principal,
            run=run,
            state=state,
            reading=reading,
            as_of=as_of,
            cancel_point=lambda *events: self._step(run, *events),
            remembered=tuple(memory.fact for memory in recalled),
        )
        timings["retrieve_ms"] = _ms(started)
        state = self._move(
            principal, run, state, TaskStatus.analyzing, relied_on=gathered.relied_on()
        )
        data = gathered.memory_input(state).model_copy(update={"memories": recalled})
        # Each step's hand-off, what it records on the run and its cancel point are one
        # transaction (RunQueue.step): a run commits a handful of writes, not dozens.
        self._step(
            run,
            self._packet(
                run, "supervisor", "analysis", "memory-input@1", data.model_dump(mode="json")
            ),
            prompt=(self._prompt.prompt_id, self._prompt.version),
            model=self._model,
        )
        started = time.perf_counter()
        analysis = self._analyze(principal, run, state, data)
        timings["analyze_ms"] = _ms(started)
        if isinstance(analysis, RunOutcome):
            self._queue.record(run.run_id, timings=timings)
            return analysis
        decision, usage, call = analysis
        self._step(
            run,
            call,
            self._packet(
                run, "analysis", "review", "memory-decision@1", decision.model_dump(mode="json")
            ),
            usage=usage,
        )
        state = self._move(principal, run, state, TaskStatus.reviewing)
        started = time.perf_counter()
        report = self._reviewer.review(
            principal,
            raw_decision=decision.model_dump(mode="json"),
            data=data,
            pool=gathered.pool,
            as_of=as_of,
        )
        timings["review_ms"] = _ms(started)
        # Fenced: a reclaimed attempt must not overwrite the live attempt's decision.
        self._step(
            run,
            self._packet(
                run,
                "review",
                "supervisor",
                "review-report@1",
                {"passed": report.passed, "reasons": report.reasons},
            ),
            usage=report.usage,
            decision=decision.model_dump(mode="json"),
            review=report.model_dump(mode="json"),
            timings=timings,
        )
        return self._finalize(
            principal, run, state, decision, report, gathered.pool, gathered.engineering_items
        )

    # ---- the Memory Bank ---------------------------------------------------------------
    def _recall(
        self, principal: Principal, run: RunView, state: TaskState
    ) -> tuple[list[InputMemory], tuple[NewEvent, ...]]:
        """What the task's scopes remember (recorded with the next step; never fails the run:
        what this run received is generated on its way out)."""
        if self._memories is None:
            return [], ()
        return self._memories.recall(principal, run, state)

    def _generate_memories(self, principal: Principal, run: RunView) -> tuple[NewEvent, ...]:
        """At the end of an attempt, whatever its outcome: generate what the run received and
        what the task still owes, the run as their source. The events (with the cost in
        `memory_generation`) are written with the run's end; a model's usage also counts
        towards the run (and the tenant's budget). A failure is an event, never the run's."""
        if self._memories is None:
            return ()
        events, usage, spent_ms = self._memories.generate(principal, run)
        if not events:
            return ()
        if usage.model_calls:
            self._queue.record(run.run_id, usage=usage, lease=run)
        cost = {
            "ms": spent_ms,
            "generations": sum(1 for e in events if e.kind == "memory_generated"),
            "failed": sum(1 for e in events if e.kind == "memory_generation_failed"),
            "model_calls": usage.model_calls,
            "tokens": usage.tokens_in + usage.tokens_out,
        }
        return (*events, NewEvent(kind="memory_generation", payload=cost))

    def catch_up_memories(self, *, limit: int = 10) -> list[dict[str, Any]]:
        """What an idle worker does between runs: generate the oldest owed offers of any
        tenant (each as the person whose run offered it)."""
        if self._memories is None:
            return []
        return self._memories.catch_up(limit=limit)

    # ---- stages --------------------------------------------------------------------------
    def _restore(
        self, principal: Principal, run: RunView
    ) -> tuple[TaskState, tuple[NewEvent, ...]]:
        """The restored task, and the supplement's event to be written with the next step."""
        state = self._tasks.get(principal, run.task_id).state
        if state.status in WORKING:
            # Left mid-way by an attempt that died: go round through `retrying`.
            state = self._move(principal, run, state, TaskStatus.retrying, note="interrupted")
        marker = f"supplement:{run.run_id}"
        if not run.supplement or marker in state.evidence_ids:
            return self._move(principal, run, state, TaskStatus.restoring), ()
        reading = read_supplement(state, run.supplement)
        if reading.contradictions:
            try:
                self._tasks.update(
                    principal,
                    run.task_id,
                    expected_revision=state.revision,
                    confirm=reading.contradictions,
                    run_id=run.run_id,
                    note="the supplement contradicts confirmed fields",
                )
            except ConfirmedFieldConflict:
                pass  # recorded on the task as a conflict for a person; never applied
            except StaleRevision as exc:
                raise TransientFailure("stale_revision", str(exc)) from exc
            state = self._tasks.get(principal, run.task_id).state
        answers = {k: v for k, v in reading.answers.items() if k not in state.confirmed}
        state = self._move(
            principal,
            run,
            state,
            TaskStatus.restoring,
            confirm=answers or None,
            pending=[item for item in state.pending if item not in answers],
            add_evidence_ids=[marker],
            note=f"supplement merged as evidence: {run.supplement}"[:2000],
        )
        return state, (NewEvent(kind="supplement_merged", payload=reading.model_dump(mode="json")),)

    @property
    def _model(self) -> str:
        return str(getattr(self._analyzer, "model", self._analyzer.name))

    def _analyze(
        self, principal: Principal, run: RunView, state: TaskState, data: Any
    ) -> tuple[MemoryDecision, ModelUsage, NewEvent] | RunOutcome:
        """The decision with its usage and model-call event (written with the next hand-off),
        or the outcome of a rejected analysis."""
        model = self._model
        if self._analyzer.name != "offline":
            used = self._queue.tokens_used_today(principal.tenant_id)
            if used >= self._token_budget:
                raise BudgetExceeded(
                    f"tenant {principal.tenant_id}: daily model token budget of "
                    f"{self._token_budget:,} is used up ({used:,} tokens today)"
                )
        try:
            analysis = call_with_timeout(
                # A copy: whatever the analyzer does to its input, review checks the original.
                lambda: self._analyzer.analyze(
                    principal, data.model_copy(deep=True), run_id=run.run_id
                ),
                seconds=self._model_timeout + 5,
                what="analysis",
            )
        except AnalysisRejected as exc:
            self._queue.record(run.run_id, usage=exc.usage)
            self._model_event(run, model, exc.usage.model_dump(), "rejected", exc.reason, exc.raw)
            reason = f"analysis rejected ({exc.reason}): {exc}"
            self._move(
                principal,
                run,
                state,
                TaskStatus.blocked,
                next_step=f"human review: {reason}"[:200],
                note=reason,
            )
            self._handoff(run, "analysis", "human", "analysis-failure@1", {"reason": exc.reason})
            return RunOutcome(status=FAILED, error=reason)
        except TransientFailure as exc:
            self._model_event(run, model, exc.usage.model_dump(), "transient", exc.reason, None)
            raise
        call = self._model_call(analysis.model, analysis.usage.model_dump(), "ok", None, None)
        return analysis.decision, analysis.usage, call

    def _finalize(
        self,
        principal: Principal,
        run: RunView,
        state: TaskState,
        decision: MemoryDecision,
        report: ReviewReport,
        pool: dict[str, Evidence],
        items: list[EngineeringItem],
    ) -> RunOutcome:
        if not report.passed:
            reasons = "; ".join(report.reasons)
            self._move(
                principal,
                run,
                state,
                TaskStatus.blocked,
                next_step=f"human review: {report.reasons[0]}"[:200],
                note=reasons[:2000],
            )
            self._handoff(
                run, "supervisor", "human", "review-report@1", {"reasons": report.reasons}
            )
            return RunOutcome(status=FAILED, error=f"review failed: {reasons}"[:2000])
        record = self._tasks.get(principal, run.task_id)
        # The engineering marker belongs to the previous draft's approvals, which this decision
        # supersedes; it comes back only with new engineering items.
        base = [item for item in state.pending if item != ENGINEERING_PENDING]
        if record.conflicts:
            fields = ", ".join(sorted({conflict.field for conflict in record.conflicts}))
            state = self._move(
                principal,
                run,
                state,
                TaskStatus.waiting_input,
                pending=base,
                next_step=f"settle the conflict on confirmed {fields}",
            )
        elif decision.status == DecisionStatus.insufficient_evidence:
            missing = [f for f in decision.missing_fields if f not in state.confirmed]
            state = self._move(
                principal,
                run,
                state,
                TaskStatus.waiting_input,
                pending=list(dict.fromkeys([*base, *missing])),
                next_step=f"request information: {', '.join(missing)}"[:200],
            )
        elif decision.status == DecisionStatus.source_conflict:
            state = self._move(
                principal,
                run,
                state,
                TaskStatus.waiting_input,
                pending=base,
                next_step="settle conflicting sources (see the run's claims)",
            )
        else:
            approvals = self._flow.request_for_decision(
                principal,
                task_id=run.task_id,
                run_id=run.run_id,
                decision=decision,
                items=items,
                evidence=pool,
            )
            pending = [*base, ENGINEERING_PENDING] if items else base
            state = self._move(
                principal,
                run,
                state,
                TaskStatus.awaiting_approval,
                pending=list(dict.fromkeys(pending)),
                next_step=f"approve draft v{decision.state_revision}"
                + (f" and {len(items)} engineering item(s)" if items else ""),
            )
            request = self._packet(
                run,
                "supervisor",
                "human",
                "approval-request@1",
                {
                    "decision_version": decision.state_revision,
                    "approvals": [a.id for a in approvals],
                },
            )
            return RunOutcome(status=SUCCEEDED, events=(request,))
        handed = self._packet(
            run, "supervisor", "human", "task-state@1", state.model_dump(mode="json")
        )
        return RunOutcome(status=SUCCEEDED, events=(handed,))

    def _recover_saved(self, principal: Principal, run: RunView, as_of: date) -> RunOutcome | None:
        """A previous attempt reviewed a decision and then died: finish from that checkpoint,
        after re-validating every piece of evidence the decision cites."""
        if run.decision is None or run.review is None:
            return None
        decision = MemoryDecision.model_validate(run.decision)
        report = ReviewReport.model_validate(run.review)
        record = self._tasks.get(principal, run.task_id)
        if record.state.status != TaskStatus.reviewing:
            last = self._tasks.events(principal, run.task_id)[-1]
            if last.run_id == run.run_id and record.state.status not in WORKING:
                return RunOutcome(
                    status=SUCCEEDED if report.passed else FAILED,
                    error=None if report.passed else "review failed: " + "; ".join(report.reasons),
                )
            return None
        gathered = Gathered.from_events(self._queue.system_events(run.run_id))
        if gathered is None or not self._gatherer.still_valid(principal, decision, as_of):
            return None
        self._queue.add_event(
            run.run_id, "resumed_from_checkpoint", {"revision": record.state.revision}
        )
        return self._finalize(
            principal,
            run,
            record.state,
            decision,
            report,
            gathered.pool,
            gathered.engineering_items,
        )

    # ---- what the worker calls when an attempt ends badly ------------------------------
    def on_retry(self, run: RunView, reason: str) -> None:
        self._settle_task(run, TaskStatus.retrying, f"retry scheduled after: {reason}")

    def on_dead_letter(self, run: RunView, reason: str) -> None:
        self._queue.add_event(run.run_id, "dead_lettered", {"reason": reason})
        self._settle_task(run, TaskStatus.failed, f"human takeover: {reason}")
        self._owe_memories(run)

    def on_failed(self, run: RunView, reason: str) -> None:
        self._settle_task(run, TaskStatus.blocked, f"human review: {reason}")
        self._owe_memories(run)

    def on_cancelled(self, run: RunView) -> None:
        self._queue.add_event(run.run_id, "cancelled", {"attempt": run.attempts})
        self._settle_task(run, TaskStatus.waiting_input, f"run {run.run_id} was cancelled")
        self._owe_memories(run)

    def _owe_memories(self, run: RunView) -> None:
        """Best effort: a run that never reached its generation step still received its
        events; they stay owed for the task's next run or an idle worker."""
        if self._memories is None:
            return
        try:
            self._memories.owe(self._principal(run), run)
        except MemdeskError:
            return

    def _settle_task(self, run: RunView, target: TaskStatus, why: str) -> None:
        """Best effort: the run ends regardless; a write that loses a race is retried twice."""
        for _ in range(3):
            try:
                principal = self._principal(run)
                state = self._tasks.get(principal, run.task_id).state
                if state.status == TaskStatus.retrying and target == TaskStatus.waiting_input:
                    state = self._move(principal, run, state, TaskStatus.restoring)
                if state.status not in (*WORKING, TaskStatus.retrying) or not can_transition(
                    state.status, target
                ):
                    return
                self._move(principal, run, state, target, next_step=why[:200], note=why[:2000])
                return
            except (StaleRevision, TransientFailure):
                continue
            except MemdeskError:
                return

    # ---- helpers -----------------------------------------------------------------------
    def _principal(self, run: RunView) -> Principal:
        principal = self._directory.principal(run.requested_by)
        if principal.tenant_id != run.tenant_id:
            raise NotFound("task", run.task_id)
        return principal

    def _move(
        self,
        principal: Principal,
        run: RunView,
        state: TaskState,
        status: TaskStatus,
        **changes: Any,
    ) -> TaskState:
        try:
            record = self._tasks.update(
                principal,
                run.task_id,
                expected_revision=state.revision,
                status=status,
                run_id=run.run_id,
                **changes,
            )
        except StaleRevision as exc:
            raise TransientFailure("stale_revision", str(exc)) from exc
        return record.state

    def _cancel_point(self, run: RunView) -> None:
        if self._queue.heartbeat(run.run_id, lease=run):
            raise RunCancelled(f"run {run.run_id} was cancelled")

    def _step(self, run: RunView, *events: NewEvent, **recorded: Any) -> None:
        """Write a step's events and records through the lease, then stop if cancelled."""
        if self._queue.step(run.run_id, events=events, lease=run, **recorded):
            raise RunCancelled(f"run {run.run_id} was cancelled")

    def _handoff(
        self, run: RunView, source: Agent, target: Agent, schema: str, payload: dict[str, Any]
    ) -> None:
        packet = self._packet(run, source, target, schema, payload)
        self._queue.add_event(
            run.run_id,
            packet.kind,
            packet.payload,
            source=source,
            target=target,
            schema=packet.schema_version,
        )

    def _packet(
        self, run: RunView, source: Agent, target: Agent, schema: str, payload: dict[str, Any]
    ) -> NewEvent:
        packet = HandoffPacket(
            run_id=run.run_id,
            task_id=run.task_id,
            source_agent=source,
            target_agent=target,
            payload_schema=schema,
            created_at=self._clock.now(),
            payload=payload,
        )
        return NewEvent(
            kind="handoff",
            payload=packet.model_dump(mode="json"),
            source=source,
            target=target,
            schema_version=packet.schema_version,
        )

    def _model_event(
        self,
        run: RunView,
        model: str,
        usage: dict[str, Any],
        status: str,
        reason: str | None,
        raw: str | None,
    ) -> None:
        call = self._model_call(model, usage, status, reason, raw)
        self._queue.add_event(run.run_id, call.kind, call.payload)

    def _model_call(
        self, model: str, usage: dict[str, Any], status: str, reason: str | None, raw: str | None
    ) -> NewEvent:
        return NewEvent(
            kind="model_call",
            payload={
                "analyzer": self._analyzer.name,
                "model": model,
                "prompt": self._prompt.ref,
                "status": status,
                "reason": reason,
                "raw": raw[:2000] if raw else None,
                **usage,
            },
        )


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
