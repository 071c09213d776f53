"""One user intent, "resume this task": enqueue a run and execute it here through the queue.

The console and `memdesk resume` both call this; a `memdesk worker` elsewhere runs the same
queue code, so the embedded default and scale-out behave alike.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict

from services.agents.runs import RunEventView, RunQueue, RunView
from services.agents.worker import Worker
from services.contracts.task_state import TaskState
from services.core.principals import Principal
from services.records.tasks import TaskService
from services.retrieval.types import Evidence

EVIDENCE_FIELDS = (
    "evidence_id",
    "document_id",
    "version",
    "chunk_id",
    "knowledge_class",
    "title",
    "start",
    "end",
    "quote",
    "content_hash",
)


class ResumeResult(BaseModel):
    """What a resume produced: the decision (memory-decision@1, None if the run produced none),
    the evidence it may cite, the task state after, and the run itself."""

    model_config = ConfigDict(frozen=True)

    decision: dict[str, Any] | None
    evidence: list[Evidence]
    state: TaskState
    run: RunView

    def as_json(self) -> dict[str, Any]:
        """The `memdesk resume --json` object (docs/formats.md)."""
        return {
            "decision": self.decision,
            "evidence": [
                {key: item.model_dump(mode="json")[key] for key in EVIDENCE_FIELDS}
                for item in self.evidence
            ],
            "state": self.state.model_dump(mode="json"),
            "run_id": self.run.run_id,
        }


class Resumer:
    def __init__(self, *, queue: RunQueue, worker: Worker, tasks: TaskService) -> None:
        self._queue = queue
        self._worker = worker
        self._tasks = tasks

    def resume(
        self,
        principal: Principal,
        task_id: str,
        *,
        supplement: str | None = None,
        as_of: date | None = None,
        on_event: Callable[[RunEventView], None] | None = None,
    ) -> ResumeResult:
        """`on_event` sees each event of the run as it is recorded (as the principal may see
        it), in order, on this thread: the console draws the run's progress from it."""
        queued = self._queue.enqueue(principal, task_id, supplement=supplement, as_of=as_of)
        if on_event is None:
            run = self._worker.drain(queued.run_id)
        else:
            run = self._drain_reporting(principal, queued.run_id, on_event)
        return ResumeResult(
            decision=run.decision,
            evidence=self._queue.evidence(principal, run.run_id),
            state=self._tasks.get(principal, task_id).state,
            run=run,
        )

    def _drain_reporting(
        self, principal: Principal, run_id: str, on_event: Callable[[RunEventView], None]
    ) -> RunView:
        shown = 0

        def report() -> None:
            nonlocal shown
            events = self._queue.events(principal, run_id)
            for event in events[shown:]:
                on_event(event)
            shown = len(events)

        report()  # what enqueueing recorded
        with self._queue.watch(run_id, report):
            run = self._worker.drain(run_id)
        report()
        return run
