"""The append-only audit log: who did what, when, in which tenant, with before/after refs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from services.clock import Clock, as_utc
from services.db.engine import Database
from services.db.models import AuditEntry
from services.errors import NotAuthorized
from services.principals import Principal


class AuditRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    at: datetime
    tenant_id: str
    actor: str
    action: str
    subject_type: str
    subject_id: str
    before_ref: str | None
    after_ref: str | None
    detail: dict[str, Any]


def record(
    session: Session,
    *,
    clock: Clock,
    tenant_id: str,
    actor: str,
    action: str,
    subject_type: str,
    subject_id: str,
    before_ref: str | None = None,
    after_ref: str | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    """Append one entry inside the caller's unit of work (it commits or rolls back with it)."""
    session.add(
        AuditEntry(
            at=clock.now(),
            tenant_id=tenant_id,
            actor=actor,
            action=action,
            subject_type=subject_type,
            subject_id=subject_id,
            before_ref=before_ref,
            after_ref=after_ref,
            detail=detail or {},
        )
    )


class AuditService:
    """Read access to the log. There is deliberately no update or delete here."""

    def __init__(self, *, db: Database) -> None:
        self._db = db

    def search(
        self,
        principal: Principal,
        *,
        action: str | None = None,
        actor: str | None = None,
        subject_id: str | None = None,
        since: datetime | None = None,
        limit: int = 500,
        offset: int = 0,
    ) -> list[AuditRecord]:
        _require_auditor(principal)
        query = self._filtered(principal, action, actor, subject_id, since)
        query = query.order_by(AuditEntry.id.desc()).limit(limit).offset(offset)
        with self._db.read() as session:
            return [_to_record(row) for row in session.scalars(query)]

    def count(self, principal: Principal, *, action: str | None = None) -> int:
        _require_auditor(principal)
        query = select(func.count()).select_from(AuditEntry)
        query = query.where(AuditEntry.tenant_id == principal.tenant_id)
        if action:
            query = query.where(AuditEntry.action == action)
        with self._db.read() as session:
            return int(session.scalar(query) or 0)

    def actions(self, principal: Principal) -> list[str]:
        _require_auditor(principal)
        query = (
            select(AuditEntry.action)
            .where(AuditEntry.tenant_id == principal.tenant_id)
            .distinct()
            .order_by(AuditEntry.action)
        )
        with self._db.read() as session:
            return list(session.scalars(query))

    @staticmethod
    def _filtered(
        principal: Principal,
        action: str | None,
        actor: str | None,
        subject_id: str | None,
        since: datetime | None,
    ) -> Select[AuditEntry]:
        query = select(AuditEntry).where(AuditEntry.tenant_id == principal.tenant_id)
        if action:
            query = query.where(AuditEntry.action == action)
        if actor:
            query = query.where(AuditEntry.actor == actor)
        if subject_id:
            query = query.where(AuditEntry.subject_id == subject_id)
        if since:
            query = query.where(AuditEntry.at >= since)
        return query


def _require_auditor(principal: Principal) -> None:
    if not principal.has_role("admin", "knowledge_owner"):
        raise NotAuthorized("the audit log is for admins and knowledge owners")


def _to_record(row: AuditEntry) -> AuditRecord:
    return AuditRecord(
        id=row.id,
        at=as_utc(row.at),
        tenant_id=row.tenant_id,
        actor=row.actor,
        action=row.action,
        subject_type=row.subject_type,
        subject_id=row.subject_id,
        before_ref=row.before_ref,
        after_ref=row.after_ref,
        detail=row.detail,
    )
