"""Governed knowledge store: versioned documents, lifecycle and the eligible-evidence query."""

from __future__ import annotations

import hashlib
import itertools
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import and_, delete, exists, func, select
from sqlalchemy.orm import Session

from services.contracts.corpus import DocStatus, KnowledgeClass
from services.core.clock import Clock, as_utc
from services.core.errors import IllegalTransition, InvalidInput, NotFound
from services.core.policy import Permission, allows, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import DocumentAcl, DocumentVersion
from services.records import audit

DOC_TRANSITIONS: dict[DocStatus, frozenset[DocStatus]] = {
    DocStatus.draft: frozenset({DocStatus.pending_approval, DocStatus.rejected, DocStatus.revoked}),
    DocStatus.pending_approval: frozenset(
        {DocStatus.approved, DocStatus.rejected, DocStatus.draft, DocStatus.revoked}
    ),
    DocStatus.approved: frozenset({DocStatus.superseded, DocStatus.revoked}),
    DocStatus.superseded: frozenset({DocStatus.revoked}),
    DocStatus.rejected: frozenset(),
    DocStatus.revoked: frozenset(),
}
# Versions a non-curator may open (e.g. to check a citation): never drafts or revoked text.
PUBLIC_STATUSES = (DocStatus.approved.value, DocStatus.superseded.value)


def content_hash(body: str) -> str:
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


class DocumentView(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    document_id: str
    version: int
    doc_type: str
    knowledge_class: str
    status: str
    valid_from: date
    valid_to: date | None
    language: str
    title: str
    body: str
    content_hash: str
    customer_id: str | None
    acl: list[str]
    approved_by: str | None
    approved_at: datetime | None
    created_by: str
    created_at: datetime
    status_reason: str | None
    legal_hold: bool

    @property
    def ref(self) -> str:
        return f"{self.document_id}@{self.version}"

    def valid_at(self, as_of: date) -> bool:
        return self.valid_from <= as_of and (self.valid_to is None or as_of < self.valid_to)

    @property
    def hash_ok(self) -> bool:
        return content_hash(self.body) == self.content_hash


class DocumentPage(BaseModel):
    model_config = ConfigDict(frozen=True)

    items: list[DocumentView]
    total: int


class NewVersion(BaseModel):
    """Everything needed to write one document version (import and publishing use it)."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    document_id: str
    version: int
    doc_type: str
    knowledge_class: str
    status: str
    valid_from: date
    valid_to: date | None = None
    acl: list[str]
    language: str = "zh-Hant"
    title: str
    body: str
    customer_id: str | None = None
    approved_by: str | None = None
    approved_at: datetime | None = None


class KnowledgeStore:
    def __init__(self, *, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    # ---- reads -------------------------------------------------------------------------
    def get(
        self, principal: Principal, document_id: str, version: int | None = None
    ) -> DocumentView:
        """One version the principal may read; `version=None` is the current approved one."""
        with self._db.read() as session:
            row = self._readable(session, principal, document_id, version)
            return _view(row)

    def versions(self, principal: Principal, document_id: str) -> list[DocumentView]:
        with self._db.read() as session:
            rows = session.scalars(
                self._readable_query(principal)
                .where(DocumentVersion.document_id == document_id)
                .order_by(DocumentVersion.version)
            ).all()
            if not rows:
                raise NotFound("document", document_id)
            return [_view(row) for row in rows]

    def search(
        self,
        principal: Principal,
        *,
        statuses: list[str] | None = None,
        doc_types: list[str] | None = None,
        search: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> DocumentPage:
        query = self._readable_query(principal)
        if statuses:
            query = query.where(DocumentVersion.status.in_(statuses))
        if doc_types:
            query = query.where(DocumentVersion.doc_type.in_(doc_types))
        if search:
            like = f"%{search}%"
            query = query.where(
                DocumentVersion.document_id.ilike(like) | DocumentVersion.title.ilike(like)
            )
        with self._db.read() as session:
            total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
            rows = session.scalars(
                query.order_by(DocumentVersion.document_id, DocumentVersion.version.desc())
                .limit(limit)
                .offset(offset)
            ).all()
            return DocumentPage(items=[_view(row) for row in rows], total=total)

    def eligible(
        self,
        principal: Principal,
        *,
        as_of: date,
        document_ids: list[str] | None = None,
    ) -> list[DocumentView]:
        """Evidence that may back a claim: approved, valid at `as_of`, readable by the principal.

        Positive allow-lists only (status IN approved, ACL tag IN the principal's tags). When a
        corpus holds several approved versions valid on the same day, the highest version is the
        current one and the others are not eligible.
        """
        with self._db.read() as session:
            rows = session.scalars(self.eligible_query(principal, as_of, document_ids)).all()
            current: dict[str, DocumentVersion] = {}
            for row in rows:
                best = current.get(row.document_id)
                if best is None or row.version > best.version:
                    current[row.document_id] = row
            return [_view(row) for row in current.values()]

    @staticmethod
    def eligible_query(
        principal: Principal, as_of: date, document_ids: list[str] | None = None
    ) -> Any:
        query = select(DocumentVersion).where(
            DocumentVersion.tenant_id == principal.tenant_id,
            DocumentVersion.status.in_([DocStatus.approved.value]),
            DocumentVersion.valid_from <= as_of,
            (DocumentVersion.valid_to.is_(None)) | (DocumentVersion.valid_to > as_of),
            _acl_allows(principal),
        )
        if document_ids is not None:
            query = query.where(DocumentVersion.document_id.in_(document_ids))
        return query

    def is_eligible(
        self, principal: Principal, *, document_id: str, version: int, as_of: date
    ) -> bool:
        return any(
            doc.version == version
            for doc in self.eligible(principal, as_of=as_of, document_ids=[document_id])
        )

    # ---- writes ------------------------------------------------------------------------
    def add_version(self, session: Session, new: NewVersion, *, actor: str) -> DocumentVersion:
        """Write one version inside the caller's unit of work; the hash is computed here."""
        now = self._clock.now()
        if session.get(DocumentVersion, (new.tenant_id, new.document_id, new.version)):
            raise InvalidInput(f"document {new.document_id}@{new.version} already exists")
        row = DocumentVersion(
            tenant_id=new.tenant_id,
            document_id=new.document_id,
            version=new.version,
            doc_type=new.doc_type,
            knowledge_class=new.knowledge_class,
            status=new.status,
            valid_from=new.valid_from,
            valid_to=new.valid_to,
            language=new.language,
            title=new.title,
            body=new.body,
            content_hash=content_hash(new.body),
            customer_id=new.customer_id,
            acl=list(new.acl),
            approved_by=new.approved_by,
            approved_at=new.approved_at
            or (now if new.status in PUBLIC_STATUSES and new.approved_by else None),
            created_by=actor,
            created_at=now,
            status_changed_at=now,
        )
        session.add(row)
        session.flush()  # the ACL rows reference this row; no ORM relationship orders them
        session.add_all(
            DocumentAcl(
                tenant_id=new.tenant_id,
                document_id=new.document_id,
                version=new.version,
                tag=tag,
            )
            for tag in dict.fromkeys(new.acl)
        )
        session.flush()
        return row

    def set_acl(self, session: Session, row: DocumentVersion, acl: list[str]) -> None:
        row.acl = list(acl)
        session.execute(
            delete(DocumentAcl).where(
                DocumentAcl.tenant_id == row.tenant_id,
                DocumentAcl.document_id == row.document_id,
                DocumentAcl.version == row.version,
            )
        )
        session.add_all(
            DocumentAcl(
                tenant_id=row.tenant_id, document_id=row.document_id, version=row.version, tag=tag
            )
            for tag in dict.fromkeys(acl)
        )

    def change_status(
        self,
        principal: Principal,
        *,
        document_id: str,
        version: int,
        target: DocStatus,
        reason: str | None = None,
    ) -> DocumentView:
        require(
            principal,
            Permission.CURATE_KNOWLEDGE,
            "only a knowledge owner or admin may change a document's status",
        )
        with self._db.write() as session:
            row = self._readable(session, principal, document_id, version)
            if target == DocStatus.approved:
                # Approving also indexes the version and supersedes the old one: only the
                # publisher does all three (the importer only loads corpus data as it is).
                raise InvalidInput(
                    f"document {document_id}@{version} cannot be approved by a status change; "
                    "publish it: adopt it as a candidate, approve the candidate, then publish it "
                    "(knowledge page, or `memdesk candidates adopt`/`approve`, `memdesk publish`)"
                )
            self.transition(session, row, target=target, actor=principal.user_id, reason=reason)
            return _view(row)

    def transition(
        self,
        session: Session,
        row: DocumentVersion,
        *,
        target: DocStatus,
        actor: str,
        reason: str | None,
    ) -> None:
        source = DocStatus(row.status)
        if target not in DOC_TRANSITIONS[source]:
            raise IllegalTransition(
                subject=f"document {row.document_id}@{row.version}", source=source, target=target
            )
        if target == DocStatus.revoked and not (reason or "").strip():
            raise InvalidInput("a reason is required to revoke a document")
        if target == DocStatus.approved and row.knowledge_class == KnowledgeClass.inference.value:
            raise InvalidInput(
                f"document {row.document_id}@{row.version} is an inference; publish it as a "
                "new fact version through the candidate flow instead"
            )
        now = self._clock.now()
        row.status = target.value
        row.status_changed_at = now
        row.status_reason = reason
        if target == DocStatus.approved:
            row.approved_by = actor
            row.approved_at = now
        audit.record(
            session,
            clock=self._clock,
            tenant_id=row.tenant_id,
            actor=actor,
            action=f"document.{target.value}",
            subject_type="document",
            subject_id=f"{row.document_id}@{row.version}",
            before_ref=source.value,
            after_ref=target.value,
            detail={"reason": reason},
        )

    def supersede(
        self, session: Session, old: DocumentVersion, new: DocumentVersion, *, actor: str
    ) -> None:
        """The one transition when `new` becomes the serving version (publishing and import):
        `old` is superseded and its validity closed at the new valid_from (exclusive)."""
        self.transition(
            session,
            old,
            target=DocStatus.superseded,
            actor=actor,
            reason=f"superseded by {new.document_id}@{new.version}",
        )
        self.close_validity(old, new)

    @staticmethod
    def close_validity(old: DocumentVersion, new: DocumentVersion) -> None:
        if old.valid_from < new.valid_from and (
            old.valid_to is None or old.valid_to > new.valid_from
        ):
            old.valid_to = new.valid_from

    def settle_approved(
        self, session: Session, tenant_id: str, document_id: str, *, actor: str, today: date
    ) -> list[int]:
        """After an import: each approved version hands over to the next approved one. When the
        next one is already in effect the older one is superseded; when it is scheduled (valid
        from a later day) the older one keeps serving until then, its validity closed at that
        day, so two approved versions never apply on the same day. Returns the superseded."""
        approved = session.scalars(
            select(DocumentVersion)
            .where(
                DocumentVersion.tenant_id == tenant_id,
                DocumentVersion.document_id == document_id,
                DocumentVersion.status == DocStatus.approved.value,
            )
            .order_by(DocumentVersion.version)
            .with_for_update()
        ).all()
        superseded = []
        for older, newer in itertools.pairwise(approved):
            if newer.valid_from <= today:
                self.supersede(session, older, newer, actor=actor)
                superseded.append(older.version)
            else:
                self.close_validity(older, newer)
        return superseded

    # ---- internals ---------------------------------------------------------------------
    def _readable_query(self, principal: Principal) -> Any:
        query = select(DocumentVersion).where(
            DocumentVersion.tenant_id == principal.tenant_id, _acl_allows(principal)
        )
        if not allows(principal, Permission.CURATE_KNOWLEDGE):
            query = query.where(DocumentVersion.status.in_(PUBLIC_STATUSES))
        return query

    def _readable(
        self, session: Session, principal: Principal, document_id: str, version: int | None
    ) -> DocumentVersion:
        query = self._readable_query(principal).where(DocumentVersion.document_id == document_id)
        if version is None:
            query = query.where(DocumentVersion.status == DocStatus.approved.value).order_by(
                DocumentVersion.version.desc()
            )
        else:
            query = query.where(DocumentVersion.version == version)
        row: DocumentVersion | None = session.scalars(query.limit(1)).first()
        if row is None:
            ref = document_id if version is None else f"{document_id}@{version}"
            raise NotFound("document", ref)
        return row


def _acl_allows(principal: Principal) -> Any:
    return exists().where(
        and_(
            DocumentAcl.tenant_id == DocumentVersion.tenant_id,
            DocumentAcl.document_id == DocumentVersion.document_id,
            DocumentAcl.version == DocumentVersion.version,
            DocumentAcl.tag.in_(principal.acl_tags),
        )
    )


def _view(row: DocumentVersion) -> DocumentView:
    return DocumentView(
        tenant_id=row.tenant_id,
        document_id=row.document_id,
        version=row.version,
        doc_type=row.doc_type,
        knowledge_class=row.knowledge_class,
        status=row.status,
        valid_from=row.valid_from,
        valid_to=row.valid_to,
        language=row.language,
        title=row.title,
        body=row.body,
        content_hash=row.content_hash,
        customer_id=row.customer_id,
        acl=list(row.acl),
        approved_by=row.approved_by,
        approved_at=as_utc(row.approved_at) if row.approved_at else None,
        created_by=row.created_by,
        created_at=as_utc(row.created_at),
        status_reason=row.status_reason,
        legal_hold=row.legal_hold,
    )
