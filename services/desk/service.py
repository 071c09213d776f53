"""The review desk: what the console shows a person and the decisions a person records.

Reads compose the task, runs, approvals and knowledge services into view models (shaped in
services/views); writes are people's decisions (approve/reject at the revision they saw,
settle or escalate a source conflict), each recorded on the task and in the audit log.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.agents.gathering import Gathered
from services.agents.resume import Resumer, ResumeResult
from services.agents.runs import RunEventView, RunQueue, RunView
from services.agents.supplements import checked_supplement
from services.approvals.flow import ApprovalFlow, ApprovalOutcome
from services.approvals.handover import EngineeringHandover, EngineeringResult
from services.approvals.store import ApprovalService, ApprovalView
from services.contracts.evidence_id import approval_id_of, parse_evidence_id
from services.contracts.task_state import TaskStatus
from services.core.clock import Clock
from services.core.errors import InvalidInput, NotAuthorized, NotFound, StaleRevision
from services.core.policy import Permission, require
from services.core.principals import Principal
from services.desk.changes import ChangesSince, changes_since
from services.desk.drafts import Draft, draft
from services.desk.evidence import EvidenceView, evidence_view
from services.desk.progress import Progress, Standing, draft_standing, progress
from services.desk.timeline import TimelineRow, timeline
from services.memory.bank import MemoryBank
from services.publishing.citations import CitationChecker, CitationStatus, cited_in
from services.records.knowledge import DocumentView, KnowledgeStore
from services.records.tasks import TaskEventRecord, TaskRecord, TaskService
from services.retrieval.facts import aligned_normalize


class SourceConflict(BaseModel):
    """Authoritative sources that disagree on one fact, from a run, side by side."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    need: str
    fact: str  # the normalised key the conflict is settled under
    values: list[dict[str, Any]]  # each: value, evidence_id, document_id, version, quote
    shown_fact: str = ""  # the same words as the first document writes them (its own script)


class UsedMemory(BaseModel):
    """A memory a run handed to analysis as context (inference, never evidence), as recorded
    when the run used it, and whether it changed since."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    memory_id: str
    revision: int  # the revision the run used
    current_revision: int
    state: str  # active | deleted, now
    scope: dict[str, str]
    topic: str
    fact: str
    source_event: str | None = None
    source_run: str | None = None


class TaskView(BaseModel):
    model_config = ConfigDict(frozen=True)

    record: TaskRecord
    timeline: list[TimelineRow]
    latest_run: RunView | None
    draft: Draft | None
    approvals: list[ApprovalView]
    source_conflicts: list[SourceConflict]  # only those no person has settled yet
    progress: Progress
    draft_number: int | None = None  # 1, 2, 3… per task, in the order the drafts were made
    draft_standing: Standing = "none"
    # The memories the shown run recalled, as far as this person may read them.
    used_memories: list[UsedMemory] = Field(default_factory=list)


class WaitingItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_key: str
    text: str
    status: str


class ApprovalCard(BaseModel):
    """One pending approval item with what the decider needs to read."""

    model_config = ConfigDict(frozen=True)

    approval: ApprovalView
    task_revision: int
    task_status: str
    draft: Draft | None
    # Citations no longer current (a newer version was published, or it was revoked).
    stale_citations: list[CitationStatus] = Field(default_factory=list)
    # A draft item: the engineering items of its decision not yet approved (it waits for them).
    waiting_for: list[WaitingItem] = Field(default_factory=list)
    draft_number: int | None = None


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
        resumer: Resumer | None = None,
        memories: MemoryBank | None = None,
    ) -> None:
        self._memories = memories
        self._resumer = resumer
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
        every = self._approvals.search(principal, task_id=task_id, limit=1000)
        latest = max((item.decision_version for item in every), default=None)
        current = [item for item in every if item.decision_version == latest]
        events = self._tasks.events(principal, task_id)
        made = _draft_numbers(runs)
        shown = self._draft(principal, decided) if decided else None
        return TaskView(
            record=record,
            timeline=timeline(events, self._tasks.checkpoints(principal, task_id), runs, every),
            latest_run=runs[0] if runs else None,
            draft=shown,
            approvals=current,
            source_conflicts=_unsettled(
                self._source_conflicts(principal, decided) if decided else [], events
            ),
            progress=progress(record.state, current),
            draft_number=made.get(decided.run_id) if decided else None,
            draft_standing=draft_standing(shown.decision_version, every, latest_version=latest)
            if shown
            else "none",
            used_memories=self._used_memories(principal, decided or (runs[0] if runs else None)),
        )

    def _used_memories(self, principal: Principal, run: RunView | None) -> list[UsedMemory]:
        """What the run recalled, re-read as this person: a memory they may not read (its
        scope, its mail's ACL) or that expired is left out, like withheld evidence."""
        if run is None or self._memories is None:
            return []
        recalled = [
            e for e in self._runs.events(principal, run.run_id) if e.kind == "memories_recalled"
        ]
        used: list[UsedMemory] = []
        for item in recalled[-1].payload.get("memories", []) if recalled else []:
            try:
                now = self._memories.get(principal, str(item["memory_id"]))
            except (NotFound, NotAuthorized):
                continue
            used.append(
                UsedMemory(
                    run_id=run.run_id,
                    memory_id=now.memory_id,
                    revision=int(item["revision"]),
                    current_revision=now.revision,
                    state=now.state,
                    scope=dict(item["scope"]),
                    topic=str(item["topic"]),
                    fact=str(item["fact"]),
                    source_event=item.get("source_event"),
                    source_run=item.get("source_run"),
                )
            )
        return used

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
        if approval_id_of(document_id) is not None:
            return self._approval_evidence(principal, evidence_id, as_of)
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
        self, principal: Principal, *, kind: str | None = None, task_id: str | None = None
    ) -> list[ApprovalCard]:
        """Pending items this person may decide (their role, the latest decision only), of one
        task when `task_id` is given (NotFound when the person may not see that task)."""
        if task_id is not None:
            self._tasks.get(principal, task_id)
        cards = []
        numbers: dict[str, dict[str, int]] = {}
        for item in self._flow.queue(principal):
            if kind is not None and item.kind != kind:
                continue
            if task_id is not None and item.task_id != task_id:
                continue
            state = self._tasks.get(principal, item.task_id).state
            decision = item.payload.get("decision")
            pool = self._runs.evidence(principal, item.run_id) if item.run_id else []
            if item.task_id not in numbers:
                runs = self._runs.search(principal, task_id=item.task_id, limit=50)
                numbers[item.task_id] = _draft_numbers(runs)
            cards.append(
                ApprovalCard(
                    approval=item,
                    task_revision=state.revision,
                    task_status=state.status.value,
                    draft=draft(item.run_id or "", decision, pool) if decision else None,
                    stale_citations=self._stale(principal, item),
                    waiting_for=[
                        WaitingItem(
                            item_key=w.item_key,
                            text=str(w.payload.get("text", "")),
                            status=w.status,
                        )
                        for w in self._flow.waiting_for(principal, item.id)
                    ],
                    draft_number=numbers[item.task_id].get(item.run_id or ""),
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
    def run(
        self,
        principal: Principal,
        task_id: str,
        *,
        supplement: str | None,
        on_event: Callable[[RunEventView], None] | None = None,
    ) -> ResumeResult:
        """Resume a task with a person's supplement (at most MAX_SUPPLEMENT_CHARS characters),
        reporting each step of the run to `on_event` as it is recorded."""
        text = checked_supplement(supplement)  # before anything else is asked of the desk
        if self._resumer is None:
            raise InvalidInput("this desk cannot run analyses (no resumer configured)")
        return self._resumer.resume(principal, task_id, supplement=text, on_event=on_event)

    def decide(
        self,
        principal: Principal,
        approval_id: int,
        *,
        approve: bool,
        comment: str,
        seen_revision: int,
        result: dict[str, Any] | None = None,
    ) -> ApprovalOutcome:
        """Approve or reject what the person saw: refused with StaleRevision when the task was
        written since (the console then shows `changes_since`). An engineer's structured
        result (`EngineeringResult` fields) is checked and recorded with the approval."""
        item = self._approvals.get(principal, approval_id)
        current = self._tasks.get(principal, item.task_id).state.revision
        if current != seen_revision:
            raise StaleRevision(task_id=item.task_id, expected=seen_revision, current=current)
        return self._flow.decide(
            principal,
            approval_id,
            approve=approve,
            comment=comment,
            result=EngineeringResult.parse(result),
        )

    def decided_by_me(self, principal: Principal, *, limit: int = 20) -> list[ApprovalView]:
        """The items this person decided most recently (their own record of the day's work)."""
        mine = [
            item
            for item in self._approvals.search(principal, limit=5000)
            if item.decided_by == principal.user_id
        ]
        mine.sort(key=lambda item: item.decided_at or item.requested_at, reverse=True)
        return mine[:limit]

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
    def _approval_evidence(
        self, principal: Principal, evidence_id: str, as_of: date | None
    ) -> EvidenceView:
        """An engineering result cited to its approval record, shown like a document: the
        recorded fact as the body, approved by the engineer who decided it."""
        try:
            fact = EngineeringHandover(approvals=self._approvals).resolve(principal, evidence_id)
        except NotFound:
            fact = None
        if fact is None:
            raise NotFound("evidence", evidence_id)
        item = self._approvals.get(principal, approval_id_of(fact.document_id) or 0)
        decided = item.decided_at or item.requested_at
        record = DocumentView(
            tenant_id=item.tenant_id,
            document_id=fact.document_id,
            version=fact.version,
            doc_type="approval",
            knowledge_class="fact",
            status="approved",
            valid_from=decided.date(),
            valid_to=None,
            language="zh-Hant",
            title=fact.title,
            body=fact.quote,
            content_hash=fact.content_hash,
            customer_id=None,
            acl=["tenant"],
            approved_by=item.decided_by,
            approved_at=decided,
            created_by=item.decided_by or "",
            created_at=decided,
            status_reason=item.comment,
            legal_hold=False,
        )
        as_of = as_of or self._clock.now().date()
        return evidence_view(
            evidence_id=evidence_id,
            document=record,
            start=fact.start,
            end=fact.end,
            recorded_quote=fact.quote,
            recorded_hash=fact.content_hash,
            as_of=as_of,
            eligible=True,
            versions=[record],
        )

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
            values = seen.values if seen else list(c.values)
            merged[key] = SourceConflict(
                run_id=run.run_id,
                need=f"{seen.need}, {c.need}" if seen else c.need,
                fact=c.fact,
                values=values,
                shown_fact=_as_written(c.fact, values),
            )
        return list(merged.values())


def _draft_numbers(runs: list[RunView]) -> dict[str, int]:
    """Each run that produced a decision, numbered 1, 2, 3… in the order they were made."""
    decided = sorted((run for run in runs if run.decision), key=lambda run: run.created_at)
    return {run.run_id: number for number, run in enumerate(decided, start=1)}


def _unsettled(
    conflicts: list[SourceConflict], events: list[TaskEventRecord]
) -> list[SourceConflict]:
    """Drop the conflicts a person settled or escalated after the run that found them."""
    done = {
        (str(event.detail.get("run_id")), str(event.detail.get("fact")))
        for event in events
        if event.kind in ("source_conflict_settled", "source_conflict_escalated")
    }
    return [c for c in conflicts if (c.run_id, c.fact) not in done]


def _as_written(fact: str, values: list[dict[str, Any]]) -> str:
    """The conflict's fact in a source's own characters: the span of the first quote whose
    normalised form is the fact (Traditional stays Traditional), else the key itself."""
    for value in values:
        quote = str(value.get("quote") or "")
        normalised, index = aligned_normalize(quote)
        at = normalised.find(fact)
        if fact and at >= 0:
            return quote[index[at] : index[at + len(fact) - 1] + 1]
    return fact
