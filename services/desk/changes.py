"""What changed on a task since the revision a reviewer was looking at (a stale write)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from services.contracts.task_state import TaskState
from services.records.tasks import CheckpointRecord, TaskEventRecord


class FieldChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    field: str
    before: Any
    after: Any


class ChangesSince(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_id: str
    seen_revision: int
    current_revision: int
    changes: list[FieldChange]
    writes: list[str]  # one line per write since: "r3 transition by a.sales2: note"

    @property
    def stale(self) -> bool:
        return self.current_revision != self.seen_revision


_COMPARED = ("status", "confirmed", "pending", "next_step", "evidence_ids")


def changes_since(
    seen_revision: int,
    current: TaskState,
    checkpoints: list[CheckpointRecord],
    events: list[TaskEventRecord],
) -> ChangesSince:
    """Field-by-field differences between the state at `seen_revision` (its checkpoint) and
    now, plus who wrote each revision in between. Confirmed fields are compared one by one."""
    seen = next((c.state for c in checkpoints if c.revision == seen_revision), None)
    changes: list[FieldChange] = []
    if seen is not None:
        for name in _COMPARED:
            before, after = getattr(seen, name), getattr(current, name)
            if name == "confirmed":
                for key in sorted(set(before) | set(after)):
                    if before.get(key) != after.get(key):
                        changes.append(
                            FieldChange(
                                field=f"confirmed.{key}",
                                before=before.get(key),
                                after=after.get(key),
                            )
                        )
            elif before != after:
                changes.append(
                    FieldChange(
                        field=name,
                        before=before.value if name == "status" else before,
                        after=after.value if name == "status" else after,
                    )
                )
    writes = [
        f"r{event.revision} {event.kind} by {event.actor}"
        + (f": {event.detail['note']}" if event.detail.get("note") else "")
        for event in events
        if event.revision > seen_revision
    ]
    return ChangesSince(
        task_id=current.task_id,
        seen_revision=seen_revision,
        current_revision=current.revision,
        changes=changes,
        writes=writes,
    )
