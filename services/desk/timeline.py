"""A task's timeline: its events (with their checkpoints) and its runs, in time order."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from services.agents.runs import RunEventView, RunView
from services.approvals.store import ApprovalView
from services.records.tasks import CheckpointRecord, TaskEventRecord


class ConflictNote(BaseModel):
    """A confirmed field a new value contradicted, with both values as recorded."""

    model_config = ConfigDict(frozen=True)

    field: str
    confirmed: Any = None
    proposed: Any = None


class TimelineRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    at: datetime
    source: Literal["event", "run", "decision"]
    title: str
    actor: str
    revision: int | None = None
    status: str | None = None
    checkpoint: str | None = None  # the stage of the checkpoint written with this event
    run_id: str | None = None
    detail: str = ""
    decision_status: str | None = None  # a finished run's decision (ready_for_review, …)
    # Values stay values, so the console can show them in words (yes/no, field labels).
    conflicts: list[ConflictNote] = []
    result: dict[str, Any] = {}


def timeline(
    events: list[TaskEventRecord],
    checkpoints: list[CheckpointRecord],
    runs: list[RunView],
    approvals: list[ApprovalView] | None = None,
) -> list[TimelineRow]:
    """Newest first. Every task write logs an event and a checkpoint at the same revision, so
    the checkpoint is shown on its event's row rather than as a duplicate row. People's
    decisions on approval items are rows of their own, with the comment and any result; a
    run's supplement is shown whole."""
    stage_at = {checkpoint.revision: checkpoint for checkpoint in checkpoints}
    rows = [_event_row(event, stage_at.get(event.revision)) for event in events]
    for run in runs:
        rows.append(
            TimelineRow(
                at=run.created_at,
                source="run",
                title="run_queued",
                actor=run.requested_by,
                status="queued",
                run_id=run.run_id,
                detail=run.supplement or "",
            )
        )
        if run.finished_at is not None:
            rows.append(
                TimelineRow(
                    at=run.finished_at,
                    source="run",
                    title="run_finished",
                    actor="agent:supervisor",
                    status=run.status,
                    run_id=run.run_id,
                    detail=_run_detail(run),
                    decision_status=str(run.decision.get("status")) if run.decision else None,
                )
            )
    for item in approvals or []:
        if item.decided_at is None:
            continue
        rows.append(
            TimelineRow(
                at=item.decided_at,
                source="decision",
                title=item.item_key,
                actor=item.decided_by or "",
                status=item.status,
                run_id=item.run_id,
                detail=_decision_detail(item),
                result=dict(item.result or {}),
            )
        )
    # Stable for equal timestamps: runs before the task writes they caused, decisions last.
    order = {"run": 0, "decision": 1, "event": 2}
    return sorted(rows, key=lambda row: (row.at, order[row.source], row.revision or 0))[::-1]


def _event_row(event: TaskEventRecord, checkpoint: CheckpointRecord | None) -> TimelineRow:
    state = checkpoint.state if checkpoint else None
    return TimelineRow(
        at=event.at,
        source="event",
        title=event.kind,
        actor=event.actor,
        revision=event.revision,
        status=state.status.value if state else None,
        checkpoint=checkpoint.stage if checkpoint else None,
        run_id=event.run_id,
        detail=_event_detail(event.kind, event.detail),
        conflicts=[
            ConflictNote(
                field=str(c.get("field")), confirmed=c.get("confirmed"), proposed=c.get("proposed")
            )
            for c in (event.detail.get("conflicts", []) if event.kind == "conflict" else [])
        ],
    )


def _event_detail(kind: str, detail: dict[str, Any]) -> str:
    if kind == "conflict":
        return ""  # the conflicts are the row's own values (TimelineRow.conflicts)
    if kind in ("conflict_resolved", "source_conflict_settled", "source_conflict_escalated"):
        return "; ".join(f"{k}: {v}" for k, v in detail.items() if v not in (None, "", []))
    note = detail.get("note")
    return str(note) if note else ""


def _decision_detail(item: ApprovalView) -> str:
    parts = [f"decision v{item.decision_version}"]
    if item.comment:
        parts.append(item.comment)
    return "; ".join(parts)  # the result is the row's own values (TimelineRow.result)


def _run_detail(run: RunView) -> str:
    parts = [f"attempts {run.attempts}/{run.max_attempts}"]
    if run.model:
        parts.append(f"model {run.model}")
    if run.error:
        parts.append(f"error: {run.error}")
    return "; ".join(parts)


class RunStep(BaseModel):
    model_config = ConfigDict(frozen=True)

    at: datetime
    kind: str
    text: str


def run_steps(events: list[RunEventView]) -> list[RunStep]:
    """A run's progress as a person reads it: one line per step, in order."""
    steps = []
    for event in events:
        payload = event.payload
        if event.kind == "retrieval":
            text = (
                f"檢索 retrieval for {payload.get('need')}: {payload.get('status')}, "
                f"{len(payload.get('evidence_ids', []))} evidence"
            )
        elif event.kind == "evidence":
            text = f"證據池 evidence pool: {len(payload.get('evidence', []))} item(s)"
        elif event.kind == "model_call":
            text = (
                f"模型 model call: {payload.get('model') or payload.get('analyzer') or ''}".strip()
            )
        elif event.kind == "handoff":
            text = (
                f"交接 hand-off {event.source_agent} → {event.target_agent} "
                f"({payload.get('payload_schema') or event.schema_version})"
            )
        elif event.kind == "finished":
            text = f"結束 finished: {payload.get('status')}" + (
                f" — {payload['error']}" if payload.get("error") else ""
            )
        else:
            text = event.kind.replace("_", " ")
        steps.append(RunStep(at=event.at, kind=event.kind, text=text))
    return steps
