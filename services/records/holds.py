"""Legal holds: the `legal_holds` table is the one truth, whichever command sets or lifts a hold.

Each record type also keeps a `legal_hold` flag on its own rows; every change here happens in the
caller's unit of work, together with that flag, so the two never disagree after a commit. Purges
ask both: the row's flag (re-read under a row lock, so a hold committed first always wins) and
`active_hold_exists`, a clause for the same statement that deletes.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, and_, exists, select
from sqlalchemy.orm import Session

from services.core.clock import Clock, random_public_id
from services.db.models_knowledge import LegalHoldRow


def place(
    session: Session,
    clock: Clock,
    *,
    tenant_id: str,
    record_type: str,
    record_id: str,
    reason: str,
    actor: str,
) -> LegalHoldRow:
    """Record an active hold (the caller has locked the record and sets its flag)."""
    row = LegalHoldRow(
        id=random_public_id(lambda n: session.get(LegalHoldRow, n) is not None),
        tenant_id=tenant_id,
        record_type=record_type,
        record_id=record_id,
        reason=reason,
        set_by=actor,
        set_at=clock.now(),
    )
    session.add(row)
    session.flush()
    return row


def lift(session: Session, clock: Clock, row: LegalHoldRow, *, actor: str, reason: str) -> None:
    row.lifted_by, row.lifted_at, row.lift_reason = actor, clock.now(), reason
    session.flush()


def active(
    session: Session, tenant_id: str, record_type: str, record_id: str, *, lock: bool = False
) -> list[LegalHoldRow]:
    query = select(LegalHoldRow).where(
        LegalHoldRow.tenant_id == tenant_id,
        LegalHoldRow.record_type == record_type,
        LegalHoldRow.record_id == record_id,
        LegalHoldRow.lifted_at.is_(None),
    )
    if lock:
        query = query.with_for_update()
    return list(session.scalars(query.order_by(LegalHoldRow.set_at, LegalHoldRow.id)))


def lift_all(
    session: Session,
    clock: Clock,
    *,
    tenant_id: str,
    record_type: str,
    record_id: str,
    actor: str,
    reason: str,
) -> list[LegalHoldRow]:
    """Lift every active hold on one record (a command that lifts "the" hold of a record)."""
    rows = active(session, tenant_id, record_type, record_id, lock=True)
    for row in rows:
        lift(session, clock, row, actor=actor, reason=reason)
    return rows


def is_held(session: Session, tenant_id: str, record_type: str, record_id: str) -> bool:
    return bool(active(session, tenant_id, record_type, record_id))


def held_ids(session: Session, record_type: str) -> set[tuple[str, str]]:
    """(tenant, record id) of every active hold of one record type."""
    return {
        (tenant, record)
        for tenant, record in session.execute(
            select(LegalHoldRow.tenant_id, LegalHoldRow.record_id).where(
                LegalHoldRow.record_type == record_type, LegalHoldRow.lifted_at.is_(None)
            )
        )
    }


def active_hold_exists(record_type: str, tenant_id: Any, *record_ids: Any) -> ColumnElement[bool]:
    """`EXISTS` an active hold of this type on any of `record_ids` (SQL expressions or values),
    for a purge's DELETE to carry the hold condition in the same statement."""
    return exists().where(
        and_(
            LegalHoldRow.tenant_id == tenant_id,
            LegalHoldRow.record_type == record_type,
            LegalHoldRow.record_id.in_(record_ids),
            LegalHoldRow.lifted_at.is_(None),
        )
    )
