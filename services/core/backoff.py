"""Bounded retries with exponential backoff on the injected clock (tools, index, model calls)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from services.core.clock import Clock
from services.core.errors import RetriesExhausted

T = TypeVar("T")

# Called before each wait: (attempt that failed, its error, seconds about to wait).
RetryHook = Callable[[int, BaseException, float], None]


def retry(
    fn: Callable[[], T],
    *,
    clock: Clock,
    attempts: int = 3,
    base_delay: float = 0.5,
    max_delay: float = 30.0,
    retry_on: tuple[type[BaseException], ...] = (Exception,),
    on_retry: RetryHook | None = None,
    what: str = "operation",
) -> T:
    """Call `fn` at most `attempts` times in total, waiting base_delay·2^k between attempts.

    Errors outside `retry_on` propagate at once (a bad request does not get better by asking
    again). After the last failed attempt RetriesExhausted is raised, chained to the last error,
    so callers can dead-letter and hand over to a person.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except retry_on as exc:
            if attempt == attempts:
                raise RetriesExhausted(what=what, attempts=attempts, last_error=exc) from exc
            delay = min(base_delay * 2 ** (attempt - 1), max_delay)
            if on_retry is not None:
                on_retry(attempt, exc, delay)
            clock.sleep(delay)
    raise AssertionError("unreachable")  # the loop either returns or raises
