"""Owed generations: conversation events a run offered the bank, kept until they are generated.

A run records its offers first and generates at its end; a generation that fails (a model or
the database did not answer) stays owed, with its error, and the task's next run or an idle
worker tries again. An offer is keyed by (tenant, scope, event), so a retried run never offers
an event twice, and it is marked done in the transaction that writes its memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from services.core.clock import as_utc
from services.db.engine import insert_for
from services.db.models_memory import MemoryOfferRow
from services.memory.types import ConversationEvent, canonical_scope

# After this many failed tries an offer stops being retried by itself: a person looks at it
# (`memdesk memories offers`), so a poisoned event cannot cost every future run a model call.
MAX_OFFER_ATTEMPTS = 5
PENDING, DONE, FAILED = "pending", "done", "failed"


class Offer(BaseModel):
    """Events offered for one scope by a run, read with the rights of `actor`."""

    model_config = ConfigDict(frozen=True)

    scope: dict[str, str]
    events: tuple[ConversationEvent, ...] = Field(min_length=1)
    acl: tuple[str, ...] = ("tenant",)
    task_id: str | None = None

    @property
    def event_id(self) -> str:
        return self.events[0].event_id or ""


class OfferView(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    tenant_id: str
    task_id: str | None
    scope: dict[str, str]
    event_id: str
    events: tuple[ConversationEvent, ...]
    acl: tuple[str, ...]
    run_id: str
    actor: str
    status: str
    attempts: int
    last_error: str | None
    generation_id: str | None
    created_at: datetime


def key_of(offer: Offer) -> tuple[str, str]:
    return canonical_scope(offer.scope), offer.event_id


def existing(session: Session, tenant_id: str, offers: Sequence[Offer]) -> set[tuple[str, str]]:
    """The (scope key, event id) pairs of these offers that were made before."""
    if not offers:
        return set()
    event_ids = sorted({o.event_id for o in offers})
    rows = session.execute(
        select(MemoryOfferRow.scope_key, MemoryOfferRow.event_id).where(
            MemoryOfferRow.tenant_id == tenant_id, MemoryOfferRow.event_id.in_(event_ids)
        )
    ).all()
    return {(scope_key, event_id) for scope_key, event_id in rows}


def record(
    session: Session,
    *,
    tenant_id: str,
    actor: str,
    run_id: str,
    offers: Sequence[Offer],
    now: datetime,
) -> dict[tuple[str, str], int]:
    """Insert the offers not made before, in one statement; returns the ids of those inserted
    now by key (an offer another run made a moment ago is left to that run)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for offer in offers:
        rows.setdefault(
            key_of(offer),
            {
                "tenant_id": tenant_id,
                "task_id": offer.task_id,
                "scope_key": canonical_scope(offer.scope),
                "scope": dict(offer.scope),
                "event_id": offer.event_id,
                "events": [e.model_dump() for e in offer.events],
                "acl": list(offer.acl),
                "run_id": run_id,
                "actor": actor,
                "status": PENDING,
                "attempts": 0,
                "created_at": now,
            },
        )
    if not rows:
        return {}
    made = session.execute(
        insert_for(session, MemoryOfferRow)
        .values(list(rows.values()))
        .on_conflict_do_nothing(index_elements=["tenant_id", "scope_key", "event_id"])
        .returning(MemoryOfferRow.id, MemoryOfferRow.scope_key, MemoryOfferRow.event_id)
    ).all()
    return {(scope_key, event_id): offer_id for offer_id, scope_key, event_id in made}


def still_owed(session: Session, offer_ids: Sequence[int]) -> dict[int, MemoryOfferRow]:
    """The offers, locked in id order in one statement, without those someone generated
    meanwhile (an idle worker's catch-up racing the task's next run): they must not be
    generated twice."""
    if not offer_ids:
        return {}
    rows = session.scalars(
        select(MemoryOfferRow)
        .where(MemoryOfferRow.id.in_(sorted(set(offer_ids))))
        .order_by(MemoryOfferRow.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).all()
    return {row.id: row for row in rows if row.status != DONE}


def done(row: MemoryOfferRow, generation_id: str, *, now: datetime) -> None:
    """Mark an offer still_owed locked as generated (no second round trip to lock it again)."""
    row.status, row.generation_id, row.done_at = DONE, generation_id, now
    row.attempts += 1


def fail(session: Session, offer_id: int, exc: Exception) -> int:
    """Count a failed try; after MAX_OFFER_ATTEMPTS the offer waits for a person."""
    row = session.get(MemoryOfferRow, offer_id, with_for_update=True)
    if row is None:
        return 0
    row.attempts += 1
    row.last_error = f"{type(exc).__name__}: {exc}"[:2000]
    if row.attempts >= MAX_OFFER_ATTEMPTS:
        row.status = FAILED
    return row.attempts


def pending(
    session: Session,
    *,
    tenant_id: str | None = None,
    task_id: str | None = None,
    statuses: tuple[str, ...] = (PENDING,),
    limit: int = 20,
) -> list[OfferView]:
    query = select(MemoryOfferRow).where(MemoryOfferRow.status.in_(statuses))
    if tenant_id is not None:
        query = query.where(MemoryOfferRow.tenant_id == tenant_id)
    if task_id is not None:
        query = query.where(MemoryOfferRow.task_id == task_id)
    rows = session.scalars(query.order_by(MemoryOfferRow.id).limit(limit))
    return [view(row) for row in rows]


def events_of_task(session: Session, *, tenant_id: str, task_id: str) -> frozenset[str]:
    """Every conversation event a run of this task offered the bank, generated or not."""
    query = select(MemoryOfferRow.event_id).where(
        MemoryOfferRow.tenant_id == tenant_id, MemoryOfferRow.task_id == task_id
    )
    return frozenset(session.scalars(query.distinct()))


def view(row: MemoryOfferRow) -> OfferView:
    return OfferView(
        id=row.id,
        tenant_id=row.tenant_id,
        task_id=row.task_id,
        scope=dict(row.scope),
        event_id=row.event_id,
        events=tuple(ConversationEvent.model_validate(e) for e in row.events),
        acl=tuple(row.acl),
        run_id=row.run_id,
        actor=row.actor,
        status=row.status,
        attempts=row.attempts,
        last_error=row.last_error,
        generation_id=row.generation_id,
        created_at=as_utc(row.created_at),
    )
