"""Stale citations: a draft made before a publication or revocation cites what is no longer current.

Drafts keep the citations they were made with (an approval payload is immutable); this check
compares each cited document version with what governance says is current now, so the review
page and the approval flow can flag a stale draft instead of letting it be approved blindly.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select
from sqlalchemy.orm import Session

from services.approvals.store import PENDING, ApprovalService
from services.core.clock import Clock, today
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import Approval, DocumentVersion
from services.records import audit
from services.records.knowledge import KnowledgeStore

CitationState = Literal["current", "superseded", "revoked", "not_eligible"]


class CitationStatus(BaseModel):
    model_config = ConfigDict(frozen=True)

    evidence_id: str | None
    document_id: str
    version: int
    state: CitationState
    current_version: int | None  # what a new run would cite instead (None: nothing)


class StaleCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    approval_id: int
    task_id: str
    citations: list[CitationStatus]

    @property
    def stale(self) -> bool:
        return any(c.state != "current" for c in self.citations)

    @property
    def stale_citations(self) -> list[CitationStatus]:
        return [c for c in self.citations if c.state != "current"]


class FlaggedDraft(BaseModel):
    """An open approval item whose draft cites a version that just stopped being current."""

    model_config = ConfigDict(frozen=True)

    approval_id: int
    task_id: str
    decision_version: int
    item_key: str
    cited: list[str]  # DOC@VERSION refs affected


class CitationChecker:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        knowledge: KnowledgeStore,
        approvals: ApprovalService,
    ) -> None:
        self._db = db
        self._clock = clock
        self._knowledge = knowledge
        self._approvals = approvals

    def check_approval(
        self, principal: Principal, approval_id: int, *, as_of: date | None = None
    ) -> StaleCheck:
        """Each citation of the approval item's draft, judged against what is current now."""
        item = self._approvals.get(principal, approval_id)  # tenant + role checks live there
        return StaleCheck(
            approval_id=item.id,
            task_id=item.task_id,
            citations=self.check(principal, cited_in(item.payload), as_of=as_of),
        )

    def check(
        self,
        principal: Principal,
        citations: list[dict[str, Any]],
        *,
        as_of: date | None = None,
    ) -> list[CitationStatus]:
        as_of = as_of or today(self._clock)
        ids = sorted({str(c["document_id"]) for c in citations})
        current = {
            d.document_id: d.version
            for d in self._knowledge.eligible(principal, as_of=as_of, document_ids=ids)
        }
        with self._db.read() as session:
            statuses = {
                (row.document_id, row.version): row.status
                for row in session.scalars(
                    select(DocumentVersion).where(
                        DocumentVersion.tenant_id == principal.tenant_id,
                        DocumentVersion.document_id.in_(ids),
                    )
                )
                # A version the principal may not read says nothing, not even its status.
                if principal.can_read(tenant_id=row.tenant_id, acl=row.acl)
            }
        result = []
        for c in citations:
            document_id, version = str(c["document_id"]), int(c["version"])
            now = current.get(document_id)
            status = statuses.get((document_id, version))
            state: CitationState = (
                "current"
                if now == version
                else "revoked"
                if status == "revoked"
                else "superseded"
                if status == "superseded" or (now is not None and now > version)
                else "not_eligible"
            )
            result.append(
                CitationStatus(
                    evidence_id=c.get("evidence_id"),
                    document_id=document_id,
                    version=version,
                    state=state,
                    current_version=now,
                )
            )
        return result


def open_drafts_citing(
    session: Session, *, tenant_id: str, document_id: str, versions: set[int] | None
) -> list[FlaggedDraft]:
    """Pending approval items in the tenant citing the document (these versions, or any)."""
    flagged = []
    rows = session.scalars(
        select(Approval)
        .where(Approval.tenant_id == tenant_id, Approval.status == PENDING)
        .order_by(Approval.id)
    )
    for row in rows:
        hits = sorted(
            {
                f"{c['document_id']}@{c['version']}"
                for c in cited_in(row.payload)
                if c["document_id"] == document_id
                and (versions is None or int(c["version"]) in versions)
            }
        )
        if hits:
            flagged.append(
                FlaggedDraft(
                    approval_id=row.id,
                    task_id=row.task_id,
                    decision_version=row.decision_version,
                    item_key=row.item_key,
                    cited=hits,
                )
            )
    return flagged


def flag_drafts(
    session: Session,
    clock: Clock,
    tenant_id: str,
    flagged: list[FlaggedDraft],
    *,
    actor: str,
    action: str,
) -> None:
    """One audit entry per open draft that now cites a superseded or revoked version."""
    for draft in flagged:
        audit.record(
            session,
            clock=clock,
            tenant_id=tenant_id,
            actor=actor,
            action=action,
            subject_type="approval",
            subject_id=str(draft.approval_id),
            detail={"task_id": draft.task_id, "cited": draft.cited},
        )


def cited_in(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Citations of a draft payload (`citations`) or an engineering item (`citation`)."""
    found = list(payload.get("citations") or [])
    if isinstance(payload.get("citation"), dict):
        found.append(payload["citation"])
    return [c for c in found if "document_id" in c and "version" in c]
