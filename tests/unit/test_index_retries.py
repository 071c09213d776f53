"""Outside calls to the index: at most 3 attempts, exponential backoff on the injected clock."""

from __future__ import annotations

import pytest

from services.core.clock import FakeClock
from services.core.errors import IndexUnavailable
from services.retrieval.index_retries import TransientIndexError, with_retries


def test_three_attempts_with_exponential_backoff_then_index_unavailable() -> None:
    clock = FakeClock()
    calls: list[int] = []

    def always_down() -> None:
        calls.append(1)
        raise TransientIndexError("connection refused")

    with pytest.raises(IndexUnavailable, match="query failed 3 times"):
        with_retries(always_down, clock=clock, what="query")
    assert len(calls) == 3
    assert clock.sleeps == [0.2, 0.4]


def test_a_transient_failure_that_clears_is_retried_transparently() -> None:
    clock = FakeClock()
    outcomes = iter([TransientIndexError("timeout"), "ok"])

    def flaky() -> str:
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    assert with_retries(flaky, clock=clock, what="get") == "ok"
    assert clock.sleeps == [0.2]


def test_a_non_transient_error_is_not_retried() -> None:
    clock = FakeClock()
    with pytest.raises(KeyError):
        with_retries(lambda: {}["missing"], clock=clock, what="get")
    assert clock.sleeps == []
