"""The runs queue in SQL on SQLite and PostgreSQL: claims, bounded retries with backoff, dead
letters, timeouts, cancellation, and the per-tenant rate limit and token budget."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.bootstrap import Services
from services.contracts.task_state import TaskStatus
from services.core.errors import BudgetExceeded, IllegalTransition, InvalidInput, NotFound
from services.llm.ports import ModelUsage
from tests.conftest import principal
from tests.support.agents import FlakyRetriever, rebuild_agents
from tests.support.scenario import SUPPLEMENT, load_scenario


@pytest.fixture
def store(services: Services, tmp_path) -> Services:
    return load_scenario(services, tmp_path)


def more_tasks(services: Services, count: int) -> list[str]:
    sales = principal(services, "a.sales")
    ids = [f"T{i}" for i in range(count)]
    for task_id in ids:
        services.tasks.create(
            sales,
            task_id=task_id,
            confirmed={"material": "SUS304"},
            pending=["special_inspection"],
            status=TaskStatus.waiting_input,
        )
    return ids


def test_transient_retrieval_failures_are_retried_with_exponential_backoff(store, clock):
    flaky = FlakyRetriever(store.retrieval, failures=2)
    agents = rebuild_agents(store, retriever=flaky)
    sales = principal(store, "a.sales")
    run = agents.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    done = agents.worker.drain(run.run_id)
    assert done.status == "succeeded"
    assert done.attempts == 3
    assert clock.sleeps == [2.0, 4.0]
    statuses = [c.state.status for c in store.tasks.checkpoints(sales, "Q42")]
    assert statuses.count("retrying") == 2
    assert store.tasks.get(sales, "Q42").state.status == TaskStatus.awaiting_approval


def test_after_three_failed_attempts_the_run_is_dead_lettered_for_a_person(store, clock):
    agents = rebuild_agents(store, retriever=FlakyRetriever(store.retrieval, failures=99))
    sales = principal(store, "a.sales")
    done = agents.worker.drain(agents.runs.enqueue(sales, "Q42").run_id)
    assert done.status == "dead_letter"
    assert done.attempts == 3
    assert "tool_unavailable" in done.error
    state = store.tasks.get(sales, "Q42").state
    assert state.status == TaskStatus.failed
    assert state.next_step.startswith("human takeover")
    assert agents.worker.run_once() is None  # nothing left to schedule
    # A person can take it over and resume again later.
    assert agents.runs.enqueue(sales, "Q42").status == "queued"


def test_a_tool_call_that_overruns_its_deadline_times_out(store):
    gate = threading.Event()  # never set while the run waits: every search overruns
    agents = rebuild_agents(
        store,
        settings=tighter(store, tool_timeout_seconds=0.2, run_max_attempts=1),
        retriever=FlakyRetriever(store.retrieval, gate=gate),
    )
    sales = principal(store, "a.sales")
    done = agents.worker.drain(agents.runs.enqueue(sales, "Q42").run_id)
    gate.set()
    assert done.status == "dead_letter"
    assert "tool_timeout" in done.error and "did not finish within 0.2 s" in done.error


def tighter(store: Services, **limits: object):
    return store.settings.model_copy(update=limits)


def test_cancelling_a_queued_run_stops_it_before_any_work(store):
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    cancelled = store.runs.cancel(sales, run.run_id, reason="customer withdrew")
    assert cancelled.status == "cancelled"
    assert store.worker.run_once() is None
    kinds = [e.kind for e in store.runs.events(sales, run.run_id)]
    assert kinds == ["queued", "cancel_requested", "finished"]
    assert store.tasks.get(sales, "Q42").state.revision == 1


def test_cancelling_a_running_run_stops_further_scheduling_and_leaves_an_event(store):
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)

    class CancelOnFirstSearch(FlakyRetriever):
        def retrieve(self, *args, **kwargs):
            store.runs.cancel(sales, run.run_id, reason="stop now")
            return super().retrieve(*args, **kwargs)

    agents = rebuild_agents(store, retriever=CancelOnFirstSearch(store.retrieval))
    done = agents.worker.drain(run.run_id)
    assert done.status == "cancelled"
    events = store.runs.events(sales, run.run_id)
    kinds = [e.kind for e in events]
    assert "cancel_requested" in kinds and "cancelled" in kinds
    assert kinds.count("retrieval") == 1  # the second search was never scheduled
    assert "model_call" not in kinds
    state = store.tasks.get(sales, "Q42").state
    assert state.status == TaskStatus.waiting_input
    assert "cancelled" in state.next_step


def test_finished_runs_cannot_be_cancelled(store):
    sales = principal(store, "a.sales")
    done = store.worker.drain(store.runs.enqueue(sales, "Q42").run_id)
    with pytest.raises(IllegalTransition):
        store.runs.cancel(sales, done.run_id, reason="too late")


def test_one_active_run_per_task_and_none_for_other_tenants(store):
    sales = principal(store, "a.sales")
    store.runs.enqueue(sales, "Q42")
    with pytest.raises(InvalidInput, match="already has an active run"):
        store.runs.enqueue(sales, "Q42")
    with pytest.raises(NotFound):
        store.runs.enqueue(principal(store, "b.sales"), "Q42")


def test_the_tenant_rate_limit_refuses_with_a_clear_error(store, clock):
    limited = rebuild_agents(store, settings=tighter(store, tenant_runs_per_minute=2))
    sales = principal(store, "a.sales")
    tasks = more_tasks(store, 3)
    limited.runs.enqueue(sales, tasks[0])
    limited.runs.enqueue(sales, tasks[1])
    with pytest.raises(BudgetExceeded, match="rate limit of 2 runs per minute"):
        limited.runs.enqueue(sales, tasks[2])
    # The window moves on.
    clock.advance(seconds=61)
    assert limited.runs.enqueue(sales, tasks[2]).status == "queued"


def test_the_tenant_token_budget_refuses_with_a_clear_error(store):
    budget = rebuild_agents(store, settings=tighter(store, tenant_daily_token_budget=1000))
    sales = principal(store, "a.sales")
    first = budget.runs.enqueue(sales, "Q42")
    budget.runs.record(first.run_id, usage=_usage(900, 200))
    budget.runs.finish(first.run_id, "succeeded")
    [task] = more_tasks(store, 1)
    with pytest.raises(BudgetExceeded, match="token budget of 1,000 is used up"):
        budget.runs.enqueue(sales, task)


def test_workers_in_parallel_claim_each_run_exactly_once(store):
    sales = principal(store, "a.sales")
    runs = {store.runs.enqueue(sales, task_id).run_id for task_id in more_tasks(store, 12)}
    start = threading.Barrier(4)

    def claim_all(worker: int) -> list[str]:
        start.wait()
        claimed = []
        while (run := store.runs.claim(f"w{worker}")) is not None:
            claimed.append(run.run_id)
        return claimed

    with ThreadPoolExecutor(max_workers=4) as pool:
        claimed = [run_id for batch in pool.map(claim_all, range(4)) for run_id in batch]
    assert sorted(claimed) == sorted(runs)


def test_a_run_whose_worker_died_is_claimed_again_after_the_timeout(store, clock):
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42")
    assert store.runs.claim("w-dead").run_id == run.run_id
    assert store.runs.claim("w-live") is None
    clock.advance(seconds=store.settings.run_timeout_seconds + 1)
    again = store.runs.claim("w-live")
    assert again.run_id == run.run_id and again.attempts == 2
    events = store.runs.events(sales, run.run_id)
    assert events[-1].payload == {"worker": "w-live", "attempt": 2, "reclaimed": True}


def _usage(tokens_in: int, tokens_out: int) -> ModelUsage:
    return ModelUsage(model_calls=1, tokens_in=tokens_in, tokens_out=tokens_out)


def test_resume_reports_each_event_of_its_run_in_order_as_it_is_recorded(store):
    sales = principal(store, "a.sales")
    seen = []
    result = store.resumer.resume(sales, "Q42", supplement=SUPPLEMENT, on_event=seen.append)
    recorded = store.runs.events(sales, result.run.run_id)
    assert [e.id for e in seen] == [e.id for e in recorded]
    assert seen[0].kind == "queued" and seen[-1].kind == "finished"


def test_a_watcher_hears_only_committed_events_of_its_own_run(store):
    sales = principal(store, "a.sales")
    first = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    heard: list[str] = []
    with store.runs.watch(first.run_id, lambda: heard.append("Q42")):
        store.runs.add_event(first.run_id, "note", {"n": 1})
        with pytest.raises(RuntimeError), store.db.write() as session:
            store.runs._event(session, store.runs._system_row(session, first.run_id), "x", {})
            raise RuntimeError("rolled back")
    store.runs.add_event(first.run_id, "note", {"n": 2})  # after the watch ended
    assert heard == ["Q42"]
