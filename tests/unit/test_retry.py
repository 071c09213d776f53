"""Bounded retries: at most N attempts, backoff on the injected clock, then a named error."""

import pytest

from services.core.backoff import retry
from services.core.clock import FakeClock
from services.core.errors import RetriesExhausted


class Flaky:
    """Fails with `error` for the first `failures` calls, then returns the call number."""

    def __init__(self, failures: int, error: type[Exception] = TimeoutError) -> None:
        self.failures = failures
        self.error = error
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error(f"call {self.calls} failed")
        return self.calls


def test_success_on_first_attempt_does_not_wait():
    clock = FakeClock()
    assert retry(Flaky(0), clock=clock) == 1
    assert clock.sleeps == []


def test_a_transient_failure_is_retried_after_a_backoff():
    clock = FakeClock()
    assert retry(Flaky(2), clock=clock, base_delay=0.5) == 3
    assert clock.sleeps == [0.5, 1.0]


def test_after_the_last_attempt_a_named_error_carries_the_cause():
    clock = FakeClock()
    flaky = Flaky(10)
    with pytest.raises(RetriesExhausted) as exhausted:
        retry(flaky, clock=clock, attempts=3, base_delay=1.0, what="index query")
    assert flaky.calls == 3
    assert clock.sleeps == [1.0, 2.0]
    assert exhausted.value.attempts == 3
    assert isinstance(exhausted.value.__cause__, TimeoutError)
    assert "index query failed after 3 attempt(s)" in str(exhausted.value)


def test_errors_outside_retry_on_propagate_at_once():
    clock = FakeClock()
    flaky = Flaky(5, error=ValueError)
    with pytest.raises(ValueError):
        retry(flaky, clock=clock, retry_on=(TimeoutError,))
    assert flaky.calls == 1
    assert clock.sleeps == []


def test_backoff_is_capped_and_reported_to_the_hook():
    clock = FakeClock()
    seen: list[tuple[int, float]] = []
    with pytest.raises(RetriesExhausted):
        retry(
            Flaky(10),
            clock=clock,
            attempts=5,
            base_delay=1.0,
            max_delay=3.0,
            on_retry=lambda attempt, _error, delay: seen.append((attempt, delay)),
        )
    assert clock.sleeps == [1.0, 2.0, 3.0, 3.0]
    assert seen == [(1, 1.0), (2, 2.0), (3, 3.0), (4, 3.0)]


def test_zero_attempts_is_refused():
    with pytest.raises(ValueError):
        retry(Flaky(0), clock=FakeClock(), attempts=0)
