"""Who may see which scope, and how rows become DTOs (no ORM object leaves the service)."""

from __future__ import annotations

import numpy as np

from services.core.clock import as_utc
from services.core.policy import Permission, allows, require
from services.core.principals import Principal
from services.db.models_memory import MemoryRevisionRow, MemoryRow
from services.memory.types import Memory, MemoryRevision, SourceRef
from services.retrieval.embedders import Vectors


def can_read_scope(principal: Principal, scope: dict[str, str]) -> bool:
    """Inside the principal's tenant: a customer's memories need that customer's grant, a
    user's memories belong to that user; knowledge owners and admins see every scope."""
    if allows(principal, Permission.SEE_ALL_MEMORY_SCOPES):
        return True
    customer = scope.get("customer_id")
    if customer is not None and f"customer:{customer}" not in principal.grants:
        return False
    user = scope.get("user_id")
    return user is None or user == principal.user_id


def require_writer(principal: Principal) -> None:
    require(principal, Permission.WRITE_MEMORIES, "this role may not change memories")


def to_memory(row: MemoryRow) -> Memory:
    return Memory(
        memory_id=row.memory_id,
        scope=dict(row.scope),
        topic=row.topic,
        kind=row.kind,
        fact=row.fact,
        state=row.state,
        revision=row.revision,
        created_by=row.created_by,
        created_at=as_utc(row.created_at),
        updated_at=as_utc(row.updated_at),
        expire_at=as_utc(row.expire_at) if row.expire_at else None,
        legal_hold=row.legal_hold,
        legal_hold_reason=row.legal_hold_reason,
        source=SourceRef.model_validate(row.source) if row.source else None,
    )


def to_revision(row: MemoryRevisionRow) -> MemoryRevision:
    return MemoryRevision(
        memory_id=row.memory_id,
        revision=row.revision,
        action=row.action,
        operation=row.operation,
        topic=row.topic,
        kind=row.kind,
        fact=row.fact,
        source=SourceRef.model_validate(row.source),
        actor=row.actor,
        at=as_utc(row.at),
        memory_expire_at=as_utc(row.memory_expire_at) if row.memory_expire_at else None,
        expire_at=as_utc(row.expire_at) if row.expire_at else None,
    )


def pack(vector: Vectors) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def unpack(blob: bytes | None, dimension: int) -> Vectors | None:
    if blob is None:
        return None
    vector = np.frombuffer(blob, dtype=np.float32)
    return vector if vector.shape[0] == dimension else None
