"""Workers that die, stall or are stopped: PostgreSQL + a Chroma server + real worker processes.

A worker killed with SIGKILL mid-run stops renewing its lease; another worker reclaims the run
after the timeout and resumes it from the task's checkpoint, with no side effect twice. A
stalled attempt whose run was reclaimed is fenced off. SIGTERM drains the attempt in hand.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from services import bootstrap
from services.agents.ports import LeaseLost
from services.bootstrap import Services
from services.contracts.task_state import TaskStatus
from services.core.clock import FakeClock
from services.db.models import Approval, AuditEntry, TaskCheckpoint, TaskEvent
from services.settings import Settings
from tests.support import pg
from tests.support.agents import rebuild_agents
from tests.support.retrieval import chroma_server
from tests.support.scenario import SUPPLEMENT, load_scenario

__all__ = ["chroma_server"]
pytestmark = [pytest.mark.postgres, pytest.mark.chroma_server, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 30.0


@pytest.fixture
def cluster_settings(tmp_path: Path, pg_template: str, chroma_server: str) -> Iterator[Settings]:
    name = pg.create_database(template=pg_template)
    yield Settings(
        home=tmp_path / "home",
        database_url=pg.url_for(name),
        chroma_url=chroma_server,
        embedding_backend="hashing",
        analyzer="offline",
        run_timeout_seconds=TIMEOUT_S,
    )
    pg.drop_database(name)


def build_at(settings: Settings, now: datetime) -> Services:
    return bootstrap.build(settings, clock=FakeClock(now))


@pytest.fixture
def store(cluster_settings: Settings, tmp_path: Path) -> Iterator[Services]:
    built = build_at(cluster_settings, datetime.now(UTC))
    load_scenario(built, tmp_path)
    yield built
    built.close()


def start_worker(settings: Settings, tmp_path: Path, hang_at: str, gate: bool = False):
    marker, gate_file = tmp_path / "stalled", tmp_path / "gate"
    env = {
        **os.environ,
        "MEMDESK_HOME": str(settings.home),
        "MEMDESK_DATABASE_URL": str(settings.database_url),
        "MEMDESK_CHROMA_URL": str(settings.chroma_url),
        "MEMDESK_EMBEDDING_BACKEND": "hashing",
        "MEMDESK_ANALYZER": "offline",
        "MEMDESK_RUN_TIMEOUT_SECONDS": str(TIMEOUT_S),
    }
    args = [sys.executable, "-m", "tests.support.worker_process", "--hang-at", hang_at]
    args += ["--marker", str(marker)] + (["--gate", str(gate_file)] if gate else [])
    process = subprocess.Popen(
        args, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while not marker.exists():  # wait for the attempt to reach the stall point
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"worker never stalled: {process.communicate()}")
        time.sleep(0.05)
    return process, gate_file


def later(store: Services) -> Services:
    """Another worker, once the killed worker's lease has run out."""
    return build_at(store.settings, datetime.now(UTC) + timedelta(seconds=TIMEOUT_S + 1))


def one_of_each(store: Services, task_id: str) -> None:
    """Every revision of the task has exactly one event and one checkpoint (nothing twice)."""
    sales = store.directory.principal("a.sales")
    state = store.tasks.get(sales, task_id).state
    with store.db.read() as session:
        for table in (TaskEvent, TaskCheckpoint):
            revisions = Counter(
                session.scalars(
                    select(table.revision).where(table.tenant_id == "A", table.task_id == task_id)
                )
            )
            assert sorted(revisions) == list(range(1, state.revision + 1)), table.__name__
            assert set(revisions.values()) == {1}, table.__name__


@pytest.mark.parametrize("hang_at", ["analysis", "awaiting_approval"])
def test_a_killed_worker_s_run_is_resumed_by_another_from_the_checkpoint(store, tmp_path, hang_at):
    sales = store.directory.principal("a.sales")
    run = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    process, _ = start_worker(store.settings, tmp_path, hang_at)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    stuck = store.runs.get(sales, run.run_id)
    assert stuck.status == "running" and stuck.attempts == 1
    assert store.runs.claim("too-early") is None  # the lease has not run out yet

    rescuer = later(store)
    try:
        done = rescuer.worker.run_once()
    finally:
        rescuer.close()
    assert done is not None and done.run_id == run.run_id
    assert done.status == "succeeded" and done.attempts == 2
    claims = [e.payload for e in store.runs.events(sales, run.run_id) if e.kind == "claimed"]
    assert [c["reclaimed"] for c in claims] == [False, True]
    kinds = [e.kind for e in store.runs.events(sales, run.run_id)]
    assert kinds.count("supplement_merged") == 1  # merged by the dead worker, not again
    state = store.tasks.get(sales, "Q42").state
    assert state.status == TaskStatus.awaiting_approval
    assert state.confirmed["material"] == "SUS304" and state.confirmed["quantity"] == 1200
    assert state.evidence_ids.count(f"supplement:{run.run_id}") == 1
    one_of_each(store, "Q42")
    with store.db.read() as session:
        keys = Counter(
            session.execute(
                select(Approval.decision_version, Approval.item_key).where(
                    Approval.task_id == "Q42"
                )
            ).all()
        )
        requested = session.scalar(
            select(func.count())
            .select_from(AuditEntry)
            .where(AuditEntry.action == "approval.requested")
        )
    assert keys and set(keys.values()) == {1}
    assert requested == len(keys)  # each approval asked for once, though two attempts got there


def test_a_stalled_attempt_whose_run_was_reclaimed_is_fenced_off(store):
    sales = store.directory.principal("a.sales")
    run = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    stalled = store.runs.claim("w-stalled")
    rescuer = later(store)
    try:
        live = rescuer.runs.claim("w-live")
        assert live is not None and live.attempts == 2
        with pytest.raises(LeaseLost):
            store.runs.finish(run.run_id, "succeeded", lease=stalled)
        revision = store.tasks.get(sales, "Q42").state.revision
        after = store.worker.execute(stalled)  # wakes up late: must write nothing
        assert after.status == "running" and after.claimed_by == "w-live"
        assert store.tasks.get(sales, "Q42").state.revision == revision
        assert rescuer.worker.execute(live).status == "succeeded"
    finally:
        rescuer.close()
    one_of_each(store, "Q42")


def test_a_long_attempt_renews_its_lease_so_nobody_else_claims_it(store):
    clock = store.clock
    assert isinstance(clock, FakeClock)
    sales = store.directory.principal("a.sales")
    run = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    observed: list[object] = []

    class SlowModel:
        """Takes longer than the lease timeout (on the fake clock) and looks around meanwhile."""

        name = "offline"

        def __init__(self, inner):
            self._inner = inner

        def analyze(self, principal, data, *, run_id):
            clock.advance(seconds=TIMEOUT_S + 1)
            deadline = time.monotonic() + 10
            while store.runs.get(sales, run_id).heartbeat_at != clock.now():
                assert time.monotonic() < deadline, "the lease was never renewed"
                time.sleep(0.01)  # waiting for the renewal thread's write
            observed.append(store.runs.claim("w-other"))
            return self._inner.analyze(principal, data, run_id=run_id)

    agents = rebuild_agents(
        store,
        settings=store.settings.model_copy(update={"run_timeout_seconds": 0.15}),
        analyzer=SlowModel(store.supervisor.analyzer),
    )
    assert agents.worker.run_once().status == "succeeded"
    assert observed == [None]
    assert store.runs.get(sales, run.run_id).attempts == 1


def test_sigterm_finishes_the_run_in_hand_and_claims_no_more(store, tmp_path):
    sales = store.directory.principal("a.sales")
    store.tasks.create(
        sales,
        task_id="Q43",
        confirmed={"material": "SUS304"},
        pending=["special_inspection"],
        status=TaskStatus.waiting_input,
    )
    first = store.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    process, gate = start_worker(store.settings, tmp_path, "analysis", gate=True)
    second = store.runs.enqueue(sales, "Q43")
    process.send_signal(signal.SIGTERM)
    gate.touch()
    out, err = process.communicate(timeout=120)
    assert first.run_id in out
    assert process.returncode == 0, err
    assert "SIGTERM received" in err and "stopped after 1 run(s)" in err
    assert store.runs.get(sales, first.run_id).status == "succeeded"
    assert store.runs.get(sales, second.run_id).status == "queued"
