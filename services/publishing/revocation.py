"""Revoking a version or a whole document: status, flagged drafts, and a purge that is proven."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from services.contracts.corpus import DocStatus
from services.core.clock import Clock, today
from services.core.errors import InvalidInput, NotFound
from services.core.policy import Permission, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import DocumentVersion
from services.publishing.citations import FlaggedDraft, flag_drafts, open_drafts_citing
from services.records.knowledge import KnowledgeStore
from services.retrieval.index import IndexManager
from services.retrieval.purge import PurgeReport


class RevocationResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    document_id: str
    versions: list[int]
    reason: str
    purge: PurgeReport | None
    purge_error: str | None
    still_eligible: list[int]  # re-checked through governance after the purge: must be empty
    flagged_drafts: list[FlaggedDraft]

    @property
    def purge_verified(self) -> bool:
        return self.purge is not None and self.purge.verified and not self.still_eligible


def revoke(
    *,
    db: Database,
    clock: Clock,
    knowledge: KnowledgeStore,
    index: IndexManager,
    principal: Principal,
    document_id: str,
    version: int | None,
    reason: str,
) -> RevocationResult:
    """The status change commits first (governance stops serving it at once), then the index
    and every cache are purged and re-queried; an unverified purge is reported, not hidden."""
    require(principal, Permission.APPROVE_KNOWLEDGE, "only a knowledge owner may revoke knowledge")
    reason = reason.strip()
    if not reason:
        raise InvalidInput("a reason is required to revoke knowledge")
    label = document_id if version is None else f"{document_id}@{version}"
    with db.write() as session:
        query = select(DocumentVersion).where(
            DocumentVersion.tenant_id == principal.tenant_id,
            DocumentVersion.document_id == document_id,
        )
        if version is not None:
            query = query.where(DocumentVersion.version == version)
        rows = [
            row
            for row in session.scalars(query.order_by(DocumentVersion.version))
            if principal.can_read(tenant_id=row.tenant_id, acl=row.acl)
        ]
        if not rows:
            raise NotFound("document", label)
        live = [r for r in rows if r.status not in ("revoked", "rejected")]
        if not live:
            raise InvalidInput(f"{label} is already revoked")
        for row in live:
            knowledge.transition(
                session, row, target=DocStatus.revoked, actor=principal.user_id, reason=reason
            )
        revoked = [row.version for row in live]
        flagged = [
            draft
            for draft in open_drafts_citing(
                session, tenant_id=principal.tenant_id, document_id=document_id, versions=None
            )
            if any(int(ref.rpartition("@")[2]) in revoked for ref in draft.cited)
        ]
        flag_drafts(
            session,
            clock,
            principal.tenant_id,
            flagged,
            actor=principal.user_id,
            action="draft.citation_revoked",
        )
    report: PurgeReport | None = None
    error: str | None = None
    try:
        report = index.purge_document(
            tenant_id=principal.tenant_id,
            document_id=document_id,
            version=version,
            actor=principal.user_id,
        )
    except Exception as exc:  # reported, not hidden: the console shows it unverified
        error = f"{type(exc).__name__}: {exc}"
    eligible = knowledge.eligible(principal, as_of=today(clock), document_ids=[document_id])
    return RevocationResult(
        document_id=document_id,
        versions=revoked,
        reason=reason,
        purge=report,
        purge_error=error,
        still_eligible=[d.version for d in eligible if d.version in revoked],
        flagged_drafts=flagged,
    )
