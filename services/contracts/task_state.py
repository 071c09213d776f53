"""task-state@1: the durable short-term memory of one task."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class TaskStatus(StrEnum):
    created = "created"
    restoring = "restoring"
    retrieving = "retrieving"
    analyzing = "analyzing"
    reviewing = "reviewing"
    awaiting_approval = "awaiting_approval"
    completed = "completed"
    waiting_input = "waiting_input"
    retrying = "retrying"
    blocked = "blocked"
    failed = "failed"
    cancelled = "cancelled"


TERMINAL = frozenset({TaskStatus.completed, TaskStatus.cancelled})
WORKING = (TaskStatus.restoring, TaskStatus.retrieving, TaskStatus.analyzing, TaskStatus.reviewing)
_EXCEPTIONAL = {TaskStatus.retrying, TaskStatus.blocked, TaskStatus.failed, TaskStatus.cancelled}

# The lifecycle of docs/product.md §2. Each working stage may move forward one step, fall back to
# waiting for input, or take an exceptional exit; retrying re-enters any working stage.
TRANSITIONS: dict[TaskStatus, frozenset[TaskStatus]] = {
    TaskStatus.created: frozenset(
        {TaskStatus.restoring, TaskStatus.waiting_input, TaskStatus.cancelled}
    ),
    TaskStatus.restoring: frozenset(
        {TaskStatus.retrieving, TaskStatus.waiting_input} | _EXCEPTIONAL
    ),
    TaskStatus.retrieving: frozenset(
        {TaskStatus.analyzing, TaskStatus.waiting_input} | _EXCEPTIONAL
    ),
    TaskStatus.analyzing: frozenset(
        {TaskStatus.reviewing, TaskStatus.waiting_input} | _EXCEPTIONAL
    ),
    TaskStatus.reviewing: frozenset(
        {TaskStatus.awaiting_approval, TaskStatus.waiting_input} | _EXCEPTIONAL
    ),
    TaskStatus.awaiting_approval: frozenset(
        {
            TaskStatus.completed,
            TaskStatus.waiting_input,
            TaskStatus.restoring,
            TaskStatus.blocked,
            TaskStatus.cancelled,
        }
    ),
    TaskStatus.waiting_input: frozenset(
        {TaskStatus.restoring, TaskStatus.cancelled, TaskStatus.blocked}
    ),
    TaskStatus.retrying: frozenset(
        {*WORKING, TaskStatus.failed, TaskStatus.blocked, TaskStatus.cancelled}
    ),
    TaskStatus.blocked: frozenset(
        {TaskStatus.restoring, TaskStatus.waiting_input, TaskStatus.failed, TaskStatus.cancelled}
    ),
    TaskStatus.failed: frozenset({TaskStatus.restoring, TaskStatus.cancelled}),
    TaskStatus.completed: frozenset(),
    TaskStatus.cancelled: frozenset(),
}


def can_transition(source: TaskStatus, target: TaskStatus) -> bool:
    return source == target or target in TRANSITIONS[source]


FieldValue = str | int | float | bool | None


class TaskState(BaseModel):
    """Exactly the task-state@1 contract (docs/product.md §2), plus timestamps."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal["task-state@1"] = "task-state@1"
    tenant_id: str = Field(min_length=1)
    task_id: str = Field(min_length=1)
    revision: int = Field(ge=1)
    status: TaskStatus
    confirmed: dict[str, Any] = Field(default_factory=dict)
    pending: list[str] = Field(default_factory=list)
    next_step: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)
    created_at: datetime | None = None
    updated_at: datetime | None = None
