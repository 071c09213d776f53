"""A hypothesis state machine drives TaskService and checks it against a plain model every step."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from services.bootstrap import Services
from services.contracts.task_state import TaskStatus, can_transition
from services.core.clock import FakeClock
from services.core.errors import (
    ConfirmedFieldConflict,
    IllegalTransition,
    InvalidInput,
    NotFound,
    StaleRevision,
)
from tests.support.corpus import corpus_dict, import_bytes
from tests.support.retention import set_task_retention

TASK_IDS = ["T1", "T2"]
FIELDS = ["material", "quantity", "inspection"]
VALUES = ["SUS304", 1200, 1500, True]
MAIN_PATH = [
    TaskStatus.created,
    TaskStatus.restoring,
    TaskStatus.retrieving,
    TaskStatus.analyzing,
    TaskStatus.reviewing,
    TaskStatus.awaiting_approval,
    TaskStatus.completed,
]
NEXT_ON_MAIN_PATH = dict(itertools.pairwise(MAIN_PATH)) | {
    TaskStatus.waiting_input: TaskStatus.restoring,
    TaskStatus.retrying: TaskStatus.restoring,
    TaskStatus.blocked: TaskStatus.restoring,
    TaskStatus.failed: TaskStatus.restoring,
}


@dataclass
class ModelTask:
    revision: int = 1
    status: TaskStatus = TaskStatus.created
    confirmed: dict[str, Any] = field(default_factory=dict)
    next_step: str | None = None
    conflicts: int = 0
    legal_hold: bool = False
    expires_at: datetime | None = None


class TaskMachine(RuleBasedStateMachine):
    """Each run gets its own tenant, so runs sharing one database never see each other."""

    def __init__(self, services: Services, clock: FakeClock) -> None:
        super().__init__()
        self.services = services
        self.clock = clock
        self.tenant = services.ids.new("HT")
        self.model: dict[str, ModelTask] = {}
        self.audit_seen = 0
        corpus = corpus_dict(
            tenants=[{"tenant_id": self.tenant, "name": "hypothesis"}],
            users=[
                {"user_id": f"{self.tenant}.sales", "tenant_id": self.tenant, "roles": ["sales"]},
                {"user_id": f"{self.tenant}.admin", "tenant_id": self.tenant, "roles": ["admin"]},
            ],
            documents=[],
            tasks=[],
        )
        import_bytes(
            services.importer,
            json.dumps(corpus).encode(),
            source="machine.json",
            actor="system:test",
        )
        self.sales = services.directory.principal(f"{self.tenant}.sales")
        self.admin = services.directory.principal(f"{self.tenant}.admin")

    @initialize(days=st.integers(min_value=0, max_value=30))
    def start(self, days: int) -> None:
        """A tenant retention policy and the tasks exist up front, so most steps act on them."""
        self.retention_days = days
        set_task_retention(self.services, self.tenant, days)
        for task_id in TASK_IDS:
            self.create(task_id)

    # ---- rules ---------------------------------------------------------------------------
    @rule(task_id=st.sampled_from(TASK_IDS))
    def create(self, task_id: str) -> None:
        if task_id in self.model:
            with pytest.raises(InvalidInput):
                self.services.tasks.create(self.sales, task_id=task_id)
            return
        self.services.tasks.create(self.sales, task_id=task_id)
        self.model[task_id] = ModelTask()

    @rule(
        task_id=st.sampled_from(TASK_IDS),
        value=st.text(alphabet="abc", min_size=1, max_size=3),
        skew=st.sampled_from([0, 0, 0, -1, -2, 1]),
    )
    def write_next_step(self, task_id: str, value: str, skew: int) -> None:
        task = self.model.get(task_id)
        expected = (task.revision if task else 1) + skew
        if task is None:
            with pytest.raises(NotFound):
                self._update(task_id, expected, next_step=value)
        elif skew != 0:
            with pytest.raises(StaleRevision) as stale:
                self._update(task_id, expected, next_step=value)
            assert stale.value.current == task.revision
        else:
            self._update(task_id, expected, next_step=value)
            task.revision += 1
            task.next_step = value

    @rule(task_id=st.sampled_from(TASK_IDS), status=st.sampled_from(list(TaskStatus)))
    def transition(self, task_id: str, status: TaskStatus) -> None:
        self._transition(task_id, status)

    @rule(task_id=st.sampled_from(TASK_IDS), steps=st.integers(min_value=1, max_value=7))
    def advance(self, task_id: str, steps: int) -> None:
        """Walk the main lifecycle (random statuses alone would almost never complete a task)."""
        for _ in range(steps):
            task = self.model.get(task_id)
            if task is None or task.status not in NEXT_ON_MAIN_PATH:
                return
            following = NEXT_ON_MAIN_PATH[task.status]
            assert can_transition(task.status, following)
            self._transition(task_id, following)

    def _transition(self, task_id: str, target: TaskStatus) -> None:
        task = self.model.get(task_id)
        if task is None:
            with pytest.raises(NotFound):
                self._update(task_id, 1, status=target)
        elif not can_transition(task.status, target):
            event("illegal transition")
            with pytest.raises(IllegalTransition):
                self._update(task_id, task.revision, status=target)
        else:
            self._update(task_id, task.revision, status=target)
            if target == TaskStatus.completed and task.status != TaskStatus.completed:
                task.expires_at = self.clock.now() + timedelta(days=self.retention_days)
            task.revision += 1
            task.status = target

    @rule(
        task_id=st.sampled_from(TASK_IDS),
        name=st.sampled_from(FIELDS),
        value=st.sampled_from(VALUES),
    )
    def confirm(self, task_id: str, name: str, value: Any) -> None:
        task = self.model.get(task_id)
        if task is None:
            with pytest.raises(NotFound):
                self._update(task_id, 1, confirm={name: value})
        elif name in task.confirmed and task.confirmed[name] != value:
            event("confirmed-field conflict")
            with pytest.raises(ConfirmedFieldConflict):
                self._update(task_id, task.revision, confirm={name: value})
            task.revision += 1  # the conflict itself is recorded on the task for a person
            task.conflicts += 1
        else:
            self._update(task_id, task.revision, confirm={name: value})
            task.revision += 1
            task.confirmed[name] = value

    @rule(task_id=st.sampled_from(TASK_IDS), hold=st.booleans())
    def legal_hold(self, task_id: str, hold: bool) -> None:
        task = self.model.get(task_id)
        if task is None:
            with pytest.raises(NotFound):
                self.services.tasks.set_legal_hold(self.admin, task_id, hold=hold, reason="case")
            return
        self.services.tasks.set_legal_hold(self.admin, task_id, hold=hold, reason="case")
        task.legal_hold = hold

    @rule(days=st.integers(min_value=0, max_value=40))
    def expire(self, days: int) -> None:
        self.clock.advance(days=days)
        now = self.clock.now()
        due = {
            task_id
            for task_id, task in self.model.items()
            if task.status == TaskStatus.completed and task.expires_at and task.expires_at <= now
        }
        held = {task_id for task_id in due if self.model[task_id].legal_hold}
        report = self.services.tasks.purge_expired(actor="system:test", tenant_id=self.tenant)
        assert set(report.removed) == {f"{self.tenant}/{t}" for t in due - held}
        assert set(report.kept_on_hold) == {f"{self.tenant}/{t}" for t in held}
        event(f"expire: {len(due - held)} purged, {len(held)} held")
        for task_id in due - held:
            del self.model[task_id]

    # ---- the model and the service agree after every step ---------------------------------
    @invariant()
    def service_matches_model(self) -> None:
        for task_id in TASK_IDS:
            task = self.model.get(task_id)
            if task is None:
                with pytest.raises(NotFound):
                    self.services.tasks.get(self.sales, task_id)
                continue
            record = self.services.tasks.get(self.sales, task_id)
            state = record.state
            assert (state.revision, state.status, state.confirmed, state.next_step) == (
                task.revision,
                task.status,
                task.confirmed,
                task.next_step,
            )
            assert len(record.conflicts) == task.conflicts
            assert record.legal_hold == task.legal_hold
            assert record.expires_at == task.expires_at
            # An event for every revision: nothing changed without leaving a trace.
            events = self.services.tasks.events(self.sales, task_id)
            assert [e.revision for e in events] == list(range(1, task.revision + 1))

    @invariant()
    def audit_only_grows(self) -> None:
        count = self.services.audit.count(self.admin)
        assert count >= self.audit_seen
        self.audit_seen = count

    def _update(self, task_id: str, expected: int, **changes: Any) -> None:
        self.services.tasks.update(self.sales, task_id, expected_revision=expected, **changes)


@pytest.mark.slow
def test_task_service_behaves_like_the_model(services, clock):
    run_state_machine_as_test(
        lambda: TaskMachine(services, clock),
        settings=settings(
            # Runs once per backend (SQLite, PostgreSQL): 2 x 20 runs of up to 20 steps, each
            # step checked against the model; more runs mostly repeat shapes already seen.
            max_examples=20,
            stateful_step_count=20,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
