"""The `memdesk worker` loop (Worker.serve) in-process: --max-runs, --once, a stop request, and
a lost database connection while claiming does not end the worker."""

from __future__ import annotations

import signal
import threading

import pytest

from services.agents.worker import stop_on_signals
from services.bootstrap import Services
from services.contracts.task_state import TaskStatus
from services.core.errors import DatabaseUnavailable
from tests.support.retrieval import fake_services, fake_store
from tests.support.scenario import SUPPLEMENT, load_scenario

__all__ = ["fake_services", "fake_store"]


@pytest.fixture
def store(fake_services: Services, tmp_path) -> Services:
    load_scenario(fake_services, tmp_path)
    sales = fake_services.directory.principal("a.sales")
    for task_id in ("T1", "T2"):
        fake_services.tasks.create(
            sales,
            task_id=task_id,
            confirmed={"material": "SUS304"},
            pending=["special_inspection"],
            status=TaskStatus.waiting_input,
        )
    for task_id in ("Q42", "T1", "T2"):
        fake_services.runs.enqueue(sales, task_id, supplement=SUPPLEMENT)
    return fake_services


def statuses(store: Services) -> list[str]:
    sales = store.directory.principal("a.sales")
    return sorted(run.status for run in store.runs.search(sales))


def test_max_runs_stops_after_that_many_attempts(store):
    seen = []
    done = store.worker.serve(stop=threading.Event(), max_runs=2, on_run=seen.append)
    assert done == 2 and len(seen) == 2
    assert statuses(store) == ["queued", "succeeded", "succeeded"]


def test_once_works_until_the_queue_is_empty(store):
    idle = []
    done = store.worker.serve(
        stop=threading.Event(), until_empty=True, on_idle=lambda: idle.append(1)
    )
    assert done == 3 and idle == [1]
    assert statuses(store) == ["succeeded"] * 3


def test_a_stop_request_before_a_claim_claims_nothing(store):
    stop = threading.Event()
    stop.set()
    assert store.worker.serve(stop=stop) == 0
    assert statuses(store) == ["queued"] * 3


def test_a_lost_connection_while_claiming_is_waited_out_not_fatal(store, monkeypatch):
    stop = threading.Event()
    claim = store.runs.claim
    failures = iter([DatabaseUnavailable("the database connection was lost")])

    def flaky_claim(worker_id, **kwargs):
        error = next(failures, None)
        if error is not None:
            raise error
        return claim(worker_id, **kwargs)

    monkeypatch.setattr(store.runs, "claim", flaky_claim)
    done = store.worker.serve(stop=stop, until_empty=True, poll_seconds=0.01)
    assert done == 3
    assert statuses(store) == ["succeeded"] * 3


def test_the_worker_s_signal_handlers_are_undone_when_it_stops():
    before = signal.getsignal(signal.SIGTERM)
    stop = threading.Event()
    with stop_on_signals(stop):
        assert signal.getsignal(signal.SIGTERM) is not before
        signal.raise_signal(signal.SIGTERM)  # delivered to the handler, not the default action
        assert stop.is_set()
    assert signal.getsignal(signal.SIGTERM) is before
