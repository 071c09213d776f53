"""Candidate knowledge: proposals with their sources, reviewed against the current approved text.

A candidate is always `inference` (an AI suggestion or a person's correction, not yet official).
Only a knowledge owner who did not propose it may approve it; approving does not publish: the
publisher turns an approved candidate into a new document version.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from services.contracts.corpus import DocStatus, DocType, KnowledgeClass
from services.contracts.evidence_id import parse_evidence_id
from services.contracts.ids import require_id
from services.core.clock import Clock, IdGenerator, as_utc
from services.core.errors import InvalidInput, MemdeskError, NotAuthorized, NotFound
from services.core.policy import Permission, allows, require
from services.core.principals import Principal, is_valid_acl_entry
from services.db.engine import Database
from services.db.models import DocumentVersion, Run
from services.db.models_knowledge import CandidateRow, PublicationRow
from services.publishing.diff import TextDiff, diff_texts
from services.records import audit
from services.records.knowledge import DocumentView, KnowledgeStore
from services.records.redaction import hidden_refs, redact, refs_in

Origin = Literal["correction", "inference", "memory"]
PENDING, APPROVED, REJECTED, PUBLISHED = "pending", "approved", "rejected", "published"
# Replaced by a newer revision (a knowledge owner edited its title or body before publishing).
REVISED = "revised"
MAX_TITLE = 300
MAX_BODY = 200_000


class MemoryQuotes(Protocol):
    """What the Memory Bank tells the review about a memory a candidate cites (optional)."""

    def quote(self, principal: Principal, memory_id: str) -> str | None: ...


class CandidateSource(BaseModel):
    model_config = ConfigDict(frozen=True)

    # version: a pending one adopted; candidate: the revision this one replaced (`by` edited it)
    kind: Literal["evidence", "memory", "run", "version", "candidate"]
    ref: str
    by: str | None = None
    document_id: str | None = None
    version: int | None = None
    start: int | None = None
    end: int | None = None
    quote: str | None = None
    content_hash: str | None = None


class Proposal(BaseModel):
    """Input of `propose`. For an existing document, omitted fields keep the current values."""

    model_config = ConfigDict(frozen=True)

    document_id: str
    body: str
    origin: Origin = "correction"
    title: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)
    memory_ids: list[str] = Field(default_factory=list)
    memory_quotes: dict[str, str] = Field(default_factory=dict)
    run_id: str | None = None
    rationale: str | None = None
    doc_type: str | None = None
    acl: list[str] | None = None
    language: str | None = None
    customer_id: str | None = None
    # True: `body` is a paragraph added to the current approved text (what a memory or a run's
    # claim usually is), not a replacement of the whole document.
    append: bool = False


class CandidateView(BaseModel):
    model_config = ConfigDict(frozen=True)

    candidate_id: str
    tenant_id: str
    document_id: str
    base_version: int | None
    doc_type: str
    knowledge_class: str
    title: str
    body: str
    acl: list[str]
    language: str
    customer_id: str | None
    origin: str
    sources: list[CandidateSource]
    run_id: str | None
    rationale: str | None
    status: str
    proposed_by: str
    proposed_at: datetime
    decided_by: str | None
    decided_at: datetime | None
    decision_comment: str | None
    published_version: int | None

    @property
    def revised_from(self) -> str | None:
        """The revision this one replaced, if it is an edit."""
        return next((s.ref for s in reversed(self.sources) if s.kind == "candidate"), None)

    @property
    def revision(self) -> int:
        """1 for the proposal, 2 for its first edit, and so on."""
        return 1 + sum(1 for s in self.sources if s.kind == "candidate")


class WaitingCounts(BaseModel):
    """What waits for a knowledge owner, shown on landing."""

    model_config = ConfigDict(frozen=True)

    pending: int  # candidates to review
    approved: int  # approved, not yet published
    submitted: int  # pending_approval versions not yet in the queue


class CandidateReview(BaseModel):
    """What the knowledge owner decides on: the proposal, the current text and their diff."""

    model_config = ConfigDict(frozen=True)

    candidate: CandidateView
    current: DocumentView | None
    diff: TextDiff
    base_is_current: bool  # False: another version was published since it was proposed
    can_approve: bool
    why_not: str | None
    previous: CandidateView | None = None  # the revision this one replaced
    revision_diff: TextDiff | None = None  # the edit: previous revision → this one
    title_changed: bool = False
    newer: str | None = None  # the revision that replaced this one, if any


class CandidateService:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        ids: IdGenerator,
        knowledge: KnowledgeStore,
        memory_quotes: MemoryQuotes | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._knowledge = knowledge
        self.memory_quotes = memory_quotes

    # ---- propose ---------------------------------------------------------------------------
    def propose(self, principal: Principal, proposal: Proposal) -> CandidateView:
        require_id(proposal.document_id, kind="document_id")
        body = proposal.body.strip()
        if not body:
            raise InvalidInput("the proposed text is empty")
        if proposal.origin == "inference" and not proposal.run_id:
            raise InvalidInput("an AI inference must name the run it came from (run_id)")
        if proposal.origin == "memory" and not proposal.memory_ids:
            raise InvalidInput("a candidate from memory must name its memory ids")
        current = self._current(principal, proposal.document_id)
        if proposal.append and current is not None:
            body = f"{current.body.rstrip()}\n{body}"
        if len(body) > MAX_BODY:
            raise InvalidInput(f"the proposed text is longer than {MAX_BODY} characters")
        sources = [self._evidence_source(principal, eid) for eid in proposal.evidence_ids]
        sources += [self._memory_source(principal, proposal, mid) for mid in proposal.memory_ids]
        with self._db.write() as session:
            if proposal.run_id:
                self._check_run(session, principal, proposal.run_id)
                sources.append(CandidateSource(kind="run", ref=proposal.run_id))
            row = CandidateRow(
                candidate_id=self._ids.new("cand"),
                tenant_id=principal.tenant_id,
                document_id=proposal.document_id,
                base_version=current.version if current else None,
                knowledge_class=KnowledgeClass.inference.value,
                origin=proposal.origin,
                sources=[s.model_dump(mode="json") for s in sources],
                run_id=proposal.run_id,
                rationale=proposal.rationale,
                status=PENDING,
                proposed_by=principal.user_id,
                proposed_at=self._clock.now(),
                body=body,
                **_document_fields(proposal, current),
            )
            session.add(row)
            self._audit(session, principal, row, "candidate.proposed", None, PENDING)
            session.flush()
            return _view(row)

    def propose_from_run(
        self,
        principal: Principal,
        *,
        run_id: str,
        claim: int,
        document_id: str,
        title: str | None = None,
        rationale: str | None = None,
    ) -> CandidateView:
        """An AI inference from a run's decision, proposed as a paragraph added to a document.

        The claim's text is appended to the current approved body (the diff shows exactly the
        addition) and its evidence ids become the sources; it stays an inference until a
        knowledge owner approves and publishes it.
        """
        with self._db.read() as session:
            self._check_run(session, principal, run_id)
            run = session.get(Run, run_id)
            claims = list(((run.decision if run else None) or {}).get("claims") or [])
        if not 0 <= claim < len(claims):
            raise InvalidInput(f"run {run_id} has {len(claims)} claim(s); no claim {claim}")
        return self.propose(
            principal,
            Proposal(
                document_id=document_id,
                body=str(claims[claim].get("text", "")),
                append=True,
                origin="inference",
                title=title,
                evidence_ids=[str(e) for e in claims[claim].get("evidence_ids", [])],
                run_id=run_id,
                rationale=rationale or f"AI inference from run {run_id}, claim {claim}",
            ),
        )

    def adopt_pending(self, principal: Principal) -> list[CandidateView]:
        """Document versions submitted as `pending_approval` (e.g. by an import) join the queue.

        Each becomes one candidate whose source is that version; rejecting the candidate
        rejects the version, publishing it publishes that version (a fact one keeps its number).
        Idempotent: a version already in the queue is skipped.
        """
        require(
            principal,
            Permission.APPROVE_KNOWLEDGE,
            "only a knowledge owner may fill the candidate queue",
        )
        with self._db.write() as session:
            adopted = {
                source.get("ref")
                for row in session.scalars(
                    select(CandidateRow).where(CandidateRow.tenant_id == principal.tenant_id)
                )
                for source in row.sources
                if source.get("kind") == "version"
            }
            pending = session.scalars(
                select(DocumentVersion)
                .where(
                    DocumentVersion.tenant_id == principal.tenant_id,
                    DocumentVersion.status == DocStatus.pending_approval.value,
                )
                .order_by(DocumentVersion.document_id, DocumentVersion.version)
            ).all()
            created = []
            for doc in pending:
                ref = f"{doc.document_id}@{doc.version}"
                if ref in adopted or not principal.can_read(tenant_id=doc.tenant_id, acl=doc.acl):
                    continue
                row = CandidateRow(
                    candidate_id=self._ids.new("cand"),
                    tenant_id=doc.tenant_id,
                    document_id=doc.document_id,
                    base_version=_latest_approved(session, doc.tenant_id, doc.document_id),
                    doc_type=doc.doc_type,
                    knowledge_class=KnowledgeClass.inference.value,
                    title=doc.title,
                    body=doc.body,
                    acl=list(doc.acl),
                    language=doc.language,
                    customer_id=doc.customer_id,
                    origin="inference"
                    if doc.knowledge_class == KnowledgeClass.inference.value
                    else "correction",
                    sources=[
                        CandidateSource(
                            kind="version",
                            ref=ref,
                            document_id=doc.document_id,
                            version=doc.version,
                            content_hash=doc.content_hash,
                        ).model_dump(mode="json")
                    ],
                    rationale=f"{ref} was submitted for approval as {doc.knowledge_class}",
                    status=PENDING,
                    proposed_by=doc.created_by,
                    proposed_at=self._clock.now(),
                )
                session.add(row)
                self._audit(session, principal, row, "candidate.adopted", None, PENDING)
                created.append(row)
            session.flush()
            return [_view(row) for row in created]

    # ---- reads -----------------------------------------------------------------------------
    def list(
        self, principal: Principal, *, statuses: list[str] | None = None
    ) -> list[CandidateView]:
        with self._db.read() as session:
            query = select(CandidateRow).where(CandidateRow.tenant_id == principal.tenant_id)
            if statuses:
                query = query.where(CandidateRow.status.in_(statuses))
            rows = session.scalars(query.order_by(CandidateRow.proposed_at.desc())).all()
            views = [_view(row) for row in rows if self._may_see(principal, row)]
            return _shown(session, principal, views)

    def get(self, principal: Principal, candidate_id: str) -> CandidateView:
        with self._db.read() as session:
            view = _view(self._row(session, principal, candidate_id))
            return _shown(session, principal, [view])[0]

    def review(self, principal: Principal, candidate_id: str) -> CandidateReview:
        candidate = self.get(principal, candidate_id)
        current = self._current(principal, candidate.document_id)
        refusal = _refusal(principal, candidate, current)
        now = current.version if current else None
        if candidate.published_version is not None and candidate.base_version is not None:
            # Once published, "current" is the candidate itself: show what it changed.
            with contextlib.suppress(NotFound):  # e.g. the base was revoked since
                current = self._knowledge.get(
                    principal, candidate.document_id, candidate.base_version
                )
        previous = None
        if candidate.revised_from is not None:
            with contextlib.suppress(NotFound):
                previous = self.get(principal, candidate.revised_from)
        return CandidateReview(
            candidate=candidate,
            current=current,
            diff=diff_texts(current.body if current else "", candidate.body),
            base_is_current=now in (candidate.base_version, candidate.published_version),
            can_approve=refusal is None,
            why_not=str(refusal) if refusal else None,
            previous=previous,
            revision_diff=diff_texts(previous.body, candidate.body) if previous else None,
            title_changed=previous is not None and previous.title != candidate.title,
            newer=self._newer(principal, candidate.candidate_id),
        )

    def waiting(self, principal: Principal) -> WaitingCounts:
        """How many candidates and submitted versions wait for a knowledge owner."""
        require(
            principal, Permission.CURATE_KNOWLEDGE, "only knowledge owners see what waits for them"
        )
        queue = self.list(principal, statuses=[PENDING, APPROVED])
        with self._db.read() as session:
            adopted = {
                str(source.get("ref"))
                for row in session.scalars(
                    select(CandidateRow).where(CandidateRow.tenant_id == principal.tenant_id)
                )
                for source in row.sources
                if source.get("kind") == "version"
            }
            submitted = [
                doc
                for doc in session.scalars(
                    select(DocumentVersion).where(
                        DocumentVersion.tenant_id == principal.tenant_id,
                        DocumentVersion.status == DocStatus.pending_approval.value,
                    )
                )
                if f"{doc.document_id}@{doc.version}" not in adopted
                and principal.can_read(tenant_id=doc.tenant_id, acl=doc.acl)
            ]
        return WaitingCounts(
            pending=sum(1 for c in queue if c.status == PENDING),
            approved=sum(1 for c in queue if c.status == APPROVED),
            submitted=len(submitted),
        )

    def _newer(self, principal: Principal, candidate_id: str) -> str | None:
        with self._db.read() as session:
            for row in session.scalars(
                select(CandidateRow).where(
                    CandidateRow.tenant_id == principal.tenant_id,
                    CandidateRow.document_id == candidate_document(session, candidate_id),
                )
            ):
                if any(
                    s.get("kind") == "candidate" and s.get("ref") == candidate_id
                    for s in row.sources
                ) and self._may_see(principal, row):
                    return row.candidate_id
        return None

    # ---- a knowledge owner's edits -----------------------------------------------------------
    def revise(
        self,
        principal: Principal,
        candidate_id: str,
        *,
        title: str,
        body: str,
        note: str = "",
    ) -> CandidateView:
        """Edit a pending candidate's title and body before it is published: a new revision
        of the candidate (the old one becomes `revised`, its diff stays reviewable). The
        proposer stays the proposer; the edit is recorded with who made it."""
        require(
            principal, Permission.APPROVE_KNOWLEDGE, "only a knowledge owner may edit a candidate"
        )
        title, body = title.strip(), body.strip()
        if not title:
            raise InvalidInput("title: a candidate needs a title")
        if len(title) > MAX_TITLE:
            raise InvalidInput(f"title: longer than {MAX_TITLE} characters")
        if not body:
            raise InvalidInput("body: the candidate's text is empty")
        if len(body) > MAX_BODY:
            raise InvalidInput(f"body: longer than {MAX_BODY} characters")
        with self._db.write() as session:
            row = self._row(session, principal, candidate_id, lock=True)
            if row.status != PENDING:
                raise InvalidInput(
                    f"candidate {candidate_id} is {row.status}: only a pending candidate is "
                    "edited (withdraw an approval first)"
                )
            if title == row.title and body == row.body:
                raise InvalidInput(f"candidate {candidate_id}: nothing changed")
            source = CandidateSource(kind="candidate", ref=row.candidate_id, by=principal.user_id)
            revision = CandidateRow(
                candidate_id=self._ids.new("cand"),
                tenant_id=row.tenant_id,
                document_id=row.document_id,
                base_version=row.base_version,
                doc_type=row.doc_type,
                knowledge_class=row.knowledge_class,
                title=title,
                body=body,
                acl=list(row.acl),
                language=row.language,
                customer_id=row.customer_id,
                origin=row.origin,
                sources=[*row.sources, source.model_dump(mode="json")],
                run_id=row.run_id,
                rationale=row.rationale,
                status=PENDING,
                proposed_by=row.proposed_by,
                proposed_at=self._clock.now(),
            )
            session.add(revision)
            row.status = REVISED
            self._audit(session, principal, row, "candidate.revised", PENDING, REVISED, note)
            self._audit(
                session,
                principal,
                revision,
                "candidate.proposed",
                None,
                PENDING,
                f"revision of {row.candidate_id}" + (f": {note.strip()}" if note.strip() else ""),
            )
            session.flush()
            return _view(revision)

    def withdraw(self, principal: Principal, candidate_id: str, *, reason: str) -> CandidateView:
        """Take back the approval of a candidate that is not published yet: it is pending
        again (to be edited, approved again or rejected)."""
        require(
            principal,
            Permission.APPROVE_KNOWLEDGE,
            "only a knowledge owner may withdraw an approval",
        )
        if not reason.strip():
            raise InvalidInput("reason: a reason is required to withdraw an approval")
        with self._db.write() as session:
            row = self._row(session, principal, candidate_id, lock=True)
            if row.status != APPROVED:
                raise InvalidInput(f"candidate {candidate_id} is {row.status}, not approved")
            self._refuse_while_publishing(session, row)
            before = row.status
            row.status = PENDING
            row.decided_by = None
            row.decided_at = None
            row.decision_comment = None
            self._audit(
                session, principal, row, "candidate.withdrawn", before, PENDING, reason.strip()
            )
            return _view(row)

    @staticmethod
    def _refuse_while_publishing(session: Session, row: CandidateRow) -> None:
        open_publication = session.scalar(
            select(PublicationRow.publication_id).where(
                PublicationRow.candidate_id == row.candidate_id,
                # publisher.OPEN: a publication between writing its version and switching.
                PublicationRow.status.in_(("version_written", "staged", "verified", "switched")),
            )
        )
        if open_publication is not None:
            raise InvalidInput(
                f"candidate {row.candidate_id} is being published ({open_publication}); "
                "revoke the version afterwards instead"
            )

    # ---- decisions -------------------------------------------------------------------------
    def approve(
        self, principal: Principal, candidate_id: str, *, comment: str = ""
    ) -> CandidateView:
        with self._db.write() as session:
            row = self._row(session, principal, candidate_id, lock=True)
            if row.status == APPROVED and row.decided_by == principal.user_id:
                return _view(row)  # a repeated click
            current = self._current(principal, row.document_id)
            refusal = _refusal(principal, _view(row), current)
            if refusal is not None:
                raise refusal
            return self._decide(session, principal, row, APPROVED, comment.strip() or None)

    def reject(self, principal: Principal, candidate_id: str, *, reason: str) -> CandidateView:
        require(
            principal,
            Permission.APPROVE_KNOWLEDGE,
            "only a knowledge owner may reject candidate knowledge",
        )
        if not reason.strip():
            raise InvalidInput("a reason is required to reject a candidate")
        with self._db.write() as session:
            row = self._row(session, principal, candidate_id, lock=True)
            if row.status not in (PENDING, APPROVED):
                raise InvalidInput(
                    f"candidate {candidate_id} is {row.status}: only a pending or an approved, "
                    "unpublished candidate is rejected"
                )
            if row.status == APPROVED:
                self._refuse_while_publishing(session, row)
            for version in adopted_versions(session, row):  # the submitted version goes too
                self._knowledge.transition(
                    session,
                    version,
                    target=DocStatus.rejected,
                    actor=principal.user_id,
                    reason=reason.strip(),
                )
            return self._decide(session, principal, row, REJECTED, reason.strip())

    def mark_published(
        self, session: Session, row: CandidateRow, *, version: int, actor: str
    ) -> None:
        """In the publisher's switch transaction: the candidate became `version`."""
        row.status = PUBLISHED
        row.published_version = version
        audit.record(
            session,
            clock=self._clock,
            tenant_id=row.tenant_id,
            actor=actor,
            action="candidate.published",
            subject_type="candidate",
            subject_id=row.candidate_id,
            before_ref=APPROVED,
            after_ref=f"{row.document_id}@{version}",
        )

    # ---- internals -------------------------------------------------------------------------
    def _decide(
        self,
        session: Session,
        principal: Principal,
        row: CandidateRow,
        status: str,
        comment: str | None,
    ) -> CandidateView:
        before = row.status
        row.status = status
        row.decided_by = principal.user_id
        row.decided_at = self._clock.now()
        row.decision_comment = comment
        self._audit(session, principal, row, f"candidate.{status}", before, status, comment)
        return _view(row)

    def _current(self, principal: Principal, document_id: str) -> DocumentView | None:
        """The current approved version, None for a new document id in this tenant."""
        try:
            return self._knowledge.get(principal, document_id)
        except NotFound:
            pass
        with self._db.read() as session:
            exists = session.scalar(
                select(DocumentVersion.version).where(
                    DocumentVersion.tenant_id == principal.tenant_id,
                    DocumentVersion.document_id == document_id,
                )
            )
        if exists is not None:
            try:  # a document without an approved version may be re-proposed by curators
                versions = self._knowledge.versions(principal, document_id)
            except NotFound:
                # One the proposer may not read answers exactly like a new id (no existence
                # oracle): a proposal without a base, which its knowledge owner decides on.
                return None
            approved = [v for v in versions if v.status == DocStatus.approved.value]
            return approved[-1] if approved else None
        return None

    def _evidence_source(self, principal: Principal, evidence_id: str) -> CandidateSource:
        parsed = parse_evidence_id(evidence_id)
        if parsed is None:
            raise InvalidInput(f"evidence id {evidence_id!r} is not DOC@VERSION:START-END")
        document_id, version, start, end = parsed
        try:
            doc = self._knowledge.get(principal, document_id, version)
        except NotFound:
            raise NotFound("evidence", evidence_id) from None
        if not (0 <= start < end <= len(doc.body)):
            raise InvalidInput(f"evidence {evidence_id}: offsets outside the document body")
        return CandidateSource(
            kind="evidence",
            ref=evidence_id,
            document_id=document_id,
            version=version,
            start=start,
            end=end,
            quote=doc.body[start:end],  # re-sliced from the store, never taken from the input
            content_hash=doc.content_hash,
        )

    def _memory_source(
        self, principal: Principal, proposal: Proposal, memory_id: str
    ) -> CandidateSource:
        # With a Memory Bank configured the quote is always its own, never the proposer's.
        quote = (
            self.memory_quotes.quote(principal, memory_id)
            if self.memory_quotes is not None
            else proposal.memory_quotes.get(memory_id)
        )
        return CandidateSource(kind="memory", ref=memory_id, quote=quote)

    @staticmethod
    def _check_run(session: Session, principal: Principal, run_id: str) -> None:
        run = session.get(Run, run_id)
        if run is None or run.tenant_id != principal.tenant_id:
            raise NotFound("run", run_id)

    def _row(
        self, session: Session, principal: Principal, candidate_id: str, *, lock: bool = False
    ) -> CandidateRow:
        query = select(CandidateRow).where(
            CandidateRow.candidate_id == candidate_id,
            CandidateRow.tenant_id == principal.tenant_id,
        )
        if lock:
            query = query.with_for_update()
        row = session.scalars(query.execution_options(populate_existing=True)).first()
        if row is None or not self._may_see(principal, row):
            raise NotFound("candidate", candidate_id)
        return row

    @staticmethod
    def _may_see(principal: Principal, row: CandidateRow) -> bool:
        """Knowledge owners and admins see the queue (of text their ACL lets them read);
        others see what they proposed."""
        if row.proposed_by == principal.user_id:
            return True
        return allows(principal, Permission.CURATE_KNOWLEDGE) and principal.can_read(
            tenant_id=row.tenant_id, acl=row.acl
        )

    def _audit(
        self,
        session: Session,
        principal: Principal,
        row: CandidateRow,
        action: str,
        before: str | None,
        after: str,
        comment: str | None = None,
    ) -> None:
        audit.record(
            session,
            clock=self._clock,
            tenant_id=row.tenant_id,
            actor=principal.user_id,
            action=action,
            subject_type="candidate",
            subject_id=row.candidate_id,
            before_ref=before,
            after_ref=after,
            detail={
                "document_id": row.document_id,
                "base_version": row.base_version,
                "origin": row.origin,
                "comment": comment,
            },
        )


def candidate_document(session: Session, candidate_id: str) -> str | None:
    return session.scalar(
        select(CandidateRow.document_id).where(CandidateRow.candidate_id == candidate_id)
    )


def adopted_versions(session: Session, row: CandidateRow) -> list[DocumentVersion]:
    """The still pending document versions a candidate was adopted from."""
    found = []
    for source in row.sources:
        if source.get("kind") != "version" or source.get("version") is None:
            continue
        version = session.get(
            DocumentVersion, (row.tenant_id, row.document_id, int(source["version"]))
        )
        if version is not None and version.status == DocStatus.pending_approval.value:
            found.append(version)
    return found


def _latest_approved(session: Session, tenant_id: str, document_id: str) -> int | None:
    return session.scalar(
        select(func.max(DocumentVersion.version)).where(
            DocumentVersion.tenant_id == tenant_id,
            DocumentVersion.document_id == document_id,
            DocumentVersion.status == DocStatus.approved.value,
        )
    )


def _refusal(
    principal: Principal, candidate: CandidateView, current: DocumentView | None
) -> MemdeskError | None:
    """Why this principal may not approve this candidate now (None: they may)."""
    if not allows(principal, Permission.APPROVE_KNOWLEDGE):
        return NotAuthorized("only a knowledge owner may approve candidate knowledge")
    if principal.user_id == candidate.proposed_by:
        return NotAuthorized("the proposer may not approve their own candidate")
    if candidate.status != PENDING:
        return InvalidInput(
            f"candidate {candidate.candidate_id} is {candidate.status}, not pending"
        )
    now_version = current.version if current else None
    if now_version != candidate.base_version:
        return InvalidInput(
            f"candidate {candidate.candidate_id} was written against "
            f"{_ref(candidate.document_id, candidate.base_version)} but "
            f"{_ref(candidate.document_id, now_version)} is current now; propose it again"
        )
    return None


def _document_fields(proposal: Proposal, current: DocumentView | None) -> dict[str, object]:
    doc_type = proposal.doc_type or (current.doc_type if current else DocType.sop.value)
    if doc_type not in {t.value for t in DocType}:
        raise InvalidInput(f"doc_type {doc_type!r} is not one of {[t.value for t in DocType]}")
    acl = proposal.acl if proposal.acl is not None else (current.acl if current else ["tenant"])
    bad = [entry for entry in acl if not is_valid_acl_entry(entry)]
    if not acl or bad:
        raise InvalidInput(f"the ACL must list valid entries, got {acl!r}")
    title = (proposal.title or (current.title if current else "")).strip()
    if not title:
        raise InvalidInput("a new document needs a title")
    return {
        "doc_type": doc_type,
        "acl": list(acl),
        "title": title,
        "language": proposal.language or (current.language if current else "zh-Hant"),
        "customer_id": proposal.customer_id
        if proposal.customer_id is not None
        else (current.customer_id if current else None),
    }


def _ref(document_id: str, version: int | None) -> str:
    return f"{document_id}@{version}" if version is not None else f"no approved {document_id}"


def _shown(
    session: Session, principal: Principal, views: list[CandidateView]
) -> list[CandidateView]:
    """Source quotes from documents the viewer may not read are withheld (redaction.py)."""
    sources = [[source.model_dump(mode="json") for source in view.sources] for view in views]
    hidden = hidden_refs(session, principal, refs_in(sources))
    if not hidden:
        return views
    return [
        view.model_copy(
            update={"sources": [CandidateSource.model_validate(s) for s in redact(own, hidden)]}
        )
        for view, own in zip(views, sources, strict=True)
    ]


def _view(row: CandidateRow) -> CandidateView:
    return CandidateView(
        candidate_id=row.candidate_id,
        tenant_id=row.tenant_id,
        document_id=row.document_id,
        base_version=row.base_version,
        doc_type=row.doc_type,
        knowledge_class=row.knowledge_class,
        title=row.title,
        body=row.body,
        acl=list(row.acl),
        language=row.language,
        customer_id=row.customer_id,
        origin=row.origin,
        sources=[CandidateSource.model_validate(s) for s in row.sources],
        run_id=row.run_id,
        rationale=row.rationale,
        status=row.status,
        proposed_by=row.proposed_by,
        proposed_at=as_utc(row.proposed_at),
        decided_by=row.decided_by,
        decided_at=as_utc(row.decided_at) if row.decided_at else None,
        decision_comment=row.decision_comment,
        published_version=row.published_version,
    )
