"""The append-only audit log: who did what, when, in which tenant, with before/after refs."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.orm import Session

from services.core.clock import Clock, as_utc
from services.core.policy import Permission, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import AuditEntry
from services.records import audit_chain

# The chain's checks, read from here by the CLI, the lab and the tests.
from services.records.audit_chain import ChainBreak as ChainBreak
from services.records.audit_chain import ChainReport as ChainReport
from services.records.audit_chain import verify_chain as verify_chain


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


class AuditQuery(BaseModel):
    """What the audit page filters on. `target` matches the start of the subject id
    (`Q42` finds `Q42` and `Q42:1:draft`); `since` is inclusive, `until` exclusive."""

    model_config = ConfigDict(frozen=True)

    actor: str | None = None
    action: str | None = None
    target: str | None = None
    since: datetime | None = None
    until: datetime | None = None


class AuditPage(BaseModel):
    """One page of the log, newest first, and how many entries match in total."""

    model_config = ConfigDict(frozen=True)

    items: list[AuditRecord]
    total: int
    limit: int
    offset: int


class AuditExport(BaseModel):
    model_config = ConfigDict(frozen=True)

    filename: str
    content: str = Field(repr=False)
    rows: int
    truncated: bool


CSV_COLUMNS = (
    "id",
    "at",
    "tenant_id",
    "actor",
    "action",
    "subject_type",
    "subject_id",
    "before_ref",
    "after_ref",
    "detail",
)
MAX_PAGE_SIZE = 500
MAX_EXPORT_ROWS = 50_000
# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


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
    """Append one entry inside the caller's unit of work (it commits or rolls back with it);
    it is chained to its tenant's previous entry, keyed, when that commits (audit_chain)."""
    entry = {
        "at": clock.now(),
        "tenant_id": tenant_id,
        "actor": actor,
        "action": action,
        "subject_type": subject_type,
        "subject_id": subject_id,
        "before_ref": before_ref,
        "after_ref": after_ref,
        # The detail as it will read back from the JSON column, so the hash verifies later.
        "detail": json.loads(json.dumps(detail or {}, ensure_ascii=False)),
    }
    audit_chain.append(session, entry)


class AuditService:
    """Read access to the log. There is deliberately no update or delete here."""

    def __init__(self, *, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

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

    def page(
        self, principal: Principal, query: AuditQuery, *, limit: int = 50, offset: int = 0
    ) -> AuditPage:
        """One page of matching entries, paged and counted in SQL (the log grows without end)."""
        _require_auditor(principal)
        limit = max(1, min(limit, MAX_PAGE_SIZE))
        offset = max(0, offset)
        conditions = _conditions(principal, query)
        rows = select(AuditEntry).where(*conditions).order_by(AuditEntry.id.desc())
        counted = select(func.count()).select_from(AuditEntry).where(*conditions)
        with self._db.read() as session:
            total = int(session.scalar(counted) or 0)
            items = [_to_record(row) for row in session.scalars(rows.limit(limit).offset(offset))]
        return AuditPage(items=items, total=total, limit=limit, offset=offset)

    def actors(self, principal: Principal) -> list[str]:
        _require_auditor(principal)
        query = (
            select(AuditEntry.actor)
            .where(AuditEntry.tenant_id == principal.tenant_id)
            .distinct()
            .order_by(AuditEntry.actor)
        )
        with self._db.read() as session:
            return list(session.scalars(query))

    def export_csv(
        self, principal: Principal, query: AuditQuery, *, max_rows: int = MAX_EXPORT_ROWS
    ) -> AuditExport:
        """The matching entries as CSV (newest first). The export itself is audited."""
        _require_auditor(principal)
        conditions = _conditions(principal, query)
        rows = (
            select(AuditEntry).where(*conditions).order_by(AuditEntry.id.desc()).limit(max_rows + 1)
        )
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(CSV_COLUMNS)
        with self._db.write() as session:
            entries = list(session.scalars(rows))
            truncated = len(entries) > max_rows
            entries = entries[:max_rows]
            for entry in entries:
                writer.writerow(_csv_row(_to_record(entry)))
            now = self._clock.now()
            record(
                session,
                clock=self._clock,
                tenant_id=principal.tenant_id,
                actor=principal.user_id,
                action="audit.exported",
                subject_type="audit_log",
                subject_id=principal.tenant_id,
                detail={
                    "filters": query.model_dump(mode="json", exclude_none=True),
                    "rows": len(entries),
                    "truncated": truncated,
                },
            )
        return AuditExport(
            filename=f"memdesk-audit-{principal.tenant_id}-{now:%Y%m%dT%H%M%SZ}.csv",
            content=buffer.getvalue(),
            rows=len(entries),
            truncated=truncated,
        )

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


def _conditions(principal: Principal, query: AuditQuery) -> list[ColumnElement[bool]]:
    # The tenant comes from the principal, never from the query.
    conditions: list[ColumnElement[bool]] = [AuditEntry.tenant_id == principal.tenant_id]
    if query.actor:
        conditions.append(AuditEntry.actor == query.actor)
    if query.action:
        conditions.append(AuditEntry.action == query.action)
    if query.target:
        conditions.append(AuditEntry.subject_id.startswith(query.target, autoescape=True))
    if query.since:
        conditions.append(AuditEntry.at >= query.since)
    if query.until:
        conditions.append(AuditEntry.at < query.until)
    return conditions


def _csv_row(entry: AuditRecord) -> list[str]:
    values = [
        str(entry.id),
        entry.at.isoformat(),
        entry.tenant_id,
        entry.actor,
        entry.action,
        entry.subject_type,
        entry.subject_id,
        entry.before_ref or "",
        entry.after_ref or "",
        json.dumps(entry.detail, ensure_ascii=False, sort_keys=True, default=str),
    ]
    return [_spreadsheet_safe(value) for value in values]


def _spreadsheet_safe(value: str) -> str:
    """Prefix a quote so a spreadsheet shows the text instead of evaluating it."""
    return f"'{value}" if value.startswith(_FORMULA_START) else value


def _require_auditor(principal: Principal) -> None:
    require(principal, Permission.READ_AUDIT, "the audit log is for admins and knowledge owners")


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
