"""Approval requests: idempotent on tenant + task + decision_version + item, decided by a person."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import and_, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from services.core.clock import Clock, as_utc, random_public_id
from services.core.errors import (
    IdempotencyConflict,
    IllegalTransition,
    InvalidInput,
    NotAuthorized,
    NotFound,
)
from services.core.policy import DRAFT_DECIDER, ROLES, Permission, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import Approval, TaskRow
from services.records import audit
from services.records.redaction import hidden_refs, redact, refs_in
from services.records.tasks import may_see_customer, task_visible

PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"
# Closed without a decision: another item of the same decision was rejected, so the task went
# back for revision and this item will never be decided (a new draft brings new items).
WITHDRAWN = "withdrawn"


class ApprovalView(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    tenant_id: str
    task_id: str
    decision_version: int
    item_key: str
    kind: str
    required_role: str
    run_id: str | None
    payload: dict[str, Any]
    payload_hash: str
    status: str
    requested_by: str
    requested_at: datetime
    decided_by: str | None
    decided_at: datetime | None
    comment: str | None
    result: dict[str, Any] | None = None  # an engineer's structured result, when given


def payload_hash(*, kind: str, required_role: str, payload: dict[str, Any]) -> str:
    """What makes two requests "the same": canonical JSON of everything but the requester."""
    canonical = json.dumps(
        {"kind": kind, "required_role": required_role, "payload": payload},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ApprovalService:
    """Nothing here ever approves on its own: only `decide` by a person with the role does."""

    def __init__(self, *, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    def request(
        self,
        principal: Principal,
        *,
        task_id: str,
        decision_version: int,
        payload: dict[str, Any],
        kind: str = "draft",
        required_role: str = DRAFT_DECIDER,
        item_key: str = "draft",
        run_id: str | None = None,
    ) -> ApprovalView:
        """Ask a person to decide. A repeat of the same request returns the first one; the same
        key with a different payload is refused (IdempotencyConflict)."""
        require(principal, Permission.WORK_TASKS, f"{principal.user_id} may not request approvals")
        if required_role not in ROLES:
            raise InvalidInput(f"required_role must be one of {list(ROLES)}, got {required_role!r}")
        if decision_version < 1:
            raise InvalidInput("decision_version must be at least 1")
        wanted = payload_hash(kind=kind, required_role=required_role, payload=payload)
        key = (principal.tenant_id, task_id, decision_version, item_key)
        try:
            with self._db.write() as session:
                task = session.get(TaskRow, (principal.tenant_id, task_id))
                if task is None or not may_see_customer(principal, task.customer_id):
                    raise NotFound("task", task_id)
                existing = self._by_key(session, *key)
                if existing is not None:
                    return _same_or_conflict(existing, wanted)
                row = Approval(
                    # Random, not a sequence: an id tells nothing about any tenant's volume.
                    id=random_public_id(lambda n: session.get(Approval, n) is not None),
                    tenant_id=principal.tenant_id,
                    task_id=task_id,
                    decision_version=decision_version,
                    item_key=item_key,
                    kind=kind,
                    required_role=required_role,
                    run_id=run_id,
                    payload=payload,
                    payload_hash=wanted,
                    status=PENDING,
                    requested_by=principal.user_id,
                    requested_at=self._clock.now(),
                )
                session.add(row)
                session.flush()  # the unique key decides a concurrent race here
                audit.record(
                    session,
                    clock=self._clock,
                    tenant_id=row.tenant_id,
                    actor=principal.user_id,
                    action="approval.requested",
                    subject_type="approval",
                    subject_id=_subject(row),
                    after_ref=PENDING,
                    detail={"kind": kind, "required_role": required_role, "run_id": run_id},
                )
                return _shown(session, principal, [_view(row)])[0]
        except IntegrityError:
            # Another writer inserted the same key between our read and insert (PostgreSQL
            # READ COMMITTED); its row is the first result.
            with self._db.read() as session:
                existing = self._by_key(session, *key)
                if existing is None:
                    raise
                return _same_or_conflict(existing, wanted)

    def decide(
        self,
        principal: Principal,
        approval_id: int,
        *,
        approve: bool,
        comment: str = "",
        result: dict[str, Any] | None = None,
    ) -> ApprovalView:
        """Record a person's decision: who, when, why and (engineering) what was confirmed.
        Repeating the same decision is a no-op; changing a decision once made is refused."""
        target = APPROVED if approve else REJECTED
        if not approve and not comment.strip():
            raise InvalidInput("a comment is required to reject")
        with self._db.write() as session:
            # Row lock: two people deciding at once on PostgreSQL must not both see `pending`.
            row = self._row(session, principal, approval_id, lock=True)
            if not principal.has_role(row.required_role):
                raise NotAuthorized(
                    f"approval {approval_id} needs the role {row.required_role!r} to decide"
                )
            if row.status == target:
                return _shown(session, principal, [_view(row)])[0]
            if row.status != PENDING:
                raise IllegalTransition(
                    subject=f"approval {approval_id}", source=row.status, target=target
                )
            row.status = target
            row.decided_by = principal.user_id
            row.decided_at = self._clock.now()
            row.comment = comment.strip() or None
            row.result = result or None
            audit.record(
                session,
                clock=self._clock,
                tenant_id=row.tenant_id,
                actor=principal.user_id,
                action=f"approval.{target}",
                subject_type="approval",
                subject_id=_subject(row),
                before_ref=PENDING,
                after_ref=target,
                detail={"comment": row.comment, "approval_id": row.id, "result": row.result},
            )
            return _shown(session, principal, [_view(row)])[0]

    def withdraw(
        self, principal: Principal, approval_ids: list[int], *, reason: str
    ) -> list[ApprovalView]:
        """Close pending items that will never be decided (another item of their decision was
        rejected). Items already decided are left as they are."""
        closed = []
        with self._db.write() as session:
            for approval_id in approval_ids:
                row = self._row(session, principal, approval_id, lock=True)
                if row.status != PENDING:
                    continue
                row.status = WITHDRAWN
                row.decided_at = self._clock.now()
                row.comment = reason
                audit.record(
                    session,
                    clock=self._clock,
                    tenant_id=row.tenant_id,
                    actor=principal.user_id,
                    action="approval.withdrawn",
                    subject_type="approval",
                    subject_id=_subject(row),
                    before_ref=PENDING,
                    after_ref=WITHDRAWN,
                    detail={"reason": reason, "approval_id": row.id},
                )
                closed.append(_view(row))
            return _shown(session, principal, closed) if closed else []

    def get(self, principal: Principal, approval_id: int) -> ApprovalView:
        with self._db.read() as session:
            row = self._row(session, principal, approval_id)
            return _shown(session, principal, [_view(row)])[0]

    def search(
        self,
        principal: Principal,
        *,
        task_id: str | None = None,
        statuses: list[str] | None = None,
        required_role: str | None = None,
        limit: int = 100,
    ) -> list[ApprovalView]:
        query = (
            select(Approval)
            .outerjoin(
                TaskRow,
                and_(TaskRow.tenant_id == Approval.tenant_id, TaskRow.task_id == Approval.task_id),
            )
            .where(Approval.tenant_id == principal.tenant_id, task_visible(principal))
        )
        if task_id is not None:
            query = query.where(Approval.task_id == task_id)
        if statuses:
            query = query.where(Approval.status.in_(statuses))
        if required_role is not None:
            query = query.where(Approval.required_role == required_role)
        with self._db.read() as session:
            # Ids are random: the order is when and in which item order they were requested.
            rows = session.scalars(
                query.order_by(
                    Approval.requested_at,
                    Approval.decision_version,
                    func.length(Approval.item_key),
                    Approval.item_key,
                ).limit(limit)
            )
            return _shown(session, principal, [_view(row) for row in rows])

    @staticmethod
    def _by_key(
        session: Session, tenant_id: str, task_id: str, decision_version: int, item_key: str
    ) -> Approval | None:
        return session.scalar(
            select(Approval).where(
                Approval.tenant_id == tenant_id,
                Approval.task_id == task_id,
                Approval.decision_version == decision_version,
                Approval.item_key == item_key,
            )
        )

    @staticmethod
    def _row(
        session: Session, principal: Principal, approval_id: int, *, lock: bool = False
    ) -> Approval:
        row = session.get(Approval, approval_id, populate_existing=True, with_for_update=lock)
        if row is None or row.tenant_id != principal.tenant_id:
            raise NotFound("approval", str(approval_id))
        task = session.get(TaskRow, (row.tenant_id, row.task_id))
        if task is not None and not may_see_customer(principal, task.customer_id):
            raise NotFound("approval", str(approval_id))  # looks exactly like a missing one
        return row


def _same_or_conflict(row: Approval, wanted_hash: str) -> ApprovalView:
    if row.payload_hash != wanted_hash:
        raise IdempotencyConflict(
            f"approval {_subject(row)} was already requested with a different payload; "
            "a changed draft needs a new decision_version"
        )
    return _view(row)


def _subject(row: Approval) -> str:
    return f"{row.task_id}:{row.decision_version}:{row.item_key}"


def _shown(session: Session, principal: Principal, views: list[ApprovalView]) -> list[ApprovalView]:
    """Payload text from documents the principal may not read is withheld (redaction.py)."""
    hidden = hidden_refs(session, principal, refs_in([v.payload for v in views]))
    if not hidden:
        return views
    return [v.model_copy(update={"payload": redact(v.payload, hidden)}) for v in views]


def _view(row: Approval) -> ApprovalView:
    return ApprovalView(
        id=row.id,
        tenant_id=row.tenant_id,
        task_id=row.task_id,
        decision_version=row.decision_version,
        item_key=row.item_key,
        kind=row.kind,
        required_role=row.required_role,
        run_id=row.run_id,
        payload=row.payload,
        payload_hash=row.payload_hash,
        status=row.status,
        requested_by=row.requested_by,
        requested_at=as_utc(row.requested_at),
        decided_by=row.decided_by,
        decided_at=as_utc(row.decided_at) if row.decided_at else None,
        comment=row.comment,
        result=row.result,
    )
