"""The index's use of services.retry: transient store errors retried, then IndexUnavailable."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from services.core.backoff import retry
from services.core.clock import Clock
from services.core.errors import IndexUnavailable, RetriesExhausted

T = TypeVar("T")

ATTEMPTS = 3
BASE_DELAY_S = 0.2  # then 0.4: an index call waits at most 0.6 s before giving up


class TransientIndexError(Exception):
    """Raised by a vector store when a call may succeed if tried again."""


def with_retries(operation: Callable[[], T], *, clock: Clock, what: str) -> T:
    """At most 3 attempts in total; only transient failures are retried, anything else is a bug
    or bad input and propagates at once. Exhausted retries become IndexUnavailable."""
    try:
        return retry(
            operation,
            clock=clock,
            attempts=ATTEMPTS,
            base_delay=BASE_DELAY_S,
            retry_on=(TransientIndexError,),
            what=f"vector index {what}",
        )
    except RetriesExhausted as exc:
        raise IndexUnavailable(
            f"vector index unavailable: {what} failed {exc.attempts} times ({exc.last_error})"
        ) from exc
