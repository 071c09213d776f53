"""Concurrent read-modify-CAS writers on one task: every successful write counts, none is lost."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import principal
from tests.support.counter import increment, increment_in_process

WRITES_EACH = 50


@pytest.fixture
def counter_task(loaded) -> str:
    loaded.tasks.create(principal(loaded, "a.sales"), task_id="COUNTER", next_step="0")
    return "COUNTER"


def assert_no_lost_update(services, task_id: str, successful: int) -> None:
    sales = principal(services, "a.sales")
    state = services.tasks.get(sales, task_id).state
    assert int(state.next_step) == successful
    assert state.revision == 1 + successful
    # One event per revision, each revision exactly once: no two writers shared a revision.
    assert [e.revision for e in services.tasks.events(sales, task_id)] == list(
        range(1, successful + 2)
    )


def test_eight_threads_lose_no_update(loaded, counter_task):
    users = ["a.sales", "a.sales2"] * 4
    with ThreadPoolExecutor(max_workers=len(users)) as pool:
        results = list(
            pool.map(
                lambda user: increment(
                    loaded, user_id=user, task_id=counter_task, times=WRITES_EACH
                ),
                users,
            )
        )
    successful = sum(written for written, _stale in results)
    assert successful == len(users) * WRITES_EACH
    assert_no_lost_update(loaded, counter_task, successful)


@pytest.mark.slow
def test_four_processes_lose_no_update(loaded, counter_task, database_url, tmp_path):
    context = multiprocessing.get_context("spawn")
    jobs = [
        (database_url, str(tmp_path / "home"), user, counter_task, WRITES_EACH)
        for user in ["a.sales", "a.sales2", "a.sales", "a.admin"]
    ]
    with context.Pool(processes=len(jobs)) as pool:
        results = pool.starmap(increment_in_process, jobs)
    successful = sum(written for written, _stale in results)
    assert successful == len(jobs) * WRITES_EACH
    assert_no_lost_update(loaded, counter_task, successful)
