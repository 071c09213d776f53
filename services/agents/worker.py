"""The worker: claims runs from the SQL queue and executes them through the supervisor.

The same code serves `memdesk worker` (a loop in its own process) and the embedded default,
where the console and CLI `drain` one run in-process. Transient failures are retried with
exponential backoff on the injected clock, at most `max_attempts` in total; then the run is
dead-lettered and a person takes over.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from services.agents.ports import AnalysisRejected, RunCancelled, TransientFailure
from services.agents.runs import CANCELLED, DEAD_LETTER, FAILED, RunQueue, RunView
from services.agents.supervisor import Supervisor
from services.clock import Clock
from services.errors import MemdeskError

MAX_WAITS = 20


class WorkerReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    executed: list[str]


class Worker:
    def __init__(
        self,
        *,
        queue: RunQueue,
        supervisor: Supervisor,
        clock: Clock,
        worker_id: str,
        poll_seconds: float = 1.0,
    ) -> None:
        self._queue = queue
        self._supervisor = supervisor
        self._clock = clock
        self.worker_id = worker_id
        self._poll = poll_seconds

    def run_once(self) -> RunView | None:
        """Claim the next available run, if any, and execute one attempt of it."""
        run = self._queue.claim(self.worker_id)
        if run is None:
            return None
        return self.execute(run)

    def drain(self, run_id: str) -> RunView:
        """Execute one run to the end in this process, waiting out its backoff on the clock."""
        for _ in range(MAX_WAITS * max(1, self._queue.limits.max_attempts)):
            view = self._queue.system_get(run_id)
            if view.done:
                return view
            claimed = self._queue.claim(self.worker_id, run_id=run_id)
            if claimed is not None:
                self.execute(claimed)
                continue
            wait = (view.available_at - self._clock.now()).total_seconds()
            self._clock.sleep(wait if wait > 0 else self._poll)
        return self._queue.system_get(run_id)

    def execute(self, run: RunView) -> RunView:
        if run.attempts > run.max_attempts:
            # Claimed again after its worker died on the last allowed attempt.
            reason = f"attempt {run.attempts - 1} never finished (worker lost)"
            self._supervisor.on_dead_letter(run, reason)
            return self._queue.finish(run.run_id, DEAD_LETTER, error=reason)
        try:
            outcome = self._supervisor.execute(run)
        except RunCancelled as exc:
            self._supervisor.on_cancelled(run)
            return self._queue.finish(run.run_id, CANCELLED, error=str(exc))
        except TransientFailure as exc:
            self._queue.record(run.run_id, usage=exc.usage)
            reason = f"{exc.reason}: {exc}"
            if run.attempts < run.max_attempts:
                delay = self._queue.limits.backoff_seconds * 2 ** (run.attempts - 1)
                self._supervisor.on_retry(run, reason)
                return self._queue.reschedule(run.run_id, delay=delay, reason=reason)
            self._supervisor.on_dead_letter(run, reason)
            return self._queue.finish(run.run_id, DEAD_LETTER, error=reason)
        except AnalysisRejected as exc:  # the supervisor handles these; kept as a safety net
            self._supervisor.on_failed(run, f"{exc.reason}: {exc}")
            return self._queue.finish(run.run_id, FAILED, error=f"{exc.reason}: {exc}")
        except MemdeskError as exc:
            reason = f"{type(exc).__name__}: {exc}"
            self._supervisor.on_failed(run, reason)
            return self._queue.finish(run.run_id, FAILED, error=reason)
        return self._queue.finish(run.run_id, outcome.status, error=outcome.error)
