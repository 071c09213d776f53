"""The write side of the Memory Bank: new memories, revisions with TTLs, applying a plan.

Every change bumps the memory's revision and appends one immutable revision row (with its
source event) in the caller's unit of work; `MemoryBank` decides what changes, this writes it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from services.core.clock import Clock, FakeClock, IdGenerator, as_utc
from services.core.principals import Principal
from services.db.models_memory import MemoryRevisionRow, MemoryRow
from services.memory import consolidate
from services.memory.access import pack
from services.memory.ttl import TtlOperation, memory_expiry, revision_expiry
from services.memory.types import (
    ConversationEvent,
    ExtractedFact,
    MemoryChange,
    MemoryPolicy,
    SourceRef,
)
from services.records import audit
from services.retrieval.embedders import Embedder


@dataclass(frozen=True)
class Target:
    """Where a write goes and under which rules: scope, readers, TTLs, whether revisions are
    kept (a config's disable_memory_revisions), and the run that offered the events."""

    scope: dict[str, str]
    scope_key: str
    acl: list[str]
    policy: MemoryPolicy
    keep_revisions: bool = True
    run_id: str | None = None


# session.info key of the HeldAudits a unit of work collects its memory audit entries in.
_HELD = "memory_audits_held"


@dataclass
class HeldAudits:
    """Audit entries of a unit of work that writes several generations, each in a savepoint,
    recorded together when it is done. The audit chain locks the tenant's head when a
    savepoint with entries commits (services/records/audit_chain._seal) and holds it to the end
    of the transaction; writing them last takes that lock once, after every generation, instead
    of keeping every other writer of the tenant waiting while the next ones consolidate."""

    entries: list[dict[str, Any]] = field(default_factory=list)

    @contextmanager
    def part(self) -> Iterator[None]:
        """One savepoint's entries: dropped with it if it fails."""
        mark = len(self.entries)
        try:
            yield
        except BaseException:
            del self.entries[mark:]
            raise


@contextmanager
def audits_held(session: Session) -> Iterator[HeldAudits]:
    """Collect MemoryWriter.audit entries of this unit of work, then record them in order."""
    held = HeldAudits()
    session.info[_HELD] = held
    try:
        yield held
    finally:
        session.info.pop(_HELD, None)
    for entry in held.entries:
        at = entry.pop("at")
        audit.record(session, clock=FakeClock(at), **entry)  # the time of the change


class MemoryWriter:
    def __init__(self, *, clock: Clock, ids: IdGenerator, embedder: Embedder) -> None:
        self._clock = clock
        self._ids = ids
        self._embedder = embedder

    def apply(
        self,
        session: Session,
        principal: Principal,
        plan: consolidate.Plan,
        *,
        rows: dict[str, MemoryRow],
        target: Target,
        events: Sequence[ConversationEvent],
        generation_id: str,
        dry_run: bool,
    ) -> list[MemoryChange]:
        created: dict[int, str] = {}
        changes: list[MemoryChange] = []
        for index, step in enumerate(plan.steps):
            fact = step.fact
            memory_id = step.memory_id or (
                created.get(step.target) if step.target is not None else None
            )
            source = source_of(events, fact, generation_id, run_id=target.run_id)
            change = MemoryChange(
                action="unchanged",
                topic=fact.topic,
                fact=fact.fact,
                memory_id=memory_id,
                previous_fact=step.previous,
                reason=step.reason,
            )
            if step.action == "unchanged":
                changes.append(change)
                continue
            if step.action == "create":
                if dry_run:
                    changes.append(change.model_copy(update={"action": "created"}))
                    continue
                row = self.new_row(
                    session,
                    principal,
                    target=target,
                    fact=fact,
                    operation="generate",
                    source=source,
                )
                rows[row.memory_id] = row
                created[index] = row.memory_id
                changes.append(
                    change.model_copy(update={"action": "created", "memory_id": row.memory_id})
                )
                continue
            existing = rows.get(memory_id or "")
            if step.action == "delete" and existing is not None and existing.legal_hold:
                changes.append(change.model_copy(update={"reason": "under legal hold: kept"}))
                continue
            action = "updated" if step.action == "update" else "deleted"
            if step.action == "delete":  # the change names the memory it deletes
                change = change.model_copy(
                    update={
                        "fact": step.previous or fact.fact,
                        "topic": existing.topic if existing is not None else fact.topic,
                    }
                )
            changes.append(change.model_copy(update={"action": action}))
            if dry_run or existing is None:
                continue
            if step.action == "update":
                existing.fact, existing.kind = fact.fact, fact.kind
                self.embed_row(existing)
            else:
                existing.state = "deleted"
            self.revise(
                session,
                principal,
                existing,
                action=action,
                operation="generate",
                source=source,
                policy=target.policy,
                ttl="generate_updated" if step.action == "update" else None,
                keep_revision=target.keep_revisions,
            )
        return changes

    def new_row(
        self,
        session: Session,
        principal: Principal,
        *,
        target: Target,
        fact: ExtractedFact,
        operation: str,
        source: SourceRef,
        explicit_ttl: int | None = None,
    ) -> MemoryRow:
        now = self._clock.now()
        row = MemoryRow(
            memory_id=self._ids.new("mem"),
            tenant_id=principal.tenant_id,
            scope_key=target.scope_key,
            scope=dict(target.scope),
            acl=list(target.acl),
            topic=fact.topic,
            kind=fact.kind,
            fact=fact.fact,
            state="active",
            revision=0,
            created_by=principal.user_id,
            created_at=now,
            updated_at=now,
            expire_at=None,
            legal_hold=False,
        )
        self.embed_row(row)
        session.add(row)  # inserted with the next flush, at its first revision (no UPDATE)
        self.revise(
            session,
            principal,
            row,
            action="created",
            operation=operation,
            source=source,
            policy=target.policy,
            ttl="create" if operation == "create" else "generate_created",
            explicit_ttl=explicit_ttl,
            keep_revision=target.keep_revisions,
        )
        return row

    def revise(
        self,
        session: Session,
        principal: Principal,
        row: MemoryRow,
        *,
        action: str,
        operation: str,
        source: SourceRef,
        policy: MemoryPolicy,
        ttl: TtlOperation | None,
        explicit_ttl: int | None = None,
        keep_revision: bool = True,
    ) -> None:
        """Bump the memory's revision and append the immutable revision row for it (unless
        the scope's config disables revisions: then the memory keeps only its current source,
        and the audit log still records the change)."""
        now = self._clock.now()
        if ttl is not None:
            row.expire_at = memory_expiry(
                policy, ttl, now=now, current=utc(row.expire_at), explicit_seconds=explicit_ttl
            )
        row.revision += 1
        row.updated_at = now
        row.source = source.model_dump(exclude_none=True)
        if not keep_revision:
            self._audit_change(session, principal, row, action, operation)
            return
        session.add(
            MemoryRevisionRow(
                memory_id=row.memory_id,
                tenant_id=row.tenant_id,
                revision=row.revision,
                action=action,
                topic=row.topic,
                kind=row.kind,
                fact=row.fact,
                operation=operation,
                source=source.model_dump(exclude_none=True),
                actor=principal.user_id,
                at=now,
                memory_expire_at=row.expire_at,
                expire_at=revision_expiry(policy, now=now),
            )
        )
        self._audit_change(session, principal, row, action, operation)

    def _audit_change(
        self, session: Session, principal: Principal, row: MemoryRow, action: str, operation: str
    ) -> None:
        if action in ("created", "updated"):
            self.audit(
                session,
                principal,
                f"memory.{action}",
                row.memory_id,
                after=f"{row.memory_id}@r{row.revision}",
                detail={"scope": row.scope_key, "topic": row.topic, "operation": operation},
            )

    def embed_row(self, row: MemoryRow) -> None:
        row.embedding = pack(self._embedder.embed([row.fact])[0])
        row.embedding_model = self._embedder.name

    def audit(
        self,
        session: Session,
        principal: Principal,
        action: str,
        subject: str,
        *,
        before: str | None = None,
        after: str | None = None,
        detail: dict[str, object] | None = None,
    ) -> None:
        entry: dict[str, Any] = {
            "tenant_id": principal.tenant_id,
            "actor": principal.user_id,
            "action": action,
            "subject_type": "memory",
            "subject_id": subject,
            "before_ref": before,
            "after_ref": after,
            "detail": dict(detail or {}),
        }
        held = session.info.get(_HELD)
        if isinstance(held, HeldAudits):  # recorded by audits_held when the unit is done
            held.entries.append({**entry, "at": self._clock.now()})
            return
        audit.record(session, clock=self._clock, **entry)


def lock_scope(session: Session, tenant_id: str, scope_key: str) -> None:
    """Serialise consolidation per scope: two generations for one scope at once would both see
    "nothing similar yet" and create the same memory twice. SQLite writers already serialise
    (BEGIN IMMEDIATE); PostgreSQL takes a transaction-scoped advisory lock on the scope."""
    if session.get_bind().dialect.name != "postgresql":
        return
    digest = hashlib.sha256(f"memory-scope|{tenant_id}|{scope_key}".encode()).digest()
    key = int.from_bytes(digest[:8], "big", signed=True)
    session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


def source_of(
    events: Sequence[ConversationEvent],
    fact: ExtractedFact,
    generation_id: str,
    *,
    run_id: str | None = None,
) -> SourceRef:
    index = fact.event_index if 0 <= fact.event_index < len(events) else 0
    event = events[index]
    return SourceRef(
        kind=event.kind,
        event_id=event.event_id,
        author=event.author,
        author_id=event.author_id,
        excerpt=event.text[:500],
        generation_id=generation_id,
        run_id=run_id,
    )


def utc(value: datetime | None) -> datetime | None:
    return as_utc(value) if value is not None else None
