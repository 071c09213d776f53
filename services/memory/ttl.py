"""Expiry arithmetic for memories and revisions (Memory Bank's ttl_config), on the given clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from services.memory.types import MemoryPolicy

TtlOperation = Literal["create", "generate_created", "generate_updated", "update"]


def memory_expiry(
    policy: MemoryPolicy,
    operation: TtlOperation,
    *,
    now: datetime,
    current: datetime | None = None,
    explicit_seconds: int | None = None,
) -> datetime | None:
    """The expire_at a memory gets from this operation.

    An explicit TTL wins. With granular TTLs each operation has its own (an operation without
    one leaves the expiry unchanged); otherwise the default TTL applies to every create and
    update, and without any TTL a memory does not expire unless someone sets it.
    """
    if explicit_seconds is not None:
        return now + timedelta(seconds=explicit_seconds)
    if policy.granular:
        seconds = {
            "create": policy.create_ttl_seconds,
            "generate_created": policy.generate_created_ttl_seconds,
            "generate_updated": policy.generate_updated_ttl_seconds,
            "update": None,
        }[operation]
    else:
        seconds = policy.default_ttl_seconds
    if seconds is None:
        return current
    return now + timedelta(seconds=seconds)


def revision_expiry(policy: MemoryPolicy, *, now: datetime) -> datetime | None:
    if policy.revision_ttl_seconds is None:
        return None
    return now + timedelta(seconds=policy.revision_ttl_seconds)


def is_expired(expire_at: datetime | None, now: datetime) -> bool:
    return expire_at is not None and expire_at <= now
