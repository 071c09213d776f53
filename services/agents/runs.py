"""The runs queue in SQL: enqueue with per-tenant limits, claim, heartbeat, retry, cancel, read.

Workers claim with `FOR UPDATE SKIP LOCKED` on PostgreSQL, so several processes share the
queue; on SQLite the IMMEDIATE write transaction serialises claims. The embedded default runs
the same code in-process (see services/agents/worker.py). A run that stops heart-beating for
`timeout_seconds` (its worker died) is claimed again, counting an attempt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from services.agents.ports import LeaseLost
from services.agents.supplements import checked_supplement
from services.contracts.task_state import TERMINAL as TERMINAL_TASK
from services.contracts.task_state import TaskStatus
from services.core.clock import Clock, IdGenerator, as_utc
from services.core.errors import (
    BudgetExceeded,
    IllegalTransition,
    InvalidInput,
    NotAuthorized,
    NotFound,
)
from services.core.policy import Permission, allows, require
from services.core.principals import Principal
from services.db.engine import Database, after_commit
from services.db.models import Run, RunEvent, TaskRow, Tenant
from services.llm.ports import ModelUsage
from services.records import audit
from services.records.redaction import hidden_refs, refs_in, withhold
from services.records.tasks import may_see_customer, task_visible
from services.retrieval.types import Evidence

QUEUED, RUNNING, SUCCEEDED, FAILED, DEAD_LETTER, CANCELLED = (
    "queued",
    "running",
    "succeeded",
    "failed",
    "dead_letter",
    "cancelled",
)
ACTIVE = (QUEUED, RUNNING)
TERMINAL = (SUCCEEDED, FAILED, DEAD_LETTER, CANCELLED)
# Run events that are also audit entries (docs/product.md §9: retrievals and model calls are
# audited).
_AUDITED = {
    "queued",
    "retrieval",
    "memories_recalled",  # a retrieval from the Memory Bank
    "model_call",
    "cancel_requested",
    "dead_lettered",
    "finished",
}


class RunLimits(BaseModel):
    model_config = ConfigDict(frozen=True)

    max_attempts: int = 3
    backoff_seconds: float = 2.0
    timeout_seconds: float = 300.0
    runs_per_minute: int = 30
    daily_token_budget: int = 500_000


class RunView(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    tenant_id: str
    task_id: str
    requested_by: str
    status: str
    supplement: str | None
    as_of: date | None
    attempts: int
    max_attempts: int
    available_at: datetime
    claimed_by: str | None
    heartbeat_at: datetime | None
    cancel_requested: bool
    prompt_id: str | None
    prompt_version: str | None
    model: str | None
    model_calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float
    decision: dict[str, Any] | None
    review: dict[str, Any] | None
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    timings: dict[str, Any]

    @property
    def done(self) -> bool:
        return self.status in TERMINAL


class RunEventView(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    run_id: str
    kind: str
    source_agent: str | None
    target_agent: str | None
    schema_version: str | None
    at: datetime
    payload: dict[str, Any]


class NewEvent(BaseModel):
    """A run event to be written as part of a step (see RunQueue.step)."""

    model_config = ConfigDict(frozen=True)

    kind: str
    payload: dict[str, Any]
    source: str | None = None
    target: str | None = None
    schema_version: str | None = None


class RunQueue:
    def __init__(self, *, db: Database, clock: Clock, ids: IdGenerator, limits: RunLimits) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self.limits = limits
        # In-process observers of a run's events (progress shown while it executes here).
        self._watchers: dict[str, list[Callable[[], None]]] = {}
        self._watch_lock = threading.Lock()

    @contextmanager
    def watch(self, run_id: str, notify: Callable[[], None]) -> Iterator[None]:
        """Call `notify` after each commit that records an event of `run_id` in this process."""
        with self._watch_lock:
            self._watchers.setdefault(run_id, []).append(notify)
        try:
            yield
        finally:
            with self._watch_lock:
                self._watchers[run_id].remove(notify)
                if not self._watchers[run_id]:
                    del self._watchers[run_id]

    # ---- requests from people ----------------------------------------------------------
    def enqueue(
        self,
        principal: Principal,
        task_id: str,
        *,
        supplement: str | None = None,
        as_of: date | None = None,
    ) -> RunView:
        require(principal, Permission.WORK_TASKS, f"{principal.user_id} may not resume tasks")
        text = checked_supplement(supplement)
        with self._db.write() as session:
            task = session.get(TaskRow, (principal.tenant_id, task_id))
            if task is None or not may_see_customer(principal, task.customer_id):
                raise NotFound("task", task_id)
            if TaskStatus(task.status) in TERMINAL_TASK:
                raise IllegalTransition(
                    subject=f"task {task_id}", source=task.status, target="restoring"
                )
            active = session.scalar(
                select(Run.run_id).where(
                    Run.tenant_id == principal.tenant_id,
                    Run.task_id == task_id,
                    Run.status.in_(ACTIVE),
                )
            )
            if active is not None:
                raise InvalidInput(f"task {task_id} already has an active run {active}")
            self._check_limits(session, principal.tenant_id)
            now = self._clock.now()
            row = Run(
                run_id=self._ids.new("run"),
                tenant_id=principal.tenant_id,
                task_id=task_id,
                requested_by=principal.user_id,
                status=QUEUED,
                supplement=text,
                as_of=as_of,
                attempts=0,
                max_attempts=self.limits.max_attempts,
                available_at=now,
                created_at=now,
                timings={},
            )
            session.add(row)
            session.flush()
            self._event(
                session,
                row,
                "queued",
                {"by": principal.user_id, "as_of": str(as_of)},
                actor=principal.user_id,
            )
            return _view(row)

    def cancel(self, principal: Principal, run_id: str, *, reason: str) -> RunView:
        """Stop further scheduling. A queued run is cancelled at once; a running one stops at
        its next step (the supervisor checks between every tool and model call)."""
        if not reason.strip():
            raise InvalidInput("a reason is required to cancel a run")
        with self._db.write() as session:
            row = self._row(session, principal, run_id)
            if row.requested_by != principal.user_id and not allows(
                principal, Permission.ADMINISTER
            ):
                raise NotAuthorized("only the requester or an admin may cancel a run")
            if row.status == CANCELLED:
                return _shown(session, principal, [_view(row)])[0]
            if row.status in TERMINAL:
                raise IllegalTransition(
                    subject=f"run {run_id}", source=row.status, target=CANCELLED
                )
            row.cancel_requested = True
            self._event(
                session,
                row,
                "cancel_requested",
                {"by": principal.user_id, "reason": reason},
                actor=principal.user_id,
            )
            if row.status == QUEUED:
                self._finish(session, row, CANCELLED, error=f"cancelled by {principal.user_id}")
            return _shown(session, principal, [_view(row)])[0]

    # ---- reads -------------------------------------------------------------------------
    # What derives from documents the viewer may not read is withheld (services/redaction.py).
    def get(self, principal: Principal, run_id: str) -> RunView:
        with self._db.read() as session:
            return _shown(session, principal, [_view(self._row(session, principal, run_id))])[0]

    def search(
        self,
        principal: Principal,
        *,
        task_id: str | None = None,
        statuses: list[str] | None = None,
        limit: int = 50,
    ) -> list[RunView]:
        query = (
            select(Run)
            .outerjoin(
                TaskRow, and_(TaskRow.tenant_id == Run.tenant_id, TaskRow.task_id == Run.task_id)
            )
            .where(Run.tenant_id == principal.tenant_id, task_visible(principal))
        )
        if task_id:
            query = query.where(Run.task_id == task_id)
        if statuses:
            query = query.where(Run.status.in_(statuses))
        with self._db.read() as session:
            rows = session.scalars(
                query.order_by(Run.created_at.desc(), Run.run_id.desc()).limit(limit)
            )
            return _shown(session, principal, [_view(row) for row in rows])

    def events(self, principal: Principal, run_id: str) -> list[RunEventView]:
        with self._db.read() as session:
            self._row(session, principal, run_id)
            events = self._events(session, run_id)
            hidden = hidden_refs(session, principal, refs_in([e.payload for e in events]))
        if not hidden:
            return events
        return [e.model_copy(update={"payload": withhold(e.payload, hidden)}) for e in events]

    def evidence(self, principal: Principal, run_id: str) -> list[Evidence]:
        """What the run's decision may cite (the evidence pool it handed to analysis), as far
        as the principal may read it."""
        with self._db.read() as session:
            self._row(session, principal, run_id)
            pools = [e for e in self._events(session, run_id) if e.kind == "evidence"]
            if not pools:
                return []
            pool = [Evidence.model_validate(i) for i in pools[-1].payload.get("evidence", [])]
            hidden = hidden_refs(session, principal, {(e.document_id, e.version) for e in pool})
        return [e for e in pool if (e.document_id, e.version) not in hidden]

    # ---- the worker side (system, by run id) -------------------------------------------
    def claim(self, worker_id: str, *, run_id: str | None = None) -> RunView | None:
        now = self._clock.now()
        stale = now - timedelta(seconds=self.limits.timeout_seconds)
        with self._db.write() as session:
            query = select(Run).where(
                or_(
                    and_(Run.status == QUEUED, Run.available_at <= now),
                    and_(Run.status == RUNNING, Run.heartbeat_at < stale),
                )
            )
            if run_id is not None:
                query = query.where(Run.run_id == run_id)
            query = query.order_by(Run.available_at, Run.created_at).limit(1)
            if self._db.engine.dialect.name == "postgresql":
                query = query.with_for_update(skip_locked=True)
            row = session.scalars(query).first()
            if row is None:
                return None
            reclaimed = row.status == RUNNING
            row.status = RUNNING
            row.claimed_by = worker_id
            row.heartbeat_at = now
            row.attempts += 1
            row.started_at = row.started_at or now
            self._event(
                session,
                row,
                "claimed",
                {"worker": worker_id, "attempt": row.attempts, "reclaimed": reclaimed},
            )
            return _view(row)

    def system_get(self, run_id: str) -> RunView:
        with self._db.read() as session:
            row = session.get(Run, run_id)
            if row is None:
                raise NotFound("run", run_id)
            return _view(row)

    def system_events(self, run_id: str) -> list[RunEventView]:
        with self._db.read() as session:
            return self._events(session, run_id)

    def heartbeat(self, run_id: str, *, lease: RunView | None = None) -> bool:
        """Keep the claim alive; returns whether a cancel was requested meanwhile.

        With `lease` (the view its claim returned) this is also the fence: an attempt whose
        run was reclaimed by another worker gets LeaseLost instead of renewing.
        """
        with self._db.write() as session:
            return self._renewed(session, run_id, lease).cancel_requested

    def add_event(
        self,
        run_id: str,
        kind: str,
        payload: dict[str, Any],
        *,
        source: str | None = None,
        target: str | None = None,
        schema: str | None = None,
        actor: str | None = None,
    ) -> None:
        self.add_events(
            run_id,
            (
                NewEvent(
                    kind=kind, payload=payload, source=source, target=target, schema_version=schema
                ),
            ),
            actor=actor,
        )

    def add_events(
        self, run_id: str, events: Sequence[NewEvent], *, actor: str | None = None
    ) -> None:
        """Several events of a run in one transaction, in order (nothing when there are none)."""
        if not events:
            return
        with self._db.write() as session:
            self._events_of(session, self._system_row(session, run_id), events, actor=actor)

    def record(
        self,
        run_id: str,
        *,
        usage: ModelUsage | None = None,
        prompt: tuple[str, str] | None = None,
        model: str | None = None,
        decision: dict[str, Any] | None = None,
        review: dict[str, Any] | None = None,
        timings: dict[str, float] | None = None,
        lease: RunView | None = None,
    ) -> None:
        self.step(
            run_id,
            usage=usage,
            prompt=prompt,
            model=model,
            decision=decision,
            review=review,
            timings=timings,
            lease=lease,
        )

    def step(
        self,
        run_id: str,
        *,
        events: tuple[NewEvent, ...] = (),
        usage: ModelUsage | None = None,
        prompt: tuple[str, str] | None = None,
        model: str | None = None,
        decision: dict[str, Any] | None = None,
        review: dict[str, Any] | None = None,
        timings: dict[str, float] | None = None,
        lease: RunView | None = None,
    ) -> bool:
        """What one step of an attempt leaves behind, in one transaction: its events (hand-off
        packets, model calls), what it recorded on the run, and the renewed heartbeat. Fenced by
        `lease` like every write through a claim: a lost lease writes none of it. Returns
        whether a cancel was requested meanwhile (the step is also a cancel point)."""
        recorded: dict[str, Any] = {}
        if usage is not None:
            recorded |= {
                "model_calls": Run.model_calls + usage.model_calls,
                "tokens_in": Run.tokens_in + usage.tokens_in,
                "tokens_out": Run.tokens_out + usage.tokens_out,
                "cost_usd": Run.cost_usd + usage.cost_usd,
            }
        if prompt is not None:
            recorded |= {"prompt_id": prompt[0], "prompt_version": prompt[1]}
        if model is not None:
            recorded["model"] = model
        if decision is not None:
            recorded["decision"] = decision
        if review is not None:
            recorded["review"] = review
        with self._db.write() as session:
            row = self._renewed(session, run_id, lease, **recorded)
            if timings:  # merged with what earlier steps recorded, so read first
                row.timings = {**row.timings, **timings}
            self._events_of(session, row, events)
            return row.cancel_requested

    def reschedule(
        self, run_id: str, *, delay: float, reason: str, lease: RunView | None = None
    ) -> RunView:
        with self._db.write() as session:
            row = self._system_row(session, run_id)
            _check_lease(row, lease)
            row.status = QUEUED
            row.claimed_by = None
            row.available_at = self._clock.now() + timedelta(seconds=delay)
            row.error = reason
            self._event(
                session,
                row,
                "retry_scheduled",
                {"attempt": row.attempts, "delay_s": delay, "reason": reason},
            )
            return _view(row)

    def finish(
        self,
        run_id: str,
        status: str,
        *,
        error: str | None = None,
        lease: RunView | None = None,
        events: tuple[NewEvent, ...] = (),
    ) -> RunView:
        """End the run; `events` (its last hand-off) are written first, in the same transaction."""
        with self._db.write() as session:
            row = self._system_row(session, run_id)
            _check_lease(row, lease)
            self._events_of(session, row, events)
            self._finish(session, row, status, error=error)
            return _view(row)

    def tokens_used_today(self, tenant_id: str) -> int:
        with self._db.read() as session:
            return self._tokens_today(session, tenant_id)

    # ---- internals ---------------------------------------------------------------------
    def _check_limits(self, session: Session, tenant_id: str) -> None:
        # Count and insert under the tenant's row lock: on PostgreSQL (READ COMMITTED) two
        # concurrent enqueues would otherwise both see room for one more run and both insert.
        # SQLite's immediate write transactions are serialised already.
        session.execute(
            select(Tenant.tenant_id).where(Tenant.tenant_id == tenant_id).with_for_update()
        )
        now = self._clock.now()
        window = now - timedelta(minutes=1)
        recent = list(
            session.scalars(
                select(Run.created_at)
                .where(Run.tenant_id == tenant_id, Run.created_at > window)
                .order_by(Run.created_at)
            )
        )
        if len(recent) >= self.limits.runs_per_minute:
            wait = (as_utc(recent[0]) + timedelta(minutes=1) - now).total_seconds()
            raise BudgetExceeded(
                f"tenant {tenant_id}: rate limit of {self.limits.runs_per_minute} runs per "
                f"minute reached; try again in {max(1, round(wait))} s"
            )
        used = self._tokens_today(session, tenant_id)
        if used >= self.limits.daily_token_budget:
            raise BudgetExceeded(
                f"tenant {tenant_id}: daily model token budget of "
                f"{self.limits.daily_token_budget:,} is used up ({used:,} tokens today); "
                "it resets at 00:00 UTC"
            )

    def _tokens_today(self, session: Session, tenant_id: str) -> int:
        midnight = datetime.combine(
            self._clock.now().date(), time(0), tzinfo=self._clock.now().tzinfo
        )
        total = session.scalar(
            select(func.coalesce(func.sum(Run.tokens_in + Run.tokens_out), 0)).where(
                Run.tenant_id == tenant_id, Run.created_at >= midnight
            )
        )
        return int(total or 0)

    def _finish(self, session: Session, row: Run, status: str, *, error: str | None) -> None:
        row.status = status
        row.error = error
        row.finished_at = self._clock.now()
        row.claimed_by = None
        self._event(session, row, "finished", {"status": status, "error": error})

    def _events_of(
        self, session: Session, row: Run, events: Sequence[NewEvent], *, actor: str | None = None
    ) -> None:
        for new in events:
            self._event(
                session,
                row,
                new.kind,
                new.payload,
                new.source,
                new.target,
                new.schema_version,
                actor=actor,
            )

    def _event(
        self,
        session: Session,
        row: Run,
        kind: str,
        payload: dict[str, Any],
        source: str | None = None,
        target: str | None = None,
        schema: str | None = None,
        *,
        actor: str | None = None,
    ) -> None:
        now = self._clock.now()
        session.add(
            RunEvent(
                run_id=row.run_id,
                kind=kind,
                source_agent=source,
                target_agent=target,
                schema_version=schema,
                at=now,
                payload=payload,
            )
        )
        for notify in self._watchers.get(row.run_id, ()):
            after_commit(session, notify)
        if kind in _AUDITED:
            audit.record(
                session,
                clock=self._clock,
                tenant_id=row.tenant_id,
                actor=actor or f"agent:supervisor for {row.requested_by}",
                action=f"run.{kind}",
                subject_type="run",
                subject_id=row.run_id,
                detail={"task_id": row.task_id, **_brief(payload)},
            )

    @staticmethod
    def _events(session: Session, run_id: str) -> list[RunEventView]:
        rows = session.scalars(
            select(RunEvent).where(RunEvent.run_id == run_id).order_by(RunEvent.id)
        )
        return [
            RunEventView(
                id=row.id,
                run_id=row.run_id,
                kind=row.kind,
                source_agent=row.source_agent,
                target_agent=row.target_agent,
                schema_version=row.schema_version,
                at=as_utc(row.at),
                payload=row.payload,
            )
            for row in rows
        ]

    @staticmethod
    def _row(session: Session, principal: Principal, run_id: str) -> Run:
        row = session.get(Run, run_id, populate_existing=True)
        if row is None or row.tenant_id != principal.tenant_id:
            raise NotFound("run", run_id)
        task = session.get(TaskRow, (row.tenant_id, row.task_id))
        if task is not None and not may_see_customer(principal, task.customer_id):
            raise NotFound("run", run_id)  # another customer's run looks like a missing one
        return row

    def _renewed(self, session: Session, run_id: str, lease: RunView | None, **values: Any) -> Run:
        """The run, its heartbeat renewed and `values` written, fenced by `lease`: one
        statement (an UPDATE whose WHERE is the lease, RETURNING the row), where reading the
        row locked and then writing it took two. A row lock held by a reclaim is waited for
        and the WHERE read again on what it committed, as the locked read did; no row back
        means the run is gone or the lease lost, and the locked read says which."""
        query = update(Run).where(Run.run_id == run_id)
        if lease is not None:
            query = query.where(
                Run.status == RUNNING,
                Run.claimed_by == lease.claimed_by,
                Run.attempts == lease.attempts,
            )
        row = session.execute(
            query.values(heartbeat_at=self._clock.now(), **values).returning(Run),
            execution_options={"synchronize_session": False, "populate_existing": True},
        ).scalar_one_or_none()
        if row is None:
            _check_lease(self._system_row(session, run_id), lease)  # NotFound or LeaseLost
            raise LeaseLost(f"run {run_id}: the lease changed while it was renewed")
        return row

    @staticmethod
    def _system_row(session: Session, run_id: str) -> Run:
        # Locked before the lease is checked: a reclaim committing meanwhile is waited for and
        # seen (LeaseLost), never written over (on SQLite every writer holds the lock already).
        row = session.get(Run, run_id, populate_existing=True, with_for_update=True)
        if row is None:
            raise NotFound("run", run_id)
        return row


def _check_lease(row: Run, lease: RunView | None) -> None:
    """Fencing: only the worker and attempt that hold the claim may write through it."""
    if lease is None:
        return
    held = (row.status, row.claimed_by, row.attempts)
    if held != (RUNNING, lease.claimed_by, lease.attempts):
        raise LeaseLost(
            f"run {row.run_id}: attempt {lease.attempts} by {lease.claimed_by} no longer holds "
            f"the run (it is {row.status}, attempt {row.attempts}, claimed by {row.claimed_by})"
        )


def _brief(payload: dict[str, Any]) -> dict[str, Any]:
    """Audit details stay small: scalars and short lists, never whole evidence pools, and never
    a model's raw answer (it quotes documents, and the audit log is read without their ACL)."""
    return {key: value for key, value in payload.items() if key != "raw" and _small(value)}


def _small(value: Any) -> bool:
    if isinstance(value, str | int | float | bool) or value is None:
        return True
    return isinstance(value, list) and len(value) <= 20 and all(isinstance(v, str) for v in value)


def _shown(session: Session, principal: Principal, views: list[RunView]) -> list[RunView]:
    hidden = hidden_refs(session, principal, refs_in([[v.decision, v.review] for v in views]))
    if not hidden:
        return views
    return [
        v.model_copy(
            update={"decision": withhold(v.decision, hidden), "review": withhold(v.review, hidden)}
        )
        for v in views
    ]


def _view(row: Run) -> RunView:
    return RunView(
        run_id=row.run_id,
        tenant_id=row.tenant_id,
        task_id=row.task_id,
        requested_by=row.requested_by,
        status=row.status,
        supplement=row.supplement,
        as_of=row.as_of,
        attempts=row.attempts,
        max_attempts=row.max_attempts,
        available_at=as_utc(row.available_at),
        claimed_by=row.claimed_by,
        heartbeat_at=as_utc(row.heartbeat_at) if row.heartbeat_at else None,
        cancel_requested=row.cancel_requested,
        prompt_id=row.prompt_id,
        prompt_version=row.prompt_version,
        model=row.model,
        model_calls=row.model_calls,
        tokens_in=row.tokens_in,
        tokens_out=row.tokens_out,
        cost_usd=row.cost_usd,
        decision=row.decision,
        review=row.review,
        error=row.error,
        created_at=as_utc(row.created_at),
        started_at=as_utc(row.started_at) if row.started_at else None,
        finished_at=as_utc(row.finished_at) if row.finished_at else None,
        timings=dict(row.timings or {}),
    )
