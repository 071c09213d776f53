"""Task state service (task-state@1): restore, compare-and-set updates, lifecycle, retention."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import ColumnElement, Text, cast, delete, func, or_, select, true, update
from sqlalchemy.orm import Session

from services.contracts.ids import require_id
from services.contracts.task_state import TaskState, TaskStatus, can_transition
from services.core.clock import Clock, as_utc
from services.core.errors import (
    ConfirmedFieldConflict,
    IllegalTransition,
    InvalidInput,
    NotAuthorized,
    NotFound,
    StaleRevision,
)
from services.core.policy import Permission, allows, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import TaskCheckpoint, TaskEvent, TaskRow, Tenant
from services.records import audit, holds

_UNSET: Any = object()


class FieldConflict(BaseModel):
    model_config = ConfigDict(frozen=True)

    field: str
    confirmed: Any
    proposed: Any
    proposed_by: str
    at: datetime
    source: str | None = None


class TaskRecord(BaseModel):
    """A task as the console sees it: the contract state plus retention and open conflicts."""

    model_config = ConfigDict(frozen=True)

    state: TaskState
    conflicts: list[FieldConflict] = Field(default_factory=list)
    created_by: str
    completed_at: datetime | None = None
    expires_at: datetime | None = None
    legal_hold: bool = False
    legal_hold_reason: str | None = None


class TaskEventRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    revision: int
    kind: str
    actor: str
    run_id: str | None
    at: datetime
    detail: dict[str, Any]


class CheckpointRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    revision: int
    stage: str
    run_id: str | None
    state: TaskState
    relied_on: list[dict[str, Any]]
    at: datetime


class TaskPage(BaseModel):
    model_config = ConfigDict(frozen=True)

    items: list[TaskRecord]
    total: int
    offset: int
    limit: int


class PurgeReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    dry_run: bool
    removed: list[str]
    kept_on_hold: list[str]


class TaskService:
    def __init__(self, *, db: Database, clock: Clock, default_retention_days: int = 90) -> None:
        self._db = db
        self._clock = clock
        self._default_retention = default_retention_days

    # ---- reads -------------------------------------------------------------------------
    def get(self, principal: Principal, task_id: str) -> TaskRecord:
        """Restore a task by the principal's tenant + task_id (never a tenant from input)."""
        with self._db.read() as session:
            return _record(self._row(session, principal, task_id))

    def search(
        self,
        principal: Principal,
        *,
        statuses: list[str] | None = None,
        search: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> TaskPage:
        query = select(TaskRow).where(
            TaskRow.tenant_id == principal.tenant_id, task_visible(principal)
        )
        if statuses:
            query = query.where(TaskRow.status.in_(statuses))
        if search:
            query = query.where(_matching(search))
        with self._db.read() as session:
            total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
            rows = session.scalars(
                query.order_by(TaskRow.updated_at.desc(), TaskRow.task_id)
                .limit(limit)
                .offset(offset)
            )
            return TaskPage(
                items=[_record(row) for row in rows], total=total, offset=offset, limit=limit
            )

    def status_counts(self, principal: Principal, *, search: str | None = None) -> dict[str, int]:
        """Tasks per status, of those `search` matches (the inbox's counts follow its filter)."""
        query = (
            select(TaskRow.status, func.count())
            .where(TaskRow.tenant_id == principal.tenant_id, task_visible(principal))
            .group_by(TaskRow.status)
        )
        if search:
            query = query.where(_matching(search))
        with self._db.read() as session:
            return {status: count for status, count in session.execute(query)}

    def events(self, principal: Principal, task_id: str) -> list[TaskEventRecord]:
        with self._db.read() as session:
            self._row(session, principal, task_id)
            rows = session.scalars(
                select(TaskEvent)
                .where(TaskEvent.tenant_id == principal.tenant_id, TaskEvent.task_id == task_id)
                .order_by(TaskEvent.id)
            )
            return [
                TaskEventRecord(
                    id=row.id,
                    revision=row.revision,
                    kind=row.kind,
                    actor=row.actor,
                    run_id=row.run_id,
                    at=as_utc(row.at),
                    detail=row.detail,
                )
                for row in rows
            ]

    def checkpoints(self, principal: Principal, task_id: str) -> list[CheckpointRecord]:
        with self._db.read() as session:
            self._row(session, principal, task_id)
            rows = session.scalars(
                select(TaskCheckpoint)
                .where(
                    TaskCheckpoint.tenant_id == principal.tenant_id,
                    TaskCheckpoint.task_id == task_id,
                )
                .order_by(TaskCheckpoint.id)
            )
            return [
                CheckpointRecord(
                    id=row.id,
                    revision=row.revision,
                    stage=row.stage,
                    run_id=row.run_id,
                    state=TaskState.model_validate(row.state),
                    relied_on=row.relied_on,
                    at=as_utc(row.at),
                )
                for row in rows
            ]

    # ---- writes ------------------------------------------------------------------------
    def create(
        self,
        principal: Principal,
        *,
        task_id: str,
        confirmed: dict[str, Any] | None = None,
        pending: list[str] | None = None,
        next_step: str | None = None,
        evidence_ids: list[str] | None = None,
        status: TaskStatus = TaskStatus.created,
    ) -> TaskRecord:
        _require_writer(principal)
        require_id(task_id, kind="task_id")
        customer = customer_of(confirmed or {})
        if not may_see_customer(principal, customer):
            raise NotAuthorized(f"{principal.user_id} has no grant for customer {customer}")
        with self._db.write() as session:
            row = self.insert_row(
                session,
                tenant_id=principal.tenant_id,
                actor=principal.user_id,
                state=TaskState(
                    tenant_id=principal.tenant_id,
                    task_id=task_id,
                    revision=1,
                    status=status,
                    confirmed=confirmed or {},
                    pending=pending or [],
                    next_step=next_step,
                    evidence_ids=evidence_ids or [],
                ),
            )
            return _record(row)

    def insert_row(
        self, session: Session, *, tenant_id: str, actor: str, state: TaskState
    ) -> TaskRow:
        """Insert a task inside the caller's unit of work (also used by the corpus import)."""
        if session.get(TaskRow, (tenant_id, state.task_id)) is not None:
            raise InvalidInput(f"task {state.task_id} already exists")
        now = self._clock.now()
        completed_at = expires_at = None
        if state.status == TaskStatus.completed:
            # A task that arrives completed (a corpus import) starts its retention clock at its
            # last update, so purge-expired applies to it like to one completed here.
            completed_at = as_utc(state.updated_at) if state.updated_at else now
            expires_at = completed_at + timedelta(days=self._retention_days(session, tenant_id))
        row = TaskRow(
            tenant_id=tenant_id,
            task_id=state.task_id,
            revision=state.revision,
            status=state.status.value,
            confirmed=dict(state.confirmed),
            pending=list(state.pending),
            next_step=state.next_step,
            evidence_ids=list(state.evidence_ids),
            conflicts=[],
            created_by=actor,
            created_at=state.created_at or now,
            updated_at=state.updated_at or now,
            customer_id=customer_of(state.confirmed),
            completed_at=completed_at,
            expires_at=expires_at,
        )
        session.add(row)
        session.flush()
        self._log(session, row, actor=actor, kind="created", detail={}, stage="created")
        return row

    def update(
        self,
        principal: Principal,
        task_id: str,
        *,
        expected_revision: int,
        status: TaskStatus | None = None,
        confirm: dict[str, Any] | None = None,
        pending: list[str] | None = None,
        next_step: str | None = _UNSET,
        add_evidence_ids: list[str] | None = None,
        run_id: str | None = None,
        relied_on: list[dict[str, Any]] | None = None,
        note: str | None = None,
        event: str | None = None,
        event_detail: dict[str, Any] | None = None,
    ) -> TaskRecord:
        """Compare-and-set: applies only if the task is still at `expected_revision`.

        `event` names the timeline/audit entry of a person's decision (default: transition or
        updated); `event_detail` is stored with it.

        A value for an already confirmed field that differs from it is never applied: the
        update is refused with ConfirmedFieldConflict and the conflict is kept on the task for
        a person to settle.
        """
        _require_writer(principal)
        conflicts: list[FieldConflict] = []
        with self._db.write() as session:
            row = self._row(session, principal, task_id)
            if row.revision != expected_revision:
                raise StaleRevision(
                    task_id=task_id, expected=expected_revision, current=row.revision
                )
            current = TaskStatus(row.status)
            if status is not None and not can_transition(current, status):
                raise IllegalTransition(subject=f"task {task_id}", source=current, target=status)
            now = self._clock.now()
            for field, value in (confirm or {}).items():
                if field in row.confirmed and row.confirmed[field] != value:
                    conflicts.append(
                        FieldConflict(
                            field=field,
                            confirmed=row.confirmed[field],
                            proposed=value,
                            proposed_by=principal.user_id,
                            at=now,
                            source=run_id,
                        )
                    )
            if conflicts:
                values = {
                    "conflicts": [*row.conflicts, *(c.model_dump(mode="json") for c in conflicts)]
                }
                self._cas(session, row, expected_revision, values)
                self._log(
                    session,
                    row,
                    actor=principal.user_id,
                    kind="conflict",
                    detail={"conflicts": [c.model_dump(mode="json") for c in conflicts]},
                    run_id=run_id,
                    stage="conflict",
                )
            else:
                values = self._changes(
                    row,
                    status=status,
                    confirm=confirm,
                    pending=pending,
                    next_step=next_step,
                    add_evidence_ids=add_evidence_ids,
                    now=now,
                    retention_days=lambda: self._retention_days(session, row.tenant_id),
                )
                before = _state(row)
                self._cas(session, row, expected_revision, values)
                self._log(
                    session,
                    row,
                    actor=principal.user_id,
                    kind=event or ("transition" if status and status != current else "updated"),
                    detail={
                        **(event_detail or {}),
                        "before": before.model_dump(mode="json", exclude={"tenant_id"}),
                        "note": note,
                    },
                    run_id=run_id,
                    stage=row.status,
                    relied_on=relied_on,
                    audit_detail=event_detail,
                )
                return _record(row)
        first = conflicts[0]
        raise ConfirmedFieldConflict(
            task_id=task_id, field=first.field, confirmed=first.confirmed, proposed=first.proposed
        )

    def resolve_conflict(
        self,
        principal: Principal,
        task_id: str,
        *,
        expected_revision: int,
        field: str,
        keep_confirmed: bool,
        reason: str,
    ) -> TaskRecord:
        """A person settles a conflict on a confirmed field, with a reason that is audited."""
        require(
            principal,
            Permission.SETTLE_CONFLICTS,
            "only sales or admin may settle a confirmed-field conflict",
        )
        if not reason.strip():
            raise InvalidInput("a reason is required to settle a conflict")
        with self._db.write() as session:
            row = self._row(session, principal, task_id)
            if row.revision != expected_revision:
                raise StaleRevision(
                    task_id=task_id, expected=expected_revision, current=row.revision
                )
            open_ = [c for c in row.conflicts if c["field"] == field]
            if not open_:
                raise NotFound("conflict", f"{task_id}.{field}")
            chosen = row.confirmed.get(field) if keep_confirmed else open_[-1]["proposed"]
            values = {
                "customer_id": customer_of({**row.confirmed, field: chosen}),
                "confirmed": {**row.confirmed, field: chosen},
                "conflicts": [c for c in row.conflicts if c["field"] != field],
                "updated_at": self._clock.now(),
            }
            self._cas(session, row, expected_revision, values)
            self._log(
                session,
                row,
                actor=principal.user_id,
                kind="conflict_resolved",
                detail={
                    "field": field,
                    "value": chosen,
                    "keep_confirmed": keep_confirmed,
                    "reason": reason,
                },
                stage="conflict_resolved",
                audit_detail={"field": field, "keep_confirmed": keep_confirmed, "reason": reason},
            )
            return _record(row)

    def set_legal_hold(
        self, principal: Principal, task_id: str, *, hold: bool, reason: str
    ) -> TaskRecord:
        """The same hold as `memdesk holds set --type task`: one row in the hold table (lifting
        lifts every active hold of the task), with the task's own flag kept in step."""
        require(principal, Permission.ADMINISTER, "only an admin may set or lift a legal hold")
        if not reason.strip():
            raise InvalidInput("a reason is required for a legal hold change")
        reason = reason.strip()
        with self._db.write() as session:
            row = self._row(session, principal, task_id, lock=True)
            if hold:
                changed = [
                    holds.place(
                        session,
                        self._clock,
                        tenant_id=row.tenant_id,
                        record_type="task",
                        record_id=task_id,
                        reason=reason,
                        actor=principal.user_id,
                    )
                ]
            else:
                changed = holds.lift_all(
                    session,
                    self._clock,
                    tenant_id=row.tenant_id,
                    record_type="task",
                    record_id=task_id,
                    actor=principal.user_id,
                    reason=reason,
                )
            still = holds.active(session, row.tenant_id, "task", task_id)
            self.mark_hold(row, held=bool(still), reason=still[0].reason if still else None)
            audit.record(
                session,
                clock=self._clock,
                tenant_id=row.tenant_id,
                actor=principal.user_id,
                action="legal_hold.set" if hold else "legal_hold.lifted",
                subject_type="task",
                subject_id=task_id,
                after_ref=",".join(f"hold:{h.id}" for h in changed) or None,
                detail={"reason": reason},
            )
            return _record(row)

    def lock_for_hold(self, session: Session, tenant_id: str, task_id: str) -> TaskRow:
        """The task row under a row lock, for a hold to be recorded in the caller's unit of work.
        A purge holding the lock first has deleted it by the time this returns: NotFound."""
        row = session.get(
            TaskRow, (tenant_id, task_id), populate_existing=True, with_for_update=True
        )
        if row is None:
            raise NotFound("task", task_id)
        return row

    @staticmethod
    def mark_hold(row: TaskRow, *, held: bool, reason: str | None) -> None:
        row.legal_hold = held
        row.legal_hold_reason = reason if held else None

    def purge_expired(
        self,
        *,
        actor: str,
        now: datetime | None = None,
        dry_run: bool = False,
        tenant_id: str | None = None,
    ) -> PurgeReport:
        """Remove completed tasks past their expiry. Incomplete or held tasks are never touched;
        the audit log keeps its entries (it is append-only).

        The expired rows are locked before the holds are read, and each DELETE carries the hold
        condition itself: a hold that committed first always wins, and a hold arriving while
        its task is being purged waits for the lock and then finds no task (NotFound)."""
        now = now or self._clock.now()
        query = select(TaskRow).where(
            TaskRow.status == TaskStatus.completed.value,
            TaskRow.expires_at.is_not(None),
            TaskRow.expires_at <= now,
        )
        if tenant_id:
            query = query.where(TaskRow.tenant_id == tenant_id)
        removed: list[str] = []
        held: list[str] = []
        query = query.order_by(TaskRow.tenant_id, TaskRow.task_id)
        # A dry run only reads (it works on a read-only store); a purge locks what it removes.
        with self._db.read() if dry_run else self._db.write() as session:
            rows = session.scalars(query if dry_run else query.with_for_update()).all()
            on_hold = holds.held_ids(session, "task")
            for row in rows:
                key = f"{row.tenant_id}/{row.task_id}"
                if row.legal_hold or (row.tenant_id, row.task_id) in on_hold:
                    held.append(key)
                    continue
                if dry_run:
                    removed.append(key)
                    continue
                gone = session.execute(
                    delete(TaskRow)
                    .where(
                        TaskRow.tenant_id == row.tenant_id,
                        TaskRow.task_id == row.task_id,
                        TaskRow.legal_hold.is_(False),
                        ~holds.active_hold_exists("task", TaskRow.tenant_id, TaskRow.task_id),
                    )
                    .execution_options(synchronize_session=False)
                ).rowcount  # type: ignore[attr-defined]
                if gone != 1:
                    held.append(key)
                    continue
                removed.append(key)
                audit.record(
                    session,
                    clock=self._clock,
                    tenant_id=row.tenant_id,
                    actor=actor,
                    action="task.purged",
                    subject_type="task",
                    subject_id=row.task_id,
                    before_ref=f"{row.task_id}@r{row.revision}",
                    detail={
                        "expired_at": as_utc(row.expires_at).isoformat() if row.expires_at else None
                    },
                )
        return PurgeReport(dry_run=dry_run, removed=removed, kept_on_hold=held)

    def reschedule_expiry(self, session: Session, *, tenant_id: str) -> int:
        """Re-derive expires_at of the tenant's completed tasks from its current retention
        period. Whoever changes the policy calls this in the same unit of work, so a shorter
        period also applies to tasks completed before the change. Returns how many moved."""
        days = self._retention_days(session, tenant_id)
        moved = 0
        completed = session.scalars(
            select(TaskRow).where(
                TaskRow.tenant_id == tenant_id,
                TaskRow.status == TaskStatus.completed.value,
                TaskRow.completed_at.is_not(None),
            )
        )
        for row in completed:
            if row.completed_at is None:
                continue
            expires = as_utc(row.completed_at) + timedelta(days=days)
            if row.expires_at is None or as_utc(row.expires_at) != expires:
                row.expires_at = expires
                moved += 1
        return moved

    # ---- internals ---------------------------------------------------------------------
    @staticmethod
    def _row(
        session: Session, principal: Principal, task_id: str, *, lock: bool = False
    ) -> TaskRow:
        row = session.get(
            TaskRow,
            (principal.tenant_id, task_id),
            populate_existing=True,
            with_for_update=lock or None,
        )
        if row is None or not may_see_customer(principal, row.customer_id):
            raise NotFound("task", task_id)  # another customer's task looks like a missing one
        return row

    def _retention_days(self, session: Session, tenant_id: str) -> int:
        tenant = session.get(Tenant, tenant_id)
        if tenant is not None and tenant.completed_task_retention_days is not None:
            return tenant.completed_task_retention_days
        return self._default_retention

    @staticmethod
    def _changes(
        row: TaskRow,
        *,
        status: TaskStatus | None,
        confirm: dict[str, Any] | None,
        pending: list[str] | None,
        next_step: str | None,
        add_evidence_ids: list[str] | None,
        now: datetime,
        retention_days: Callable[[], int],
    ) -> dict[str, Any]:
        values: dict[str, Any] = {"updated_at": now}
        if status is not None:
            values["status"] = status.value
            # Only the move into `completed` starts the retention clock; repeating the same
            # status must not push the expiry further out.
            if status == TaskStatus.completed and row.status != TaskStatus.completed.value:
                values["completed_at"] = now
                values["expires_at"] = now + timedelta(days=retention_days())
        if confirm:
            values["confirmed"] = {**row.confirmed, **confirm}
            values["customer_id"] = customer_of(values["confirmed"])
        if pending is not None:
            values["pending"] = list(dict.fromkeys(pending))
        if next_step is not _UNSET:
            values["next_step"] = next_step
        if add_evidence_ids:
            values["evidence_ids"] = list(dict.fromkeys([*row.evidence_ids, *add_evidence_ids]))
        return values

    @staticmethod
    def _cas(session: Session, row: TaskRow, expected: int, values: dict[str, Any]) -> None:
        # One statement: the WHERE on revision is what makes a concurrent writer lose, and
        # RETURNING refreshes `row` with what was written (no second read).
        updated = session.execute(
            update(TaskRow)
            .where(
                TaskRow.tenant_id == row.tenant_id,
                TaskRow.task_id == row.task_id,
                TaskRow.revision == expected,
            )
            .values(revision=TaskRow.revision + 1, **values)
            .returning(TaskRow),
            execution_options={"synchronize_session": False, "populate_existing": True},
        ).scalar_one_or_none()
        if updated is None:
            current = session.scalar(
                select(TaskRow.revision).where(
                    TaskRow.tenant_id == row.tenant_id, TaskRow.task_id == row.task_id
                )
            )
            raise StaleRevision(task_id=row.task_id, expected=expected, current=current or 0)
        assert updated is row  # the identity map's row, refreshed

    def _log(
        self,
        session: Session,
        row: TaskRow,
        *,
        actor: str,
        kind: str,
        detail: dict[str, Any],
        stage: str,
        run_id: str | None = None,
        relied_on: list[dict[str, Any]] | None = None,
        audit_detail: dict[str, Any] | None = None,
    ) -> None:
        now = self._clock.now()
        state = _state(row)
        session.add(
            TaskEvent(
                tenant_id=row.tenant_id,
                task_id=row.task_id,
                revision=row.revision,
                kind=kind,
                actor=actor,
                run_id=run_id,
                at=now,
                detail=detail,
            )
        )
        session.add(
            TaskCheckpoint(
                tenant_id=row.tenant_id,
                task_id=row.task_id,
                revision=row.revision,
                stage=stage,
                run_id=run_id,
                state=state.model_dump(mode="json"),
                relied_on=relied_on or [],
                at=now,
            )
        )
        audit.record(
            session,
            clock=self._clock,
            tenant_id=row.tenant_id,
            actor=actor,
            action=f"task.{kind}",
            subject_type="task",
            subject_id=row.task_id,
            before_ref=f"{row.task_id}@r{row.revision - 1}" if row.revision > 1 else None,
            after_ref=f"{row.task_id}@r{row.revision}",
            detail={**(audit_detail or {}), "status": row.status, "run_id": run_id},
        )


def customer_of(confirmed: dict[str, Any]) -> str | None:
    """The customer a task serves: its confirmed `customer_id`, if any."""
    customer = confirmed.get("customer_id")
    return customer if isinstance(customer, str) and customer else None


def granted_customers(principal: Principal) -> tuple[str, ...] | None:
    """The customers whose tasks the principal may see; None: every customer of the tenant
    (knowledge owners and admins, as for every memory scope)."""
    if allows(principal, Permission.SEE_ALL_CUSTOMERS):
        return None
    prefix = "customer:"
    return tuple(g[len(prefix) :] for g in principal.grants if g.startswith(prefix))


def may_see_customer(principal: Principal, customer_id: str | None) -> bool:
    customers = granted_customers(principal)
    return customer_id is None or customers is None or customer_id in customers


def task_visible(principal: Principal) -> ColumnElement[bool]:
    """Inside the query, like a document's ACL: a task with a customer needs that customer's
    grant (the tenant is matched separately, always from the principal)."""
    customers = granted_customers(principal)
    if customers is None:
        return true()
    return or_(TaskRow.customer_id.is_(None), TaskRow.customer_id.in_(customers))


def _require_writer(principal: Principal) -> None:
    require(principal, Permission.WORK_TASKS, f"{principal.user_id} may not change tasks")


def _matching(search: str) -> ColumnElement[bool]:
    """Task id, next step or a confirmed value (customer, part number…) containing `search`."""
    like = f"%{_escape_like(search)}%"
    return (
        TaskRow.task_id.ilike(like, escape="\\")
        | TaskRow.next_step.ilike(like, escape="\\")
        | cast(TaskRow.confirmed, Text).ilike(like, escape="\\")
    )


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _state(row: TaskRow) -> TaskState:
    return TaskState(
        tenant_id=row.tenant_id,
        task_id=row.task_id,
        revision=row.revision,
        status=TaskStatus(row.status),
        confirmed=row.confirmed,
        pending=row.pending,
        next_step=row.next_step,
        evidence_ids=row.evidence_ids,
        created_at=as_utc(row.created_at),
        updated_at=as_utc(row.updated_at),
    )


def _record(row: TaskRow) -> TaskRecord:
    return TaskRecord(
        state=_state(row),
        conflicts=[FieldConflict.model_validate(c) for c in row.conflicts],
        created_by=row.created_by,
        completed_at=as_utc(row.completed_at) if row.completed_at else None,
        expires_at=as_utc(row.expires_at) if row.expires_at else None,
        legal_hold=row.legal_hold,
        legal_hold_reason=row.legal_hold_reason,
    )
