"""When a task is due, for the inbox: its confirmed `due_date`, otherwise its last activity.

task-state@1 is fixed and has no due date of its own (docs/formats.md). A date the work must
meet is something people confirm about the task, like its material, so it lives among the
confirmed fields under one documented key; no other field is guessed at (a customer's audit or
delivery date is a fact of the job, not when the task is due). A task without one shows when
it last moved, which is what the inbox is ordered by.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from services.contracts.task_state import TERMINAL, TaskState

DUE_FIELD = "due_date"


class DueOrActivity(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["due", "activity"]
    due: date | None = None
    # A confirmed due date that is not an ISO date is shown as people wrote it.
    written: str | None = None
    overdue: bool = False
    last_activity: datetime | None = None


def due_or_activity(state: TaskState, *, today: date) -> DueOrActivity:
    """The task's due date (overdue when it passed and the task is still open), else its last
    activity."""
    raw = state.confirmed.get(DUE_FIELD)
    if raw is None or str(raw).strip() == "":
        return DueOrActivity(kind="activity", last_activity=state.updated_at)
    try:
        due = date.fromisoformat(str(raw).strip())
    except ValueError:
        return DueOrActivity(kind="due", written=str(raw).strip())
    open_task = state.status not in TERMINAL
    return DueOrActivity(kind="due", due=due, overdue=open_task and due < today)
