"""Retention and legal hold for tasks, documents and memories, and `purge-expired` over all of them.

Who owns what: tasks keep their expiry on the task row (TaskService), documents are handled
here, and any other store of records (the Memory Bank) joins through `RetentionParticipant`:
it says what has expired and removes what it is told to; holds are decided here, once, for
every record type. Nothing here ever touches the audit log (it is append-only), an incomplete
task, a current approved document, or a held record.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from services.core.clock import Clock, as_utc
from services.core.errors import InvalidInput, NotFound
from services.core.policy import Permission, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import DocumentVersion, Tenant
from services.db.models_knowledge import LegalHoldRow, RetentionPolicyRow
from services.records import audit, holds
from services.records.tasks import TaskService

# Versions that no longer serve and may expire under a tenant's document policy.
FINISHED_DOCUMENTS = ("superseded", "revoked", "rejected")


class ParticipantPurge(Protocol):
    """What a participant's purge reports: `TENANT/ID` keys removed and kept under hold."""

    @property
    def removed(self) -> Sequence[str]: ...

    @property
    def kept_on_hold(self) -> Sequence[str]: ...


class RetentionParticipant(Protocol):
    """A store of records that expire on their own terms (the Memory Bank: TTLs, revisions).

    Holds live in one table (`services.records.holds`); a participant keeps a hold flag on its
    own rows in step with it. `mark_legal_hold` runs inside the retention service's unit of
    work: it locks the record (NotFound for one the admin's tenant does not have) and sets or
    clears its flag. `purge_expired` removes what has expired — never a record with an active
    hold in the hold table or its flag set, never an audit entry — or only reports it on a dry
    run. `services.memory.bank.MemoryBank` satisfies this as it is.
    """

    def mark_legal_hold(
        self,
        session: Session,
        principal: Principal,
        record_id: str,
        *,
        held: bool,
        reason: str | None,
    ) -> None: ...

    def purge_expired(
        self,
        *,
        actor: str,
        now: datetime | None = None,
        dry_run: bool = False,
        tenant_id: str | None = None,
    ) -> ParticipantPurge: ...


class DocumentCopies(Protocol):
    """A store that holds copies of document versions (the search index): told to drop a version
    before its authoritative row goes, so no copy outlives the record it was made from."""

    def purge_document(
        self, *, tenant_id: str, document_id: str, version: int | None, actor: str
    ) -> object: ...


class LegalHold(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    tenant_id: str
    record_type: str
    record_id: str
    reason: str
    set_by: str
    set_at: datetime
    lifted_by: str | None
    lifted_at: datetime | None
    lift_reason: str | None

    @property
    def active(self) -> bool:
        return self.lifted_at is None


class RetentionPolicies(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    task_days: int  # completed tasks (the tenant's period, else the configured default)
    task_days_is_default: bool
    document_days: int | None  # finished document versions; None: kept for good
    participants: list[str]


class RetentionReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    dry_run: bool
    removed: dict[str, list[str]] = Field(default_factory=dict)
    kept_on_hold: dict[str, list[str]] = Field(default_factory=dict)

    def count(self, record_type: str) -> int:
        return len(self.removed.get(record_type, []))


class RetentionService:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        tasks: TaskService,
        default_task_days: int,
    ) -> None:
        self._db = db
        self._clock = clock
        self._tasks = tasks
        self._default_task_days = default_task_days
        self._participants: dict[str, RetentionParticipant] = {}
        self._copies: list[DocumentCopies] = []

    def register(self, record_type: str, participant: RetentionParticipant) -> None:
        if record_type in ("task", "document"):
            raise ValueError(f"record type {record_type!r} is built in")
        self._participants[record_type] = participant

    def register_copies(self, store: DocumentCopies) -> None:
        """A store of document copies to purge first whenever a document version expires."""
        self._copies.append(store)

    @property
    def record_types(self) -> list[str]:
        return ["task", "document", *sorted(self._participants)]

    # ---- policies --------------------------------------------------------------------------
    def policies(self, principal: Principal) -> RetentionPolicies:
        _require_admin(principal)
        with self._db.read() as session:
            tenant = session.get(Tenant, principal.tenant_id)
            if tenant is None:
                raise NotFound("tenant", principal.tenant_id)
            document = session.get(RetentionPolicyRow, (principal.tenant_id, "document"))
            return RetentionPolicies(
                tenant_id=tenant.tenant_id,
                task_days=tenant.completed_task_retention_days or self._default_task_days,
                task_days_is_default=tenant.completed_task_retention_days is None,
                document_days=document.days if document else None,
                participants=sorted(self._participants),
            )

    def set_policy(
        self, principal: Principal, *, record_type: str, days: int | None
    ) -> RetentionPolicies:
        """Days to keep finished records of a type (None: tasks use the default, documents
        are kept for good). Memories keep their TTL in the Memory Bank's own settings."""
        _require_admin(principal)
        if days is not None and days < 1:
            raise InvalidInput("a retention period is at least 1 day")
        with self._db.write() as session:
            if record_type == "task":
                tenant = session.get(Tenant, principal.tenant_id)
                assert tenant is not None
                before = tenant.completed_task_retention_days
                tenant.completed_task_retention_days = days
                self._tasks.reschedule_expiry(session, tenant_id=principal.tenant_id)
            elif record_type == "document":
                row = session.get(RetentionPolicyRow, (principal.tenant_id, "document"))
                before = row.days if row else None
                if days is None:
                    if row is not None:
                        session.delete(row)
                elif row is None:
                    session.add(
                        RetentionPolicyRow(
                            tenant_id=principal.tenant_id,
                            record_type="document",
                            days=days,
                            updated_by=principal.user_id,
                            updated_at=self._clock.now(),
                        )
                    )
                else:
                    row.days, row.updated_by, row.updated_at = (
                        days,
                        principal.user_id,
                        self._clock.now(),
                    )
            else:
                raise InvalidInput(
                    f"retention policies exist for task and document, not {record_type!r} "
                    "(memory TTLs are set in the Memory Bank)"
                )
            audit.record(
                session,
                clock=self._clock,
                tenant_id=principal.tenant_id,
                actor=principal.user_id,
                action="retention.policy_changed",
                subject_type="retention",
                subject_id=record_type,
                before_ref=str(before),
                after_ref=str(days),
            )
        return self.policies(principal)

    # ---- legal holds -----------------------------------------------------------------------
    def set_hold(
        self, principal: Principal, *, record_type: str, record_id: str, reason: str
    ) -> LegalHold:
        """One unit of work: the record is locked (a purge that locked it first has removed it:
        NotFound), the hold row written, the record's flag set and the change audited."""
        _require_admin(principal)
        if not reason.strip():
            raise InvalidInput("a reason is required to set a legal hold")
        reason = reason.strip()
        with self._db.write() as session:
            self._mark(session, principal, record_type, record_id, held=True, reason=reason)
            row = holds.place(
                session,
                self._clock,
                tenant_id=principal.tenant_id,
                record_type=record_type,
                record_id=record_id,
                reason=reason,
                actor=principal.user_id,
            )
            audit.record(
                session,
                clock=self._clock,
                tenant_id=principal.tenant_id,
                actor=principal.user_id,
                action="legal_hold.set",
                subject_type=record_type,
                subject_id=record_id,
                after_ref=f"hold:{row.id}",
                detail={"reason": row.reason},
            )
            return _hold(row)

    def lift_hold(self, principal: Principal, hold_id: int, *, reason: str) -> LegalHold:
        _require_admin(principal)
        if not reason.strip():
            raise InvalidInput("a reason is required to lift a legal hold")
        with self._db.write() as session:
            row = session.get(LegalHoldRow, hold_id, with_for_update=True)
            if row is None or row.tenant_id != principal.tenant_id:
                raise NotFound("legal hold", str(hold_id))
            if row.lifted_at is not None:
                raise InvalidInput(f"legal hold {hold_id} was already lifted")
            holds.lift(session, self._clock, row, actor=principal.user_id, reason=reason.strip())
            still = holds.active(session, row.tenant_id, row.record_type, row.record_id)
            if not still:
                # The record may be gone (a hold on a whole document outlives its versions).
                with contextlib.suppress(NotFound):
                    self._mark(
                        session, principal, row.record_type, row.record_id, held=False, reason=None
                    )
            audit.record(
                session,
                clock=self._clock,
                tenant_id=row.tenant_id,
                actor=principal.user_id,
                action="legal_hold.lifted",
                subject_type=row.record_type,
                subject_id=row.record_id,
                before_ref=f"hold:{row.id}",
                detail={"reason": row.lift_reason, "other_active_holds": len(still)},
            )
            return _hold(row)

    def holds(self, principal: Principal, *, active_only: bool = True) -> list[LegalHold]:
        _require_admin(principal)
        with self._db.read() as session:
            query = select(LegalHoldRow).where(LegalHoldRow.tenant_id == principal.tenant_id)
            if active_only:
                query = query.where(LegalHoldRow.lifted_at.is_(None))
            return [_hold(row) for row in session.scalars(query.order_by(LegalHoldRow.id))]

    # ---- purge -----------------------------------------------------------------------------
    def preview(self, principal: Principal) -> RetentionReport:
        """What `purge-expired` would remove in the admin's tenant now (a dry run)."""
        _require_admin(principal)
        return self.purge_expired(
            actor=principal.user_id, dry_run=True, tenant_id=principal.tenant_id
        )

    def purge_expired(
        self,
        *,
        actor: str,
        now: datetime | None = None,
        dry_run: bool = False,
        tenant_id: str | None = None,
    ) -> RetentionReport:
        now = now or self._clock.now()
        removed: dict[str, list[str]] = {}
        kept: dict[str, list[str]] = {}
        # Tasks: the task row's hold flag is kept in step with the holds here (set_hold).
        tasks = self._tasks.purge_expired(
            actor=actor, now=now, dry_run=dry_run, tenant_id=tenant_id
        )
        removed["task"], kept["task"] = tasks.removed, tasks.kept_on_hold
        removed["document"], kept["document"] = self._purge_documents(
            actor=actor, now=now, dry_run=dry_run, tenant_id=tenant_id
        )
        for record_type, participant in sorted(self._participants.items()):
            outcome = participant.purge_expired(
                actor=actor, now=now, dry_run=dry_run, tenant_id=tenant_id
            )
            removed[record_type] = list(outcome.removed)
            kept[record_type] = list(outcome.kept_on_hold)
        return RetentionReport(dry_run=dry_run, removed=removed, kept_on_hold=kept)

    def _purge_documents(
        self, *, actor: str, now: datetime, dry_run: bool, tenant_id: str | None
    ) -> tuple[list[str], list[str]]:
        """Finished versions past the tenant's document period; never approved or open ones."""
        with self._db.read() as session:
            query = select(RetentionPolicyRow).where(RetentionPolicyRow.record_type == "document")
            if tenant_id:
                query = query.where(RetentionPolicyRow.tenant_id == tenant_id)
            policies = {p.tenant_id: p.days for p in session.scalars(query)}
            held = holds.held_ids(session, "document")
            expired: list[Any] = []
            for tenant, days in sorted(policies.items()):
                expired += session.execute(
                    select(
                        DocumentVersion.tenant_id,
                        DocumentVersion.document_id,
                        DocumentVersion.version,
                        DocumentVersion.legal_hold,
                    ).where(*_expired_version(tenant, now - timedelta(days=days)))
                ).all()
        removed, kept = [], []
        for tenant, document_id, version, flag in sorted(expired):
            key = f"{tenant}/{document_id}@{version}"
            if flag or {(tenant, document_id), (tenant, f"{document_id}@{version}")} & held:
                kept.append(key)
                continue
            if dry_run:
                removed.append(key)
                continue
            # Copies first (a superseded version may still be indexed until the next sync);
            # a hold that arrives meanwhile still keeps the row, which is what a hold protects.
            for store in self._copies:
                store.purge_document(
                    tenant_id=tenant, document_id=document_id, version=version, actor=actor
                )
            if self._delete_version(tenant, document_id, version, actor=actor, days=policies):
                removed.append(key)
            else:
                kept.append(key)
        return removed, kept

    def _delete_version(
        self, tenant: str, document_id: str, version: int, *, actor: str, days: dict[str, int]
    ) -> bool:
        """Delete one version under a row lock, with the hold condition in the statement."""
        now = self._clock.now()
        with self._db.write() as session:
            row = session.get(
                DocumentVersion,
                (tenant, document_id, version),
                populate_existing=True,
                with_for_update=True,
            )
            if row is None:
                return False
            ref = f"{document_id}@{version}"
            gone = session.execute(
                delete(DocumentVersion)
                .where(
                    DocumentVersion.tenant_id == tenant,
                    DocumentVersion.document_id == document_id,
                    DocumentVersion.version == version,
                    DocumentVersion.legal_hold.is_(False),
                    *_expired_version(tenant, now - timedelta(days=days[tenant])),
                    ~holds.active_hold_exists("document", tenant, document_id, ref),
                )
                .execution_options(synchronize_session=False)
            ).rowcount  # type: ignore[attr-defined]
            if gone != 1:
                return False
            audit.record(
                session,
                clock=self._clock,
                tenant_id=tenant,
                actor=actor,
                action="document.purged",
                subject_type="document",
                subject_id=ref,
            )
            return True

    # ---- internals -------------------------------------------------------------------------
    def _mark(
        self,
        session: Session,
        principal: Principal,
        record_type: str,
        record_id: str,
        *,
        held: bool,
        reason: str | None,
    ) -> None:
        """Lock the record and set its own hold flag (NotFound if the tenant has no such record)."""
        tenant_id = principal.tenant_id
        participant = self._participants.get(record_type)
        if participant is not None:
            participant.mark_legal_hold(session, principal, record_id, held=held, reason=reason)
        elif record_type == "task":
            row = self._tasks.lock_for_hold(session, tenant_id, record_id)
            self._tasks.mark_hold(row, held=held, reason=reason)
        elif record_type == "document":
            self._mark_document(session, tenant_id, record_id, held=held)
        else:
            raise InvalidInput(
                f"legal holds apply to {', '.join(self.record_types)}, not {record_type!r}"
            )

    @staticmethod
    def _mark_document(session: Session, tenant_id: str, record_id: str, *, held: bool) -> None:
        document_id, _, version = record_id.partition("@")
        where = [
            DocumentVersion.tenant_id == tenant_id,
            DocumentVersion.document_id == document_id,
        ]
        if version:
            if not version.isdigit() or len(version) > 9:
                raise InvalidInput(f"document hold {record_id!r}: use DOC or DOC@VERSION")
            where.append(DocumentVersion.version == int(version))
        rows = session.scalars(
            select(DocumentVersion)
            .where(*where)
            .with_for_update()
            .execution_options(populate_existing=True)
        ).all()
        if not rows:
            raise NotFound("document", record_id)
        on_hold = {r for t, r in holds.held_ids(session, "document") if t == tenant_id}
        for row in rows:
            # A version stays flagged while any hold (on it, or on the whole document) is active.
            row.legal_hold = held or bool({document_id, f"{document_id}@{row.version}"} & on_hold)


def _expired_version(tenant: str, cutoff: datetime) -> list[Any]:
    return [
        DocumentVersion.tenant_id == tenant,
        DocumentVersion.status.in_(FINISHED_DOCUMENTS),
        DocumentVersion.status_changed_at <= cutoff,
    ]


def _require_admin(principal: Principal) -> None:
    require(principal, Permission.ADMINISTER, "only an admin may manage retention and legal holds")


def _hold(row: LegalHoldRow) -> LegalHold:
    return LegalHold(
        id=row.id,
        tenant_id=row.tenant_id,
        record_type=row.record_type,
        record_id=row.record_id,
        reason=row.reason,
        set_by=row.set_by,
        set_at=as_utc(row.set_at),
        lifted_by=row.lifted_by,
        lifted_at=as_utc(row.lifted_at) if row.lifted_at else None,
        lift_reason=row.lift_reason,
    )
