"""A step of an attempt is one fenced transaction: its hand-off, what it records on the run and
its cancel point commit together or not at all, and a run commits a handful of writes."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from sqlalchemy import event, update

from services.agents.gathering import Gatherer
from services.agents.ports import LeaseLost
from services.agents.runs import NewEvent
from services.bootstrap import Services
from services.core.errors import InvalidInput
from services.db.engine import READ_ONLY
from services.db.models import Run
from services.llm.ports import ModelUsage
from tests.conftest import principal
from tests.support.scenario import SUPPLEMENT, load_scenario, resume_q42

HANDOFF = NewEvent(kind="handoff", payload={"n": 1}, source="analysis", target="review")
CALL = NewEvent(kind="model_call", payload={"status": "ok"})


@pytest.fixture
def store(services: Services, tmp_path) -> Services:
    return load_scenario(services, tmp_path)


def kinds(store: Services, run_id: str) -> list[str]:
    return [e.kind for e in store.runs.system_events(run_id)]


def test_a_step_through_a_lost_lease_writes_none_of_its_parts(store, clock):
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42")
    stale = store.runs.claim("w-stalled")
    clock.advance(seconds=store.settings.run_timeout_seconds + 1)
    live = store.runs.claim("w-live")
    assert live is not None and live.attempts == 2
    before = kinds(store, run.run_id)
    with pytest.raises(LeaseLost):
        store.runs.step(
            run.run_id,
            events=(CALL, HANDOFF),
            usage=ModelUsage(model_calls=1, tokens_in=10, tokens_out=5),
            decision={"status": "ok"},
            lease=stale,
        )
    after = store.runs.system_get(run.run_id)
    assert kinds(store, run.run_id) == before
    assert after.decision is None and after.tokens_in == 0 and after.claimed_by == "w-live"
    # The live attempt's step goes through, whole.
    assert store.runs.step(run.run_id, events=(CALL, HANDOFF), lease=live) is False
    assert kinds(store, run.run_id)[-2:] == ["model_call", "handoff"]


def test_a_step_fences_renews_and_records_in_one_statement_on_the_run(store):
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42")
    claimed = store.runs.claim("w1")
    sent: list[str] = []

    def noted(conn, cursor, statement, parameters, context, executemany):
        sent.append(" ".join(statement.split()))

    event.listen(store.db.engine, "before_cursor_execute", noted)
    try:
        for _ in range(2):
            store.runs.step(
                run.run_id,
                events=(HANDOFF,),
                usage=ModelUsage(model_calls=1, tokens_in=10, tokens_out=5),
                decision={"status": "ok"},
                lease=claimed,
            )
    finally:
        event.remove(store.db.engine, "before_cursor_execute", noted)
    on_the_run = [s for s in sent if s.startswith(("SELECT runs", "UPDATE runs"))]
    assert len(on_the_run) == 2 and all("RETURNING" in s for s in on_the_run)  # one per step
    after = store.runs.system_get(run.run_id)
    assert (after.model_calls, after.tokens_in, after.tokens_out) == (2, 20, 10)  # added up
    assert after.decision == {"status": "ok"} and after.heartbeat_at is not None


def test_a_step_racing_a_reclaim_waits_for_it_and_writes_nothing(store, clock):
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42")
    stale = store.runs.claim("w-stalled")
    assert stale is not None
    clock.advance(seconds=store.settings.run_timeout_seconds + 1)
    outcome: list[str] = []

    def step() -> None:
        try:
            store.runs.step(run.run_id, decision={"status": "ok"}, lease=stale)
            outcome.append("written")
        except LeaseLost:
            outcome.append("lease lost")

    with store.db.write() as session:  # another worker's reclaim, not committed yet
        session.execute(
            update(Run)
            .where(Run.run_id == run.run_id)
            .values(claimed_by="w-live", attempts=Run.attempts + 1)
        )
        racing = threading.Thread(target=step)
        racing.start()
        racing.join(timeout=1.0)
        assert racing.is_alive()  # the step waits for the reclaim's lock
    racing.join(timeout=30)
    assert outcome == ["lease lost"]
    after = store.runs.system_get(run.run_id)
    assert after.decision is None and after.claimed_by == "w-live"


def test_a_step_is_a_cancel_point_that_keeps_what_it_wrote(store):
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42")
    claimed = store.runs.claim("w1")
    store.runs.cancel(sales, run.run_id, reason="stop")
    assert store.runs.step(run.run_id, events=(HANDOFF,), lease=claimed) is True
    assert kinds(store, run.run_id)[-1] == "handoff"


def test_a_cancel_requested_during_gathering_stops_at_the_next_step(store):
    """The events a step carries are written before the cancel stops the attempt."""
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    original = store.retrieval.retrieve

    def cancelling(*args, **kwargs):
        store.runs.cancel(sales, run.run_id, reason="stop now")
        return original(*args, **kwargs)

    store.retrieval.retrieve = cancelling  # type: ignore[method-assign]
    try:
        done = store.worker.drain(run.run_id)
    finally:
        del store.retrieval.retrieve
    seen = kinds(store, run.run_id)
    assert done.status == "cancelled"
    assert seen.count("retrieval") == 1 and "model_call" not in seen


def test_gathering_that_fails_after_its_searches_still_records_every_retrieval(store, monkeypatch):
    """What gathering has left to record is written with its last step, or, if it fails
    before that, on its way out: no retrieval goes unrecorded on the run."""
    tries: list[int] = []
    retrieve = Gatherer._retrieve

    def counted(self, *args, **kwargs):
        found = retrieve(self, *args, **kwargs)
        tries.append(len(found))
        return found

    def failing(self, *args, **kwargs):
        raise InvalidInput("the rules' documents could not be read")

    monkeypatch.setattr(Gatherer, "_retrieve", counted)
    monkeypatch.setattr(Gatherer, "_qualify", failing)
    sales = principal(store, "a.sales")
    run = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    done = store.worker.drain(run.run_id)
    seen = kinds(store, run.run_id)
    assert done.status != "succeeded" and len(tries) > 1
    assert seen.count("retrieval") == sum(tries) and "evidence" not in seen


def test_a_run_commits_a_handful_of_write_transactions(store):
    """Round trips are what scale-out pays for: every hand-off, record and cancel point of one
    step share a transaction (33 write transactions per Q42 run before steps were batched, 24
    before what gathering leaves to record went with its last step)."""
    writes: Counter[str] = Counter()

    def on_begin(connection):
        writes["read" if connection.get_execution_options().get(READ_ONLY) else "write"] += 1

    event.listen(store.db.engine, "begin", on_begin)
    try:
        done = resume_q42(store)
    finally:
        event.remove(store.db.engine, "begin", on_begin)
    assert done.status == "succeeded"
    assert writes["write"] <= 23
    handoffs = [
        (e.source_agent, e.target_agent)
        for e in store.runs.system_events(done.run_id)
        if e.kind == "handoff"
    ]
    assert handoffs == [
        ("supervisor", "analysis"),
        ("analysis", "review"),
        ("review", "supervisor"),
        ("supervisor", "human"),
    ]
