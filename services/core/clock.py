"""Clock and id generator behind small protocols, so tests control time and identity."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float) -> None:
        import time

        time.sleep(seconds)


class FakeClock:
    """A clock that only moves when told to; `sleep` advances it and records the wait."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
        self.sleeps: list[float] = []

    def now(self) -> datetime:
        return self._now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self._now += timedelta(seconds=seconds)

    def advance(self, **delta: float) -> None:
        self._now += timedelta(**delta)


class IdGenerator(Protocol):
    def new(self, prefix: str) -> str: ...


class UuidIds:
    def new(self, prefix: str) -> str:
        return f"{prefix}-{uuid.uuid4().hex[:12]}"


# Public ids of records that people type (approvals, legal holds) are random, not a sequence, so
# an id says nothing about how many records any tenant has; 53 bits stay exact in JSON and
# JavaScript (the console's tables) and keep the CLI's integer arguments.
PUBLIC_ID_BITS = 53


def random_public_id(taken: Callable[[int], bool]) -> int:
    """A random positive integer for which `taken` says no (the caller checks its table)."""
    while True:
        candidate = secrets.randbits(PUBLIC_ID_BITS) or 1
        if not taken(candidate):
            return candidate


def as_utc(value: datetime) -> datetime:
    """SQLite returns naive datetimes; everything in memdesk is UTC."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def today(clock: Clock) -> date:
    return clock.now().date()
