"""Bounded retries with exponential backoff on an injected clock (the index's outside calls)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from services.clock import Clock
from services.errors import IndexUnavailable

T = TypeVar("T")

ATTEMPTS = 3
BASE_DELAY_S = 0.2


class TransientIndexError(Exception):
    """Raised by a vector store when a call may succeed if tried again."""


def with_retries(
    operation: Callable[[], T],
    *,
    clock: Clock,
    what: str,
    attempts: int = ATTEMPTS,
    base_delay_s: float = BASE_DELAY_S,
) -> T:
    """Run `operation` at most `attempts` times in total, waiting 0.2 s, 0.4 s, ... between tries.

    Only transient failures are retried; anything else is a bug or bad input and propagates at
    once. After the last attempt the caller gets `IndexUnavailable` naming the operation.
    """
    last: Exception | None = None
    for attempt in range(attempts):
        try:
            return operation()
        except TransientIndexError as exc:
            last = exc
            if attempt + 1 < attempts:
                clock.sleep(base_delay_s * (2**attempt))
    raise IndexUnavailable(f"vector index unavailable: {what} failed {attempts} times ({last})")
