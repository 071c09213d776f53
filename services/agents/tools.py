"""Bounded tool calls: every retrieval and model call has a deadline and a named failure."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from services.core.errors import IndexUnavailable, RetriesExhausted
from services.llm.ports import TransientFailure

T = TypeVar("T")


def call_with_timeout(fn: Callable[[], T], *, seconds: float, what: str) -> T:
    """Run `fn` with a deadline. A call that overruns is abandoned (its thread is left to end on
    its own) and reported as a transient failure, so the queue's bounded retries apply."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memdesk-tool")
    future = pool.submit(fn)
    try:
        return future.result(timeout=seconds)
    except FutureTimeout as exc:
        raise TransientFailure(
            "tool_timeout", f"{what} did not finish within {seconds:g} s"
        ) from exc
    except (IndexUnavailable, RetriesExhausted) as exc:
        raise TransientFailure("tool_unavailable", f"{what}: {exc}") from exc
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
