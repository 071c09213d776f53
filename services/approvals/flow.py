"""From a reviewed draft to people's decisions, and from their decisions to the task's next state.

A ready draft becomes one approval item for `sales` plus one item per engineering confirmation
for `engineer`, all keyed tenant + task + decision_version (+ item). Nothing here approves: only
a person's `decide` does. Decisions come in order: the draft can be approved only once every
engineering item of its decision is approved (the draft rests on them). When every item is
approved the task completes; the first rejection sends the task back to waiting_input with the
reason and withdraws the items still pending, which nobody needs to decide any more. Each step is
idempotent, so a crash between writing a decision and moving the task is recovered by `settle`
without a second approval. No path here sends mail, places an order or writes an SOP.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import ColumnElement, Select, and_, case, func, or_, select

from services.approvals.engineering import EngineeringItem
from services.approvals.handover import EngineeringResult
from services.approvals.store import APPROVED, PENDING, REJECTED, ApprovalService, ApprovalView
from services.contracts.decision import MemoryDecision
from services.contracts.task_state import TaskState, TaskStatus
from services.core.errors import (
    InvalidInput,
    MemdeskError,
    NotAuthorized,
    NotFound,
    StaleRevision,
)
from services.core.policy import DRAFT_DECIDER, ENGINEERING_DECIDER
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import Approval, TaskRow
from services.language.glossary import ENGINEERING_PENDING
from services.records.directory import Directory
from services.records.tasks import TaskRecord, TaskService
from services.retrieval.types import Evidence, Retriever


class ApprovalOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    approval: ApprovalView
    state: TaskState


class ApprovalFlow:
    def __init__(
        self,
        *,
        db: Database,
        approvals: ApprovalService,
        tasks: TaskService,
        directory: Directory,
        retriever: Retriever | None = None,
    ) -> None:
        self._db = db
        self._approvals = approvals
        self._tasks = tasks
        self._directory = directory
        self._retriever = retriever

    def request_for_decision(
        self,
        principal: Principal,
        *,
        task_id: str,
        run_id: str,
        decision: MemoryDecision,
        items: list[EngineeringItem],
        evidence: dict[str, Evidence],
    ) -> list[ApprovalView]:
        """Ask people to decide. Payloads hold only the decision's own data (no timestamps),
        so a repeated request after a crash matches the first and returns it."""
        version = decision.state_revision
        cited = list(dict.fromkeys(eid for claim in decision.claims for eid in claim.evidence_ids))
        draft: dict[str, Any] = {
            "decision": decision.model_dump(mode="json"),
            "draft": "\n".join(claim.text for claim in decision.claims),
            "citations": [_citation(evidence[eid]) for eid in cited if eid in evidence],
            "engineering_items": [item.key for item in items],
        }
        views = [
            self._approvals.request(
                principal,
                task_id=task_id,
                decision_version=version,
                payload=draft,
                kind="draft",
                required_role=DRAFT_DECIDER,
                item_key="draft",
                run_id=run_id,
            )
        ]
        for item in items:
            payload = {
                "text": item.text,
                "need": item.need,
                "citation": _citation(evidence[item.evidence_id])
                if item.evidence_id in evidence
                else {"evidence_id": item.evidence_id},
            }
            views.append(
                self._approvals.request(
                    principal,
                    task_id=task_id,
                    decision_version=version,
                    payload=payload,
                    kind="engineering",
                    required_role=ENGINEERING_DECIDER,
                    item_key=item.key,
                    run_id=run_id,
                )
            )
        return views

    def current(self, principal: Principal, task_id: str) -> list[ApprovalView]:
        """The approval items of the task's latest decision (older drafts are superseded)."""
        items = self._approvals.search(principal, task_id=task_id, limit=1000)
        if not items:
            return []
        latest = max(item.decision_version for item in items)
        return [item for item in items if item.decision_version == latest]

    def queue(self, principal: Principal) -> list[ApprovalView]:
        """Pending items this person may decide: their role, the latest decision only, of tasks
        still awaiting approval (a task resumed meanwhile without a new draft has moved on, and
        `decide` would refuse its items)."""
        pending = self._approvals.search(principal, statuses=[PENDING], limit=1000)
        latest: dict[str, int] = {}
        for item in self._approvals.search(principal, limit=5000):
            latest[item.task_id] = max(latest.get(item.task_id, 0), item.decision_version)
        with self._db.read() as session:
            awaiting = set(
                session.scalars(
                    select(TaskRow.task_id).where(
                        TaskRow.tenant_id == principal.tenant_id,
                        TaskRow.status == TaskStatus.awaiting_approval.value,
                    )
                )
            )
        return [
            item
            for item in pending
            if principal.has_role(item.required_role)
            and item.decision_version == latest.get(item.task_id)
            and item.task_id in awaiting
        ]

    def waiting_for(self, principal: Principal, approval_id: int) -> list[ApprovalView]:
        """The engineering items a draft item still waits for (none for engineering items)."""
        item = self._approvals.get(principal, approval_id)
        if item.kind != "draft":
            return []
        return [
            other
            for other in self._approvals.search(principal, task_id=item.task_id, limit=1000)
            if other.decision_version == item.decision_version
            and other.kind != "draft"
            and other.status != APPROVED
        ]

    def decide(
        self,
        principal: Principal,
        approval_id: int,
        *,
        approve: bool,
        comment: str = "",
        result: EngineeringResult | None = None,
    ) -> ApprovalOutcome:
        item = self._approvals.get(principal, approval_id)
        if not principal.has_role(item.required_role):
            raise NotAuthorized(
                f"approval {approval_id} needs the role {item.required_role!r} to decide"
            )
        if result is not None and item.kind != "engineering":
            raise InvalidInput(f"approval {approval_id} is a {item.kind} item: no result to record")
        if result is not None and not approve:
            raise InvalidInput("a result is recorded with an approval, not with a rejection")
        target = APPROVED if approve else REJECTED
        if item.status != target:
            try:
                self._check_decidable(principal, item, approve=approve)
            except InvalidInput:
                # Someone made this same decision after we read the item and the task has moved
                # on (completed, say): asking again is a repeat, answered as one, not an error.
                if self._approvals.get(principal, approval_id).status != target:
                    raise
        decided = self._approvals.decide(
            principal,
            approval_id,
            approve=approve,
            comment=comment,
            result=result.model_dump(mode="json") if result is not None else None,
        )
        record = self.settle(principal, item.task_id)
        return ApprovalOutcome(approval=decided, state=record.state)

    def _check_decidable(self, principal: Principal, item: ApprovalView, *, approve: bool) -> None:
        """A first decision needs the item's decision to be the task's latest, the task to await
        approval and, to approve, engineering done and every citation still holding."""
        latest = max(v.decision_version for v in self.current(principal, item.task_id))
        if item.decision_version != latest:
            raise InvalidInput(
                f"approval {item.id} belongs to decision v{item.decision_version}; "
                f"task {item.task_id} now has decision v{latest}"
            )
        state = self._tasks.get(principal, item.task_id).state
        if state.status != TaskStatus.awaiting_approval:
            raise InvalidInput(
                f"task {item.task_id} is {state.status.value}, not awaiting approval"
            )
        if approve:
            waiting = self.waiting_for(principal, item.id)
            if waiting:
                raise InvalidInput(
                    f"draft v{item.decision_version} of {item.task_id} waits for engineering: "
                    + ", ".join(f"{w.item_key} ({w.status})" for w in waiting)
                )
            self._check_citations(principal, item)

    def _check_citations(self, principal: Principal, item: ApprovalView) -> None:
        """An approval rests on its citations as they are now: each must still resolve, for
        this person, to the same content it quoted (not revoked, superseded or edited since)."""
        if self._retriever is None:
            return
        payload = item.payload
        citations = [*(payload.get("citations") or []), payload.get("citation") or {}]
        for citation in citations:
            evidence_id = citation.get("evidence_id")
            if not evidence_id:
                continue
            try:
                current = self._retriever.resolve(principal, str(evidence_id))
            except MemdeskError as exc:
                raise InvalidInput(
                    f"approval {item.id} cites {evidence_id}, which no longer holds or which "
                    f"you may not read ({exc}); resume the task for a new draft"
                ) from exc
            recorded = citation.get("content_hash")
            if recorded is not None and recorded != current.content_hash:
                raise InvalidInput(
                    f"approval {item.id} cites {evidence_id}, whose content changed since the "
                    "draft; resume the task for a new draft"
                )

    def settle(self, principal: Principal, task_id: str) -> TaskRecord:
        """Move the task on once every item of its current decision is decided (idempotent)."""
        for _ in range(3):
            record = self._tasks.get(principal, task_id)
            if record.state.status != TaskStatus.awaiting_approval:
                return record
            items = self.current(principal, task_id)
            rejected = [item for item in items if item.status == REJECTED]
            if not items or (not rejected and any(item.status == PENDING for item in items)):
                return record
            state = record.state
            try:
                if rejected:
                    reasons = "; ".join(
                        f"{item.item_key} rejected by {item.decided_by}: {item.comment}"
                        for item in rejected
                    )
                    # Nobody needs to decide the rest of a decision that goes back anyway.
                    self._approvals.withdraw(
                        principal,
                        [item.id for item in items if item.status == PENDING],
                        reason=f"withdrawn: {reasons}"[:500],
                    )
                    return self._tasks.update(
                        principal,
                        task_id,
                        expected_revision=state.revision,
                        status=TaskStatus.waiting_input,
                        next_step=f"revise after rejection — {reasons}"[:200],
                        note=reasons,
                    )
                who = ", ".join(sorted({item.decided_by or "?" for item in items}))
                return self._tasks.update(
                    principal,
                    task_id,
                    expected_revision=state.revision,
                    status=TaskStatus.completed,
                    pending=[p for p in state.pending if p != ENGINEERING_PENDING],
                    next_step=None,
                    note=f"decision v{items[0].decision_version} approved by {who}",
                )
            except StaleRevision:
                continue  # someone wrote meanwhile: look again
        return self._tasks.get(principal, task_id)

    def recover_all(self) -> list[str]:
        """Settle every task whose approvals are all decided but which has not moved on (a
        crash between the two writes), acting as the person who decided last.

        Idle workers call this on every poll, so one statement finds the few such tasks (the
        latest decision of a task awaiting approval has a rejection or nothing pending); each
        is then read and settled as before. Tasks still waiting for people cost no more."""
        with self._db.read() as session:
            waiting = session.execute(_settleable()).all()
        moved = []
        for tenant_id, task_id in waiting:
            scanner = Principal(user_id="system:recovery", tenant_id=tenant_id, roles=("admin",))
            items = self.current(scanner, task_id)
            rejected = any(item.status == REJECTED for item in items)
            if not items or (not rejected and any(item.status == PENDING for item in items)):
                continue
            decider = _last_decider(items)
            try:
                actor = self._directory.principal(decider) if decider else scanner
            except NotFound:
                actor = scanner
            if self.settle(actor, task_id).state.status != TaskStatus.awaiting_approval:
                moved.append(f"{tenant_id}/{task_id}")
        return moved


def _settleable() -> Select[str, str]:
    """Tasks awaiting approval whose latest decision's items are all decided or one rejected."""
    awaiting = TaskRow.status == TaskStatus.awaiting_approval.value
    same_task = and_(TaskRow.tenant_id == Approval.tenant_id, TaskRow.task_id == Approval.task_id)
    latest = (
        select(
            Approval.tenant_id,
            Approval.task_id,
            func.max(Approval.decision_version).label("version"),
        )
        .join(TaskRow, same_task)
        .where(awaiting)
        .group_by(Approval.tenant_id, Approval.task_id)
        .subquery()
    )

    def count(status: str) -> ColumnElement[int]:
        return func.sum(case((Approval.status == status, 1), else_=0))

    return (
        select(Approval.tenant_id, Approval.task_id)
        .join(
            latest,
            and_(
                latest.c.tenant_id == Approval.tenant_id,
                latest.c.task_id == Approval.task_id,
                latest.c.version == Approval.decision_version,
            ),
        )
        .group_by(Approval.tenant_id, Approval.task_id)
        .having(or_(count(REJECTED) > 0, count(PENDING) == 0))
        .order_by(Approval.tenant_id, Approval.task_id)
    )


def _last_decider(items: list[ApprovalView]) -> str | None:
    decided = [item for item in items if item.decided_at is not None]
    if not decided:
        return None
    return max(decided, key=lambda item: item.decided_at or item.requested_at).decided_by


def _citation(evidence: Evidence) -> dict[str, Any]:
    return {
        "evidence_id": evidence.evidence_id,
        "document_id": evidence.document_id,
        "version": evidence.version,
        "start": evidence.start,
        "end": evidence.end,
        "quote": evidence.quote,
        "content_hash": evidence.content_hash,
    }
