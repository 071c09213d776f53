"""The review desk: what the console shows a person and the decisions a person records.

Reads compose the task, runs, approvals and knowledge services into view models (shaped in
services/views); writes are people's decisions (approve/reject at the revision they saw,
settle or escalate a source conflict), each recorded on the task and in the audit log.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.agents.gathering import Gathered
from services.agents.runs import RunQueue, RunView
from services.approvals.flow import ApprovalFlow, ApprovalOutcome
from services.approvals.store import ApprovalService, ApprovalView
from services.contracts.evidence_id import parse_evidence_id
from services.contracts.task_state import TaskStatus
from services.core.clock import Clock
from services.core.errors import InvalidInput, NotFound, StaleRevision
from services.core.policy import Permission, require
from services.core.principals import Principal
from services.desk.changes import ChangesSince, changes_since
from services.desk.drafts import Draft, draft
from services.desk.evidence import EvidenceView, evidence_view
from services.desk.timeline import TimelineRow, timeline
from services.publishing.citations import CitationChecker, CitationStatus, cited_in
from services.records.knowledge import KnowledgeStore
from services.records.tasks import TaskRecord, TaskService


class SourceConflict(BaseModel):
    """Authoritative sources that disagree on one fact, from a run, side by side."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    need: str
    fact: str
    values: list[dict[str, Any]]  # each: value, evidence_id, document_id, version, quote


class TaskView(BaseModel):
    model_config = ConfigDict(frozen=True)

    record: TaskRecord
    timeline: list[TimelineRow]
    latest_run: RunView | None
    draft: Draft | None
    approvals: list[ApprovalView]
    source_conflicts: list[SourceConflict]


class ApprovalCard(BaseModel):
    """One pending approval item with what the decider needs to read."""

    model_config = ConfigDict(frozen=True)

    approval: ApprovalView
    task_revision: int
    task_status: str
    draft: Draft | None
    # Citations no longer current (a newer version was published, or it was revoked).
    stale_citations: list[CitationStatus] = Field(default_factory=list)


class ConflictCase(BaseModel):
    model_config = ConfigDict(frozen=True)

    record: TaskRecord
    source_conflicts: list[SourceConflict]


class Desk:
    def __init__(
        self,
        *,
        tasks: TaskService,
        runs: RunQueue,
        approvals: ApprovalService,
        approval_flow: ApprovalFlow,
        knowledge: KnowledgeStore,
        clock: Clock,
        citations: CitationChecker | None = None,
    ) -> None:
        self._citations = citations
        self._tasks = tasks
        self._runs = runs
        self._approvals = approvals
        self._flow = approval_flow
        self._knowledge = knowledge
        self._clock = clock

    # ---- reads -------------------------------------------------------------------------
    def task_view(self, principal: Principal, task_id: str) -> TaskView:
        record = self._tasks.get(principal, task_id)
        runs = self._runs.search(principal, task_id=task_id, limit=50)
        decided = next((run for run in runs if run.decision), None)
        current = self._flow.current(principal, task_id)
        return TaskView(
            record=record,
            timeline=timeline(
                self._tasks.events(principal, task_id),
                self._tasks.checkpoints(principal, task_id),
                runs,
            ),
            latest_run=runs[0] if runs else None,
            draft=self._draft(principal, decided) if decided else None,
            approvals=current,
            source_conflicts=self._source_conflicts(principal, decided) if decided else [],
        )

    def evidence_view(
        self,
        principal: Principal,
        evidence_id: str,
        *,
        run_id: str | None = None,
        as_of: date | None = None,
    ) -> EvidenceView:
        """The cited version beside its body; NotFound if the principal may not read it."""
        parsed = parse_evidence_id(evidence_id)
        if parsed is None:
            raise InvalidInput(f"not a citation id: {evidence_id!r}")
        document_id, version, start, end = parsed
        document = self._knowledge.get(principal, document_id, version)
        recorded = None
        if run_id is not None:
            pool = self._runs.evidence(principal, run_id)
            recorded = next((e for e in pool if e.evidence_id == evidence_id), None)
        as_of = as_of or self._clock.now().date()
        return evidence_view(
            evidence_id=evidence_id,
            document=document,
            start=start,
            end=end,
            recorded_quote=recorded.quote if recorded else None,
            recorded_hash=recorded.content_hash if recorded else None,
            as_of=as_of,
            eligible=self._knowledge.is_eligible(
                principal, document_id=document_id, version=version, as_of=as_of
            ),
            versions=self._knowledge.versions(principal, document_id),
        )

    def approval_queue(
        self, principal: Principal, *, kind: str | None = None
    ) -> list[ApprovalCard]:
        """Pending items this person may decide (their role, the latest decision only)."""
        cards = []
        for item in self._flow.queue(principal):
            if kind is not None and item.kind != kind:
                continue
            state = self._tasks.get(principal, item.task_id).state
            decision = item.payload.get("decision")
            pool = self._runs.evidence(principal, item.run_id) if item.run_id else []
            cards.append(
                ApprovalCard(
                    approval=item,
                    task_revision=state.revision,
                    task_status=state.status.value,
                    draft=draft(item.run_id or "", decision, pool) if decision else None,
                    stale_citations=self._stale(principal, item),
                )
            )
        return cards

    def _stale(self, principal: Principal, item: ApprovalView) -> list[CitationStatus]:
        if self._citations is None:
            return []
        checked = self._citations.check(principal, cited_in(item.payload))
        return [c for c in checked if c.state != "current"]

    def changes_since(self, principal: Principal, task_id: str, seen_revision: int) -> ChangesSince:
        record = self._tasks.get(principal, task_id)
        return changes_since(
            seen_revision,
            record.state,
            self._tasks.checkpoints(principal, task_id),
            self._tasks.events(principal, task_id),
        )

    def open_conflicts(self, principal: Principal, *, limit: int = 100) -> list[ConflictCase]:
        """Tasks waiting for a person to settle conflicting sources or a confirmed field."""
        page = self._tasks.search(principal, statuses=[TaskStatus.waiting_input.value], limit=limit)
        cases = []
        for record in page.items:
            sources: list[SourceConflict] = []
            if (record.state.next_step or "").startswith("settle conflicting sources"):
                runs = self._runs.search(principal, task_id=record.state.task_id, limit=10)
                decided = next((run for run in runs if run.decision), None)
                sources = self._source_conflicts(principal, decided) if decided else []
            if sources or record.conflicts:
                cases.append(ConflictCase(record=record, source_conflicts=sources))
        return cases

    # ---- people's decisions ------------------------------------------------------------
    def decide(
        self,
        principal: Principal,
        approval_id: int,
        *,
        approve: bool,
        comment: str,
        seen_revision: int,
    ) -> ApprovalOutcome:
        """Approve or reject what the person saw: refused with StaleRevision when the task was
        written since (the console then shows `changes_since`)."""
        item = self._approvals.get(principal, approval_id)
        current = self._tasks.get(principal, item.task_id).state.revision
        if current != seen_revision:
            raise StaleRevision(task_id=item.task_id, expected=seen_revision, current=current)
        return self._flow.decide(principal, approval_id, approve=approve, comment=comment)

    def settle_source_conflict(
        self,
        principal: Principal,
        task_id: str,
        *,
        expected_revision: int,
        run_id: str,
        fact: str,
        action: Literal["choose", "escalate"],
        reason: str,
        evidence_id: str | None = None,
    ) -> TaskRecord:
        """Record which source is authoritative for `fact` (or escalate it), with a reason.

        Choosing keeps the task waiting for a new run with the chosen evidence on the task;
        escalating blocks it for someone with authority. Both are task events and audit entries.
        """
        require(
            principal,
            Permission.SETTLE_CONFLICTS,
            "only sales or admin may settle conflicting sources",
        )
        if not reason.strip():
            raise InvalidInput("a reason is required to settle or escalate a conflict")
        record = self._tasks.get(principal, task_id)
        run = self._runs.get(principal, run_id)
        if run.task_id != task_id:
            raise NotFound("run", run_id)
        conflict = next((c for c in self._source_conflicts(principal, run) if c.fact == fact), None)
        if conflict is None:
            raise NotFound("conflict", f"{task_id}: {fact}")
        values = {value["evidence_id"]: value for value in conflict.values}
        detail: dict[str, Any] = {
            "run_id": run_id,
            "fact": fact,
            "reason": reason.strip(),
            "candidates": sorted(values),
        }
        if action == "choose":
            if evidence_id is None or evidence_id not in values:
                raise InvalidInput(f"{evidence_id!r} is not one of the conflicting sources")
            chosen = values[evidence_id]
            detail["chosen"] = evidence_id
            detail["chosen_value"] = chosen.get("value")
            return self._tasks.update(
                principal,
                task_id,
                expected_revision=expected_revision,
                add_evidence_ids=[evidence_id],
                next_step=f"resume: {chosen['document_id']}@{chosen['version']} is "
                f"authoritative for {fact}"[:200],
                note=reason.strip(),
                event="source_conflict_settled",
                event_detail=detail,
            )
        if record.state.status == TaskStatus.blocked:
            raise InvalidInput(f"task {task_id} is already blocked")
        return self._tasks.update(
            principal,
            task_id,
            expected_revision=expected_revision,
            status=TaskStatus.blocked,
            next_step=f"escalated: conflicting sources for {fact}"[:200],
            note=reason.strip(),
            event="source_conflict_escalated",
            event_detail=detail,
        )

    # ---- internals ---------------------------------------------------------------------
    def _draft(self, principal: Principal, run: RunView) -> Draft:
        assert run.decision is not None
        return draft(run.run_id, run.decision, self._runs.evidence(principal, run.run_id))

    def _source_conflicts(self, principal: Principal, run: RunView) -> list[SourceConflict]:
        gathered = Gathered.from_events(self._runs.events(principal, run.run_id))
        if gathered is None:
            return []
        # Several needs can run into the same disagreement: one decision settles it for all.
        merged: dict[tuple[str, tuple[str, ...]], SourceConflict] = {}
        for c in gathered.conflicts:
            key = (c.fact, tuple(sorted(str(v.get("evidence_id")) for v in c.values)))
            seen = merged.get(key)
            merged[key] = SourceConflict(
                run_id=run.run_id,
                need=f"{seen.need}, {c.need}" if seen else c.need,
                fact=c.fact,
                values=seen.values if seen else list(c.values),
            )
        return list(merged.values())
