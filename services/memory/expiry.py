"""purge-expired for memories: expired memories and revisions go, legal holds keep them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from services.core.clock import Clock, as_utc
from services.db.engine import Database
from services.db.models_memory import MemoryRevisionRow, MemoryRow
from services.memory.types import MemoryPurgeReport
from services.records import audit, holds


def purge_expired(
    db: Database,
    clock: Clock,
    *,
    actor: str,
    now: datetime | None = None,
    dry_run: bool = False,
    tenant_id: str | None = None,
) -> MemoryPurgeReport:
    """Delete memories past their expire_at (with their revisions), revisions past their own
    TTL, and deleted memories with no revision left. A memory under legal hold keeps itself
    and every revision; the audit log keeps its entries (it is append-only)."""
    now = now or clock.now()
    removed: list[str] = []
    held: list[str] = []
    revisions = 0
    with db.read() if dry_run else db.write() as session:  # a dry run only reads
        expired = select(MemoryRow).where(
            MemoryRow.expire_at.is_not(None), MemoryRow.expire_at <= now
        )
        if tenant_id:
            expired = expired.where(MemoryRow.tenant_id == tenant_id)
        # Locked before the holds are read: a hold that committed first always wins, and one
        # arriving meanwhile waits for the lock and then finds the memory gone (NotFound).
        expired = expired.order_by(MemoryRow.memory_id)
        rows = session.scalars(expired if dry_run else expired.with_for_update()).all()
        on_hold = holds.held_ids(session, "memory")
        for row in rows:
            key = f"{row.tenant_id}/{row.memory_id}"
            if row.legal_hold or (row.tenant_id, row.memory_id) in on_hold:
                held.append(key)
                continue
            removed.append(key)
            revisions += (
                session.scalar(
                    select(func.count()).where(MemoryRevisionRow.memory_id == row.memory_id)
                )
                or 0
            )
            if not dry_run:
                _record(session, clock, row, actor, reason="memory expired")
                session.delete(row)
        stale = (
            select(MemoryRevisionRow.id, MemoryRevisionRow.memory_id)
            .join(MemoryRow, MemoryRow.memory_id == MemoryRevisionRow.memory_id)
            .where(
                MemoryRevisionRow.expire_at.is_not(None),
                MemoryRevisionRow.expire_at <= now,
                MemoryRow.legal_hold.is_(False),
                ~holds.active_hold_exists("memory", MemoryRow.tenant_id, MemoryRow.memory_id),
            )
        )
        if tenant_id:
            stale = stale.where(MemoryRevisionRow.tenant_id == tenant_id)
        gone = {key.split("/", 1)[1] for key in removed}
        stale_ids = [
            rid for rid, memory_id in session.execute(stale).all() if memory_id not in gone
        ]
        revisions += len(stale_ids)
        if stale_ids and not dry_run:
            session.execute(delete(MemoryRevisionRow).where(MemoryRevisionRow.id.in_(stale_ids)))
        if not dry_run:
            session.flush()
            empty = select(MemoryRow).where(
                MemoryRow.state == "deleted",
                MemoryRow.legal_hold.is_(False),
                ~holds.active_hold_exists("memory", MemoryRow.tenant_id, MemoryRow.memory_id),
                ~select(MemoryRevisionRow.id)
                .where(MemoryRevisionRow.memory_id == MemoryRow.memory_id)
                .exists(),
            )
            if tenant_id:
                empty = empty.where(MemoryRow.tenant_id == tenant_id)
            for row in session.scalars(empty):
                removed.append(f"{row.tenant_id}/{row.memory_id}")
                _record(session, clock, row, actor, reason="deleted and no revision left")
                session.delete(row)
    return MemoryPurgeReport(
        dry_run=dry_run,
        removed=tuple(removed),
        revisions_removed=revisions,
        kept_on_hold=tuple(held),
    )


def _record(session: Session, clock: Clock, row: MemoryRow, actor: str, *, reason: str) -> None:
    audit.record(
        session,
        clock=clock,
        tenant_id=row.tenant_id,
        actor=actor,
        action="memory.purged",
        subject_type="memory",
        subject_id=row.memory_id,
        before_ref=f"{row.memory_id}@r{row.revision}",
        detail={
            "reason": reason,
            "scope": row.scope_key,
            "expired_at": as_utc(row.expire_at).isoformat() if row.expire_at else None,
        },
    )
