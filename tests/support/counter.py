"""Read-modify-CAS increments of a counter kept in a task's next_step (threads and processes)."""

from __future__ import annotations

from pathlib import Path

from services import bootstrap
from services.bootstrap import Services
from services.core.errors import StaleRevision
from services.settings import Settings


def increment(services: Services, *, user_id: str, task_id: str, times: int) -> tuple[int, int]:
    """Add 1 to the counter `times` times, re-reading after every StaleRevision.

    Returns (successful writes, stale rejections)."""
    principal = services.directory.principal(user_id)
    written = stale = 0
    while written < times:
        state = services.tasks.get(principal, task_id).state
        counter = int(state.next_step or "0")
        try:
            services.tasks.update(
                principal,
                task_id,
                expected_revision=state.revision,
                next_step=str(counter + 1),
            )
        except StaleRevision:
            stale += 1
            continue
        written += 1
    return written, stale


def increment_in_process(
    database_url: str, home: str, user_id: str, task_id: str, times: int
) -> tuple[int, int]:
    """Entry point of a spawned process: it builds its own services from the same database."""
    services = bootstrap.build(
        Settings(home=Path(home), database_url=database_url, embedding_backend="hashing")
    )
    try:
        return increment(services, user_id=user_id, task_id=task_id, times=times)
    finally:
        services.close()
