"""The append-only audit log: who did what, when, in which tenant, with before/after refs."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import ColumnElement, Select, event, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from services.core.clock import Clock, as_utc
from services.core.policy import Permission, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import AuditEntry, AuditHead


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


GENESIS = "sha256:" + "0" * 64  # the predecessor of each tenant's first entry


def entry_digest(
    *,
    tenant_id: str,
    seq: int,
    at: datetime,
    actor: str,
    action: str,
    subject_type: str,
    subject_id: str,
    before_ref: str | None,
    after_ref: str | None,
    detail: dict[str, Any],
    prev_hash: str,
) -> str:
    """The hash of one entry's content and its predecessor's hash: change either, and this
    entry and every later one no longer verify."""
    content = [
        tenant_id,
        seq,
        as_utc(at).astimezone(UTC).isoformat(timespec="microseconds"),
        actor,
        action,
        subject_type,
        subject_id,
        before_ref,
        after_ref,
        detail,
        prev_hash,
    ]
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


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
    """Append one entry inside the caller's unit of work (it commits or rolls back with it).

    The entry is chained to its tenant's previous one when the unit of work commits (`_seal`):
    only then is the tenant's head row locked, after every other change is flushed, and the
    heads of several tenants in tenant order. So two writers of one tenant never fork the
    chain, and waiting for a head never holds up anyone else's row locks for long."""
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
    session.info.setdefault(_PENDING, []).append(entry)


_PENDING = "memdesk.audit_pending"


@event.listens_for(Session, "before_commit")
def _seal(session: Session) -> None:
    pending: list[dict[str, Any]] = session.info.pop(_PENDING, [])
    if not pending:
        return
    session.flush()
    for tenant_id in sorted({entry["tenant_id"] for entry in pending}):
        head = _lock_head(session, tenant_id)
        for entry in (e for e in pending if e["tenant_id"] == tenant_id):
            seq = head.seq + 1
            digest = entry_digest(**entry, seq=seq, prev_hash=head.entry_hash)
            session.add(AuditEntry(**entry, seq=seq, prev_hash=head.entry_hash, entry_hash=digest))
            head.seq, head.entry_hash = seq, digest
    session.flush()


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    session.info.pop(_PENDING, None)


def _lock_head(session: Session, tenant_id: str) -> AuditHead:
    head = session.get(AuditHead, tenant_id, with_for_update=True)
    if head is not None:
        return head
    # The tenant's first entry: create its head without racing another first writer.
    values = {"tenant_id": tenant_id, "seq": 0, "entry_hash": GENESIS}
    if session.get_bind().dialect.name == "postgresql":
        session.execute(pg_insert(AuditHead).values(**values).on_conflict_do_nothing())
    else:
        session.execute(sqlite_insert(AuditHead).values(**values).on_conflict_do_nothing())
    head = session.get(AuditHead, tenant_id, with_for_update=True, populate_existing=True)
    assert head is not None
    return head


class ChainBreak(BaseModel):
    """The first link of a tenant's chain that does not verify, and why."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    entry_id: int | None
    seq: int | None
    problem: str


class ChainReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenants: int
    entries: int
    broken: list[ChainBreak]

    @property
    def ok(self) -> bool:
        return not self.broken


def verify_chain(db: Database, *, tenant_id: str | None = None) -> ChainReport:
    """Walk each tenant's chain in order; report the first broken link of each (an entry
    changed, removed, inserted out of order or forged with a wrong hash), and a head that does
    not point at the last entry (entries removed from the end)."""
    with db.read() as session:
        query = select(AuditHead)
        if tenant_id is not None:
            query = query.where(AuditHead.tenant_id == tenant_id)
        heads = {h.tenant_id: (h.seq, h.entry_hash) for h in session.scalars(query)}
        tenants = select(AuditEntry.tenant_id).distinct()
        if tenant_id is not None:
            tenants = tenants.where(AuditEntry.tenant_id == tenant_id)
        names = sorted(set(session.scalars(tenants)) | set(heads))
        broken: list[ChainBreak] = []
        entries = 0
        for name in names:
            checked, problem = _walk(session, name, heads.get(name))
            entries += checked
            if problem is not None:
                broken.append(problem)
    return ChainReport(tenants=len(names), entries=entries, broken=broken)


def _walk(
    session: Session, tenant_id: str, head: tuple[int, str] | None
) -> tuple[int, ChainBreak | None]:
    rows = session.scalars(
        select(AuditEntry)
        .where(AuditEntry.tenant_id == tenant_id)
        .order_by(AuditEntry.seq, AuditEntry.id)
        .execution_options(yield_per=2000)
    )
    previous, expected_seq, checked = GENESIS, 1, 0
    for row in rows:
        checked += 1
        if row.seq is None or row.entry_hash is None or row.prev_hash is None:
            return checked, ChainBreak(
                tenant_id=tenant_id, entry_id=row.id, seq=row.seq, problem="entry is not chained"
            )
        if row.seq != expected_seq:
            problem = (
                f"sequence {row.seq} where {expected_seq} was due (an entry is missing or forged)"
            )
            return checked, ChainBreak(
                tenant_id=tenant_id, entry_id=row.id, seq=row.seq, problem=problem
            )
        if row.prev_hash != previous:
            return checked, ChainBreak(
                tenant_id=tenant_id,
                entry_id=row.id,
                seq=row.seq,
                problem="does not link to the entry before it",
            )
        digest = entry_digest(
            tenant_id=row.tenant_id,
            seq=row.seq,
            at=row.at,
            actor=row.actor,
            action=row.action,
            subject_type=row.subject_type,
            subject_id=row.subject_id,
            before_ref=row.before_ref,
            after_ref=row.after_ref,
            detail=row.detail,
            prev_hash=row.prev_hash,
        )
        if digest != row.entry_hash:
            return checked, ChainBreak(
                tenant_id=tenant_id,
                entry_id=row.id,
                seq=row.seq,
                problem="content does not match its hash (the entry was changed)",
            )
        previous, expected_seq = row.entry_hash, expected_seq + 1
    if head is not None and (head[0] != expected_seq - 1 or head[1] != previous):
        return checked, ChainBreak(
            tenant_id=tenant_id,
            entry_id=None,
            seq=head[0],
            problem=f"the chain ends at {expected_seq - 1} but its head says {head[0]} "
            "(entries were removed)",
        )
    return checked, None


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
