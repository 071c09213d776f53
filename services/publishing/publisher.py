"""Publishing an approved candidate as version n+1, and revoking versions with a verified purge.

Publishing goes step by step, each recorded on the publication row so a crashed attempt resumes:

1. `version_written`: version n+1 is written as `pending_approval` (not eligible, not indexed);
2. `staged`: its chunks are written into the active index (invisible: SQL does not call it
   current yet, and retrieval only serves chunks of current versions);
3. `verified`: SQL, the vector store and a probe query agree on those chunks;
4. `switched`: ONE transaction makes n+1 `approved`, the previous version `superseded`, marks the
   candidate published and appends the audit entry — readers see either n or n+1, never both
   or neither, because eligibility is decided by SQL in one snapshot;
5. `cleaned`: the index sync drops the superseded version's chunks.

A failure before the switch leaves version n serving and removes what was staged; a failure
after it leaves n+1 serving and the cleanup to the next attempt (or any sync).
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from services.contracts.corpus import DocStatus, KnowledgeClass
from services.core.clock import Clock, IdGenerator, as_utc, today
from services.core.errors import IndexUnavailable, InvalidInput, NotFound
from services.core.policy import Permission, allows, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import DocumentVersion, IndexChunk
from services.db.models_knowledge import CandidateRow, PublicationRow
from services.publishing.candidates import (
    APPROVED,
    PUBLISHED,
    CandidateService,
    adopted_versions,
)
from services.publishing.citations import FlaggedDraft, flag_drafts, open_drafts_citing
from services.publishing.revocation import RevocationResult, revoke
from services.records import audit
from services.records.knowledge import DocumentView, KnowledgeStore, NewVersion
from services.retrieval.index import IndexManager, StagedDocument
from services.retrieval.records import to_indexed

log = logging.getLogger(__name__)

STEPS = ("version_written", "staged", "verified", "switched", "cleaned")
STEP_LABELS = {
    "version_written": "new version written (not yet eligible)",
    "staged": "index content built",
    "verified": "index content verified",
    "switched": "active version switched",
    "cleaned": "previous version's index content removed",
}
OPEN, FAILED = ("version_written", "staged", "verified", "switched"), "failed"


class PublishProgress(BaseModel):
    model_config = ConfigDict(frozen=True)

    step: str
    done: int
    total: int
    message: str


class PublicationView(BaseModel):
    model_config = ConfigDict(frozen=True)

    publication_id: str
    tenant_id: str
    candidate_id: str
    document_id: str
    version: int
    previous_version: int | None
    status: str
    steps: list[dict[str, Any]]
    index_version: str | None
    error: str | None
    started_by: str
    started_at: datetime
    finished_at: datetime | None


class PublishResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    publication: PublicationView
    document: DocumentView
    superseded: list[int]
    flagged_drafts: list[FlaggedDraft]
    cleanup_pending: bool


Progress = Callable[[PublishProgress], None]


class Publisher:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        ids: IdGenerator,
        knowledge: KnowledgeStore,
        candidates: CandidateService,
        index: IndexManager,
        on_step: Callable[[str], None] | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._knowledge = knowledge
        self._candidates = candidates
        self._index = index
        self.on_step = on_step  # fault injection in tests: raise to "crash" after a step

    # ---- publish ---------------------------------------------------------------------------
    def publish(
        self,
        principal: Principal,
        candidate_id: str,
        *,
        valid_from: date | None = None,
        progress: Progress | None = None,
    ) -> PublishResult:
        require(
            principal, Permission.APPROVE_KNOWLEDGE, "only a knowledge owner may publish knowledge"
        )
        valid_from = valid_from or today(self._clock)
        if valid_from > today(self._clock):
            raise InvalidInput("a publication takes effect when it switches: valid_from is future")
        publication_id, claim = self._start(principal, candidate_id, valid_from)
        pub = self._publication(publication_id)
        if pub.status == PUBLISHED:
            return self._result(principal, publication_id, flagged=[], cleanup_pending=False)
        flagged: list[FlaggedDraft] = []
        if pub.status != "switched":
            try:
                self._notify("version_written", progress)
                staged = self._stage(pub, claim, progress)
                flagged = self._switch(principal, pub, staged, claim)
            except PublicationMoved:
                raise  # another call owns it now: nothing of its work is undone here
            except Exception as exc:
                self._abandon(pub, exc, claim)
                raise
            self._step(publication_id, "switched", progress)
        cleanup_pending = not self._clean(principal, publication_id)
        if not cleanup_pending:
            self._step(publication_id, "cleaned", progress)
        return self._result(
            principal, publication_id, flagged=flagged, cleanup_pending=cleanup_pending
        )

    def publications(
        self, principal: Principal, *, candidate_id: str | None = None
    ) -> list[PublicationView]:
        """The tenant's publications; others than owners and admins see only their own
        candidates' (the queue itself is theirs alone, see CandidateService.list)."""
        with self._db.read() as session:
            query = select(PublicationRow).where(PublicationRow.tenant_id == principal.tenant_id)
            if candidate_id:
                query = query.where(PublicationRow.candidate_id == candidate_id)
            if not allows(principal, Permission.CURATE_KNOWLEDGE):
                query = query.join(
                    CandidateRow, CandidateRow.candidate_id == PublicationRow.candidate_id
                ).where(CandidateRow.proposed_by == principal.user_id)
            rows = session.scalars(query.order_by(PublicationRow.started_at.desc())).all()
            return [_publication_view(row) for row in rows]

    def _start(self, principal: Principal, candidate_id: str, valid_from: date) -> tuple[str, str]:
        """Step 1: the publication row and version n+1 as `pending_approval`, in one unit. The
        candidate row is locked, so two calls start one after the other; the later one takes
        over an open publication (its claim), which stops the earlier one at its next step."""
        claim = secrets.token_hex(16)
        with self._db.write() as session:
            cand = self._candidate(session, principal, candidate_id)
            open_pub = session.scalars(
                select(PublicationRow)
                .where(
                    PublicationRow.candidate_id == cand.candidate_id,
                    PublicationRow.status.in_([*OPEN, PUBLISHED]),
                )
                .order_by(PublicationRow.started_at.desc())
            ).first()
            if open_pub is not None:  # resume a crashed attempt, or repeat a done one
                if open_pub.status != PUBLISHED:
                    open_pub.claim = claim
                return open_pub.publication_id, claim
            if cand.status != APPROVED:
                raise InvalidInput(f"candidate {candidate_id} is {cand.status}, not approved")
            busy = session.scalar(
                select(PublicationRow.candidate_id).where(
                    PublicationRow.tenant_id == cand.tenant_id,
                    PublicationRow.document_id == cand.document_id,
                    PublicationRow.status.in_(OPEN),
                )
            )
            if busy is not None:
                raise InvalidInput(
                    f"{cand.document_id} is being published from candidate {busy}; "
                    "finish that publication first"
                )
            current = _approved_versions(session, cand.tenant_id, cand.document_id)
            if (current[-1] if current else None) != cand.base_version:
                raise InvalidInput(
                    f"{cand.document_id} changed since candidate {candidate_id} was proposed "
                    f"(current {current[-1] if current else None}, "
                    f"candidate based on {cand.base_version})"
                )
            version = self._pending_version(session, cand)
            if version is None:
                version = self._write_version(session, principal, cand, valid_from)
            else:  # a waiting version takes effect when it switches, like a new one
                _version_row(
                    session, cand.tenant_id, cand.document_id, version
                ).valid_from = valid_from
            pub = PublicationRow(
                publication_id=self._ids.new("pub"),
                tenant_id=cand.tenant_id,
                candidate_id=cand.candidate_id,
                document_id=cand.document_id,
                version=version,
                previous_version=cand.base_version,
                status="version_written",
                steps=[self._mark("version_written")],
                claim=claim,
                started_by=principal.user_id,
                started_at=self._clock.now(),
            )
            session.add(pub)
            audit.record(
                session,
                clock=self._clock,
                tenant_id=cand.tenant_id,
                actor=principal.user_id,
                action="publication.started",
                subject_type="document",
                subject_id=f"{cand.document_id}@{version}",
                before_ref=_ref(cand.document_id, cand.base_version),
                detail={"candidate_id": cand.candidate_id, "publication_id": pub.publication_id},
            )
            return pub.publication_id, claim

    def _write_version(
        self, session: Session, principal: Principal, cand: CandidateRow, valid_from: date
    ) -> int:
        highest = session.scalar(
            select(func.max(DocumentVersion.version)).where(
                DocumentVersion.tenant_id == cand.tenant_id,
                DocumentVersion.document_id == cand.document_id,
            )
        )
        version = int(highest or 0) + 1
        self._knowledge.add_version(
            session,
            NewVersion(
                tenant_id=cand.tenant_id,
                document_id=cand.document_id,
                version=version,
                doc_type=cand.doc_type,
                # Approved knowledge is official: the inference becomes a fact only on switch.
                knowledge_class=KnowledgeClass.fact.value,
                status=DocStatus.pending_approval.value,
                valid_from=valid_from,
                acl=list(cand.acl),
                language=cand.language,
                title=cand.title,
                body=cand.body,
                customer_id=cand.customer_id,
            ),
            actor=principal.user_id,
        )
        return version

    @staticmethod
    def _pending_version(session: Session, cand: CandidateRow) -> int | None:
        """A waiting version to publish instead of a new one: the fact version the candidate
        was adopted from (unchanged), or one an earlier, failed attempt wrote."""
        for adopted in adopted_versions(session, cand):
            if adopted.knowledge_class == KnowledgeClass.fact.value and adopted.body == cand.body:
                return adopted.version
        failed = session.scalars(
            select(PublicationRow.version).where(
                PublicationRow.candidate_id == cand.candidate_id, PublicationRow.status == FAILED
            )
        ).all()
        for version in sorted(failed, reverse=True):
            row = session.get(DocumentVersion, (cand.tenant_id, cand.document_id, version))
            if row is not None and row.status == DocStatus.pending_approval.value:
                return version
        return None

    def _stage(self, pub: PublicationView, claim: str, progress: Progress | None) -> StagedDocument:
        """Steps 2 and 3: build the new version's index content and verify it."""
        with self._db.read() as session:
            row = session.get(DocumentVersion, (pub.tenant_id, pub.document_id, pub.version))
            if row is None:
                raise NotFound("document", f"{pub.document_id}@{pub.version}")
            document = dataclasses.replace(to_indexed(row), status=DocStatus.approved.value)
        self._fence(pub.publication_id, claim)
        staged = self._index.stage_document(document)
        self._step(
            pub.publication_id, "staged", progress, index_version=staged.index_version, claim=claim
        )
        self._index.verify_staged(staged)
        self._step(pub.publication_id, "verified", progress, claim=claim)
        return staged

    def _switch(
        self, principal: Principal, pub: PublicationView, staged: StagedDocument, claim: str
    ) -> list[FlaggedDraft]:
        """Step 4: one transaction; nothing about serving changes unless all of it commits."""
        with self._index.exclusive(), self._db.write() as session:
            _fenced(session, pub.publication_id, claim)
            # Locked before its chunks are counted: an unstage of this version (another
            # process's abandoned attempt) holds this lock while it removes rows and vectors,
            # so the count below is taken either before it started or after it finished.
            new = _version_row(session, pub.tenant_id, pub.document_id, pub.version, lock=True)
            active = self._index.active()
            held = session.scalar(
                select(func.count())
                .select_from(IndexChunk)
                .where(
                    IndexChunk.index_version == staged.index_version,
                    IndexChunk.tenant_id == pub.tenant_id,
                    IndexChunk.document_id == pub.document_id,
                    IndexChunk.version == pub.version,
                )
            )
            if active is None or active.index_version != staged.index_version:
                raise IndexUnavailable("the active index changed while publishing; publish again")
            if held != staged.chunks:
                raise IndexUnavailable(
                    f"{pub.document_id}@{pub.version}: {held} of {staged.chunks} staged chunks "
                    "left in the index; publish again"
                )
            # Locked: a concurrent publication of the same document waits here, then finds the
            # version it was based on gone and gives up instead of overwriting this one.
            live = _approved_versions(session, pub.tenant_id, pub.document_id, lock=True)
            expected = [] if pub.previous_version is None else [pub.previous_version]
            if live != expected:
                raise InvalidInput(
                    f"{pub.document_id} changed while publishing (approved now: {live}, "
                    f"expected {expected}); propose the change again against the current version"
                )
            actor = principal.user_id
            self._knowledge.transition(
                session, new, target=DocStatus.approved, actor=actor, reason=pub.candidate_id
            )
            superseded = []
            for version in live:
                old = _version_row(session, pub.tenant_id, pub.document_id, version)
                self._knowledge.supersede(session, old, new, actor=actor)
                superseded.append(version)
            cand = session.get(CandidateRow, pub.candidate_id)
            assert cand is not None
            for leftover in adopted_versions(session, cand):  # e.g. an inference-class original
                if leftover.version != pub.version:
                    self._knowledge.transition(
                        session,
                        leftover,
                        target=DocStatus.rejected,
                        actor=actor,
                        reason=f"published as {pub.document_id}@{pub.version}",
                    )
            self._candidates.mark_published(session, cand, version=pub.version, actor=actor)
            row = session.get(PublicationRow, pub.publication_id)
            assert row is not None
            row.status = "switched"
            row.steps = [*row.steps, self._mark("switched")]
            flagged = open_drafts_citing(
                session,
                tenant_id=pub.tenant_id,
                document_id=pub.document_id,
                versions=set(superseded),
            )
            audit.record(
                session,
                clock=self._clock,
                tenant_id=pub.tenant_id,
                actor=actor,
                action="knowledge.published",
                subject_type="document",
                subject_id=f"{pub.document_id}@{pub.version}",
                before_ref=_ref(pub.document_id, pub.previous_version),
                after_ref=f"{pub.document_id}@{pub.version}",
                detail={
                    "candidate_id": pub.candidate_id,
                    "publication_id": pub.publication_id,
                    "index_version": staged.index_version,
                    "superseded": superseded,
                    "stale_drafts": [d.approval_id for d in flagged],
                },
            )
            flag_drafts(
                session,
                self._clock,
                pub.tenant_id,
                flagged,
                actor=actor,
                action="draft.citation_superseded",
            )
            return flagged

    def _clean(self, principal: Principal, publication_id: str) -> bool:
        """Step 5, after the switch: failures leave garbage the next sync removes."""
        pub = self._publication(publication_id)
        try:
            self._index.sync([pub.tenant_id], actor=principal.user_id)
        except Exception as exc:
            log.warning("publication %s: index cleanup deferred: %s", publication_id, exc)
            with self._db.write() as session:
                row = session.get(PublicationRow, publication_id)
                if row is not None:
                    row.error = f"cleanup deferred: {type(exc).__name__}: {exc}"[:2000]
            return False
        with self._db.write() as session:
            row = session.get(PublicationRow, publication_id)
            assert row is not None
            row.status = PUBLISHED
            row.steps = [*row.steps, self._mark("cleaned")]
            row.error = None
            row.finished_at = self._clock.now()
        return True

    def _abandon(self, pub: PublicationView, exc: Exception, claim: str) -> None:
        """Before the switch: version n keeps serving; the staged chunks go, the row waits for
        a retry (or is rejected when the document changed under it). Only the call that still
        owns the publication does this, and never for a version that serves (the unstage
        refuses an approved one)."""
        with self._db.write() as session:
            row = session.get(PublicationRow, pub.publication_id, with_for_update=True)
            if row is None or row.claim != claim or row.status in ("switched", PUBLISHED):
                return
        try:
            self._index.unstage_document(
                tenant_id=pub.tenant_id, document_id=pub.document_id, version=pub.version
            )
        except Exception as cleanup:  # the index may be what failed; sync removes them later
            log.warning(
                "publication %s: staged chunks not removed: %s", pub.publication_id, cleanup
            )
        with self._db.write() as session:
            row = session.get(PublicationRow, pub.publication_id, with_for_update=True)
            if row is not None and row.claim == claim and row.status != "switched":
                row.status = FAILED
                row.error = f"{type(exc).__name__}: {exc}"[:2000]
                row.finished_at = self._clock.now()
                audit.record(
                    session,
                    clock=self._clock,
                    tenant_id=pub.tenant_id,
                    actor=row.started_by,
                    action="publication.failed",
                    subject_type="document",
                    subject_id=f"{pub.document_id}@{pub.version}",
                    detail={"publication_id": pub.publication_id, "error": row.error},
                )
                if isinstance(exc, InvalidInput):
                    # The document changed under it: this version can never be switched in,
                    # so it is closed instead of waiting for a retry that cannot succeed.
                    version = _version_row(session, pub.tenant_id, pub.document_id, pub.version)
                    if version.status == DocStatus.pending_approval.value:
                        self._knowledge.transition(
                            session,
                            version,
                            target=DocStatus.rejected,
                            actor=row.started_by,
                            reason=f"publication failed: {exc}"[:500],
                        )

    # ---- revoke ----------------------------------------------------------------------------
    def revoke(
        self, principal: Principal, document_id: str, *, version: int | None = None, reason: str
    ) -> RevocationResult:
        """Revoke one version (or every live version), purge the index and caches, prove it."""
        return revoke(
            db=self._db,
            clock=self._clock,
            knowledge=self._knowledge,
            index=self._index,
            principal=principal,
            document_id=document_id,
            version=version,
            reason=reason,
        )

    # ---- internals -------------------------------------------------------------------------
    def _candidate(self, session: Session, principal: Principal, candidate_id: str) -> CandidateRow:
        row = session.scalars(
            select(CandidateRow)
            .where(
                CandidateRow.candidate_id == candidate_id,
                CandidateRow.tenant_id == principal.tenant_id,
            )
            .with_for_update()
        ).first()
        if row is None or not principal.can_read(tenant_id=row.tenant_id, acl=row.acl):
            raise NotFound("candidate", candidate_id)
        return row

    def _publication(self, publication_id: str) -> PublicationView:
        with self._db.read() as session:
            row = session.get(PublicationRow, publication_id)
            if row is None:
                raise NotFound("publication", publication_id)
            return _publication_view(row)

    def _step(
        self,
        publication_id: str,
        step: str,
        progress: Progress | None,
        *,
        index_version: str | None = None,
        claim: str | None = None,
    ) -> None:
        if step not in ("switched", "cleaned"):  # those two are recorded in their transaction
            with self._db.write() as session:
                row = (
                    _fenced(session, publication_id, claim)
                    if claim is not None
                    else session.get(PublicationRow, publication_id)
                )
                assert row is not None
                row.status = step
                row.steps = [*row.steps, self._mark(step)]
                if index_version:
                    row.index_version = index_version
        self._notify(step, progress)

    def _fence(self, publication_id: str, claim: str) -> None:
        with self._db.read() as session:
            _fenced(session, publication_id, claim, lock=False)

    def _notify(self, step: str, progress: Progress | None) -> None:
        if progress is not None:
            progress(
                PublishProgress(
                    step=step,
                    done=STEPS.index(step) + 1,
                    total=len(STEPS),
                    message=STEP_LABELS[step],
                )
            )
        if self.on_step is not None:
            self.on_step(step)

    def _mark(self, step: str) -> dict[str, Any]:
        return {"step": step, "at": self._clock.now().isoformat()}

    def _result(
        self,
        principal: Principal,
        publication_id: str,
        *,
        flagged: list[FlaggedDraft],
        cleanup_pending: bool,
    ) -> PublishResult:
        pub = self._publication(publication_id)
        versions = self._knowledge.versions(principal, pub.document_id)
        document = next(v for v in versions if v.version == pub.version)
        return PublishResult(
            publication=pub,
            document=document,
            superseded=[
                v.version
                for v in versions
                if v.status == DocStatus.superseded.value
                and v.status_reason == f"superseded by {pub.document_id}@{pub.version}"
            ],
            flagged_drafts=flagged,
            cleanup_pending=cleanup_pending,
        )


class PublicationMoved(InvalidInput):
    """Another `publish` of the candidate took the publication over (or finished it)."""


def _fenced(
    session: Session, publication_id: str, claim: str, *, lock: bool = True
) -> PublicationRow:
    """The publication row, if this call still owns it; PublicationMoved (exit 2) otherwise."""
    row = session.get(
        PublicationRow, publication_id, with_for_update=lock or None, populate_existing=True
    )
    if row is None:
        raise NotFound("publication", publication_id)
    if row.claim != claim:
        finished = row.status in ("switched", PUBLISHED)
        raise PublicationMoved(
            f"publication {publication_id} of candidate {row.candidate_id} "
            + (
                f"was finished by another `publish` of it ({row.document_id}@{row.version} "
                "serves); nothing more to do here"
                if finished
                else "was taken over by another `publish` of it, which finishes it; nothing "
                "was undone here"
            )
        )
    return row


def _approved_versions(
    session: Session, tenant_id: str, document_id: str, *, lock: bool = False
) -> list[int]:
    query = select(DocumentVersion.version).where(
        DocumentVersion.tenant_id == tenant_id,
        DocumentVersion.document_id == document_id,
        DocumentVersion.status == DocStatus.approved.value,
    )
    return sorted(session.scalars(query.with_for_update() if lock else query))


def _version_row(
    session: Session, tenant_id: str, document_id: str, version: int, *, lock: bool = False
) -> DocumentVersion:
    row = session.get(
        DocumentVersion,
        (tenant_id, document_id, version),
        populate_existing=True,
        with_for_update=lock or None,
    )
    if row is None:
        raise NotFound("document", f"{document_id}@{version}")
    return row


def _ref(document_id: str, version: int | None) -> str | None:
    return f"{document_id}@{version}" if version is not None else None


def _publication_view(row: PublicationRow) -> PublicationView:
    return PublicationView(
        publication_id=row.publication_id,
        tenant_id=row.tenant_id,
        candidate_id=row.candidate_id,
        document_id=row.document_id,
        version=row.version,
        previous_version=row.previous_version,
        status=row.status,
        steps=list(row.steps),
        index_version=row.index_version,
        error=row.error,
        started_by=row.started_by,
        started_at=as_utc(row.started_at),
        finished_at=as_utc(row.finished_at) if row.finished_at else None,
    )
