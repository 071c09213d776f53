"""Where a task stands, from its current state and approval items (never from stored text).

The task state's `next_step` is written when a run ends; decisions made afterwards do not
rewrite it. What a person reads as "what happens next" is therefore derived here on every view:
which engineering items are still open, whether the draft waits for them or for sales, and how
the draft of the latest decision was decided.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from services.approvals.store import APPROVED, PENDING, REJECTED, WITHDRAWN, ApprovalView
from services.contracts.task_state import TaskState, TaskStatus

Stage = Literal[
    "engineering",  # engineering items of the current decision are open
    "sales",  # every engineering item is approved: sales decides the draft
    "done",  # completed
    "input",  # waiting for input (a supplement, a settled conflict, a revision)
    "run",  # a run is working on it
    "stopped",  # blocked, failed or cancelled: a person takes over
    "other",
]
Standing = Literal["pending", "waiting", "approved", "rejected", "withdrawn", "superseded", "none"]


class Progress(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: Stage
    engineering_open: list[str]  # item keys still pending
    engineering_total: int
    engineering_approved: int
    rejected: list[str]  # "<item> rejected by <who>: <comment>"
    note: str | None  # the state's own next step, where it is still the truth


def progress(state: TaskState, items: list[ApprovalView]) -> Progress:
    """`items` are the approval items of the task's latest decision."""
    engineering = [item for item in items if item.kind != "draft"]
    open_keys = [item.item_key for item in engineering if item.status == PENDING]
    rejected = [
        f"{item.item_key} rejected by {item.decided_by}: {item.comment or ''}".strip()
        for item in items
        if item.status == REJECTED
    ]
    status = state.status
    if status == TaskStatus.awaiting_approval:
        stage: Stage = "engineering" if open_keys else "sales"
        note = None
    elif status == TaskStatus.completed:
        stage, note = "done", None
    elif status == TaskStatus.waiting_input:
        stage, note = "input", state.next_step
    elif status in (TaskStatus.blocked, TaskStatus.failed, TaskStatus.cancelled):
        stage, note = "stopped", state.next_step
    elif status == TaskStatus.created:
        stage, note = "other", state.next_step
    else:
        stage, note = "run", state.next_step
    return Progress(
        stage=stage,
        engineering_open=open_keys,
        engineering_total=len(engineering),
        engineering_approved=sum(1 for item in engineering if item.status == APPROVED),
        rejected=rejected,
        note=note,
    )


def draft_standing(
    decision_version: int, items: list[ApprovalView], *, latest_version: int | None
) -> Standing:
    """How the draft of `decision_version` stands with people (not the analysis's own label)."""
    if latest_version is not None and decision_version < latest_version:
        return "superseded"
    drafts = [i for i in items if i.kind == "draft" and i.decision_version == decision_version]
    if not drafts:
        return "none"
    status = drafts[0].status
    if status == PENDING:
        waiting = any(
            i.kind != "draft" and i.decision_version == decision_version and i.status != APPROVED
            for i in items
        )
        return "waiting" if waiting else "pending"
    if status in (APPROVED, REJECTED, WITHDRAWN):
        return status  # type: ignore[return-value]
    return "none"
