"""The worker: claims runs from the SQL queue and executes them through the supervisor.

The same code serves `memdesk worker` (`serve`, a loop in its own process) and the embedded
default, where the console and CLI `drain` one run in-process. Transient failures (an index or
model that did not answer, a lost database connection, a concurrent write) are retried with
exponential backoff on the injected clock, at most `max_attempts` in total; then the run is
dead-lettered and a person takes over.

A claim is a lease: while an attempt runs, a background thread renews its heartbeat every
`renew_seconds`, and every write through the claim is fenced by (worker, attempt). A worker that
is killed stops renewing, another worker reclaims the run after the timeout and resumes it from
the task's checkpoint; if the first one was only stalled, its next write gets LeaseLost and it
stops without touching the run again.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

from services.agents.ports import LeaseLost, RunCancelled
from services.agents.runs import CANCELLED, DEAD_LETTER, FAILED, RunQueue, RunView
from services.agents.supervisor import Supervisor
from services.core.clock import Clock
from services.core.errors import DatabaseUnavailable, MemdeskError
from services.llm.ports import AnalysisRejected, ModelUsage, TransientFailure

log = logging.getLogger(__name__)

MAX_WAITS = 20


class Worker:
    def __init__(
        self,
        *,
        queue: RunQueue,
        supervisor: Supervisor,
        clock: Clock,
        worker_id: str,
        poll_seconds: float = 1.0,
        renew_seconds: float | None = None,
    ) -> None:
        self._queue = queue
        self._supervisor = supervisor
        self._clock = clock
        self.worker_id = worker_id
        self._poll = poll_seconds
        self._renew = renew_seconds

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

    def serve(
        self,
        *,
        stop: threading.Event,
        until_empty: bool = False,
        max_runs: int = 0,
        poll_seconds: float = 2.0,
        on_run: Callable[[RunView], None] | None = None,
        on_idle: Callable[[], None] | None = None,
        on_error: Callable[[MemdeskError], None] | None = None,
    ) -> int:
        """The `memdesk worker` loop. Between attempts it checks `stop` (set by SIGTERM), so a
        stopping worker finishes the attempt it holds and claims nothing new. Returns how many
        attempts it executed."""
        done = 0
        while not stop.is_set() and (max_runs == 0 or done < max_runs):
            try:
                run = self.run_once()
            except MemdeskError as exc:
                # The database went away, refused a write, or a settle lost its lease: the run
                # (if any) stays claimed and is reclaimed after its lease; this worker goes on.
                log.warning("worker %s: %s", self.worker_id, exc)
                if on_error is not None:
                    on_error(exc)
                stop.wait(poll_seconds)
                continue
            if run is not None:
                done += 1
                if on_run is not None:
                    on_run(run)
                continue
            self._catch_up_memories()
            if on_idle is not None:
                on_idle()
            if until_empty:
                break
            stop.wait(poll_seconds)  # idle: poll the queue again, or wake at once on SIGTERM
        return done

    def _catch_up_memories(self) -> None:
        """Idle: the Memory Bank generations runs still owe (a model that failed them)."""
        try:
            for line in self._supervisor.catch_up_memories():
                log.info("worker %s: owed memory generation: %s", self.worker_id, line)
        except MemdeskError as exc:
            log.warning("worker %s: owed memory generations: %s", self.worker_id, exc)

    def execute(self, run: RunView) -> RunView:
        try:
            with self._renewing(run):
                return self._execute(run)
        except LeaseLost as exc:
            # Another worker holds the run now; this attempt leaves it alone.
            log.warning("worker %s: %s", self.worker_id, exc)
            return self._queue.system_get(run.run_id)

    def _execute(self, run: RunView) -> RunView:
        if run.attempts > run.max_attempts:
            # Claimed again after its worker died on the last allowed attempt.
            reason = f"attempt {run.attempts - 1} never finished (worker lost)"
            self._supervisor.on_dead_letter(run, reason)
            return self._queue.finish(run.run_id, DEAD_LETTER, error=reason, lease=run)
        try:
            outcome = self._supervisor.execute(run)
        except RunCancelled as exc:
            self._hold(run)
            self._supervisor.on_cancelled(run)
            return self._queue.finish(run.run_id, CANCELLED, error=str(exc), lease=run)
        except (TransientFailure, DatabaseUnavailable) as exc:
            usage = exc.usage if isinstance(exc, TransientFailure) else ModelUsage()
            kind = exc.reason if isinstance(exc, TransientFailure) else "database_unavailable"
            self._queue.record(run.run_id, usage=usage)
            reason = f"{kind}: {exc}"
            if run.attempts < run.max_attempts:
                delay = self._queue.limits.backoff_seconds * 2 ** (run.attempts - 1)
                self._hold(run)
                self._supervisor.on_retry(run, reason)
                return self._queue.reschedule(run.run_id, delay=delay, reason=reason, lease=run)
            self._hold(run)
            self._supervisor.on_dead_letter(run, reason)
            return self._queue.finish(run.run_id, DEAD_LETTER, error=reason, lease=run)
        except AnalysisRejected as exc:  # the supervisor handles these; kept as a safety net
            self._hold(run)
            self._supervisor.on_failed(run, f"{exc.reason}: {exc}")
            return self._queue.finish(run.run_id, FAILED, error=f"{exc.reason}: {exc}", lease=run)
        except LeaseLost:
            raise
        except MemdeskError as exc:
            reason = f"{type(exc).__name__}: {exc}"
            self._hold(run)
            self._supervisor.on_failed(run, reason)
            return self._queue.finish(run.run_id, FAILED, error=reason, lease=run)
        return self._queue.finish(
            run.run_id, outcome.status, error=outcome.error, lease=run, events=outcome.events
        )

    def _hold(self, run: RunView) -> None:
        """Before settling the task after a failed attempt: is the run still ours? A stalled
        attempt whose run was reclaimed must not move the task under the live attempt."""
        self._queue.heartbeat(run.run_id, lease=run)

    @contextlib.contextmanager
    def _renewing(self, run: RunView) -> Iterator[None]:
        """Renew the lease in the background while the attempt runs (a long model call must
        not look like a dead worker)."""
        if not self._renew:
            yield
            return
        every = self._renew
        done = threading.Event()

        def renew() -> None:
            while not done.wait(every):
                try:
                    self._hold(run)
                except LeaseLost:
                    return  # the attempt's own next write will stop it
                except Exception as exc:  # a missed renewal is retried on the next tick
                    log.warning("worker %s: lease renewal failed: %s", self.worker_id, exc)

        thread = threading.Thread(target=renew, name=f"lease-{run.run_id}", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join(timeout=5)


@contextlib.contextmanager
def stop_on_signals(
    stop: threading.Event, *, say: Callable[[str], None] | None = None
) -> Iterator[threading.Event]:
    """While inside: SIGTERM / SIGINT ask the worker to stop after the attempt it holds (a
    graceful drain for process managers and orchestrators). The previous handlers come back on
    exit, so an in-process caller (a test, an embedding program) keeps its own."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        if say is not None and not stop.is_set():
            say(f"{signal.Signals(signum).name} received: finishing the current run, then exit")
        stop.set()

    if threading.current_thread() is not threading.main_thread():
        yield stop  # signals are only delivered to the main thread
        return
    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
