"""A real `memdesk worker` process whose attempt stalls at a chosen point (for fault tests).

Run as `python -m tests.support.worker_process --hang-at analysis|awaiting_approval
--marker FILE [--gate FILE]`, with the store chosen by MEMDESK_* variables like the CLI. It is
the production worker loop (Worker.serve, SIGTERM handling, lease renewal) with one seam
swapped: when the attempt reaches the stage it writes MARKER and waits until GATE exists (for
ever without --gate, until the test kills the process).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any

from services import bootstrap
from services.agents.analysis_offline import OfflineAnalyzer
from services.agents.ports import Analysis
from services.agents.worker import stop_on_signals
from services.contracts.memory_input import MemoryInput
from services.core.principals import Principal
from services.records.tasks import TaskRecord, TaskService
from tests.support.agents import rebuild_agents


class Stall:
    def __init__(self, marker: Path, gate: Path | None) -> None:
        self.marker = marker
        self.gate = gate

    def here(self, what: str) -> None:
        self.marker.write_text(what)
        while self.gate is None or not self.gate.exists():
            time.sleep(0.05)  # a stalled model call or a process about to be killed


class StallingAnalyzer:
    name = "offline"

    def __init__(self, stall: Stall) -> None:
        self._inner = OfflineAnalyzer()
        self._stall = stall

    def analyze(self, principal: Principal, data: MemoryInput, *, run_id: str) -> Analysis:
        self._stall.here(f"analysis {run_id}")
        return self._inner.analyze(principal, data, run_id=run_id)


class StallingTasks(TaskService):
    """The real task service; the move into `awaiting_approval` stalls first (the approvals
    were already requested in their own transaction)."""

    def __init__(self, inner: TaskService, stall: Stall) -> None:
        self.__dict__.update(inner.__dict__)
        self._stall = stall

    def update(self, principal: Any, task_id: str, **kwargs: Any) -> TaskRecord:
        if kwargs.get("status") == "awaiting_approval":
            self._stall.here(f"awaiting_approval {task_id}")
        return super().update(principal, task_id, **kwargs)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hang-at", choices=["analysis", "awaiting_approval"], required=True)
    parser.add_argument("--marker", type=Path, required=True)
    parser.add_argument("--gate", type=Path)
    args = parser.parse_args()
    stop = threading.Event()
    services = bootstrap.build()
    stall = Stall(args.marker, args.gate)
    if args.hang_at == "analysis":
        agents = rebuild_agents(services, analyzer=StallingAnalyzer(stall))
    else:
        agents = rebuild_agents(services, tasks=StallingTasks(services.tasks, stall))
    print(f"worker {agents.worker.worker_id} started", file=sys.stderr, flush=True)
    with stop_on_signals(stop, say=lambda text: print(text, file=sys.stderr, flush=True)):
        done = agents.worker.serve(
            stop=stop,
            poll_seconds=0.1,
            on_run=lambda run: print(f"{run.run_id}\t{run.status}", flush=True),
        )
    print(f"stopped after {done} run(s)", file=sys.stderr, flush=True)
    services.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
