"""The SQL side of retrieval: what a principal may search now, and re-verifying every hit."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from services.contracts.corpus import DocStatus
from services.db.models import DocumentVersion, IndexChunk
from services.knowledge import KnowledgeStore, content_hash
from services.principals import Principal


@dataclass(frozen=True)
class EligibleChunk:
    """An indexed chunk of the current, approved, valid, readable version of a document."""

    chunk_id: str
    document_id: str
    version: int
    start: int
    end: int
    indexed_hash: str
    title: str
    knowledge_class: str
    doc_type: str
    customer_id: str | None


@dataclass(frozen=True)
class Eligibility:
    chunks: list[EligibleChunk]
    not_indexed: list[str]  # current eligible versions the active index does not hold yet
    tenant_chunk_ids: frozenset[str]  # every chunk of the tenant in the active index


def eligible_chunks(
    session: Session, principal: Principal, *, as_of: date, index_version: str
) -> Eligibility:
    """Positive allow-lists only (KnowledgeStore.eligible_query), highest eligible version wins."""
    query = KnowledgeStore.eligible_query(principal, as_of).with_only_columns(
        DocumentVersion.document_id,
        DocumentVersion.version,
        DocumentVersion.content_hash,
        DocumentVersion.title,
        DocumentVersion.knowledge_class,
        DocumentVersion.doc_type,
        DocumentVersion.customer_id,
    )
    current: dict[str, tuple[int, str, str, str, str, str | None]] = {}
    for doc_id, version, chash, title, kclass, doc_type, customer in session.execute(query):
        if doc_id not in current or version > current[doc_id][0]:
            current[doc_id] = (version, chash, title, kclass, doc_type, customer)
    chunks: list[EligibleChunk] = []
    indexed_docs: set[str] = set()
    tenant_ids: set[str] = set()
    for chunk_id, doc_id, version, start, end, chash in session.execute(
        select(
            IndexChunk.chunk_id,
            IndexChunk.document_id,
            IndexChunk.version,
            IndexChunk.start,
            IndexChunk.end,
            IndexChunk.content_hash,
        ).where(
            IndexChunk.index_version == index_version,
            IndexChunk.tenant_id == principal.tenant_id,
        )
    ):
        tenant_ids.add(chunk_id)
        doc = current.get(doc_id)
        if doc is None or doc[0] != version:
            continue
        indexed_docs.add(doc_id)
        chunks.append(
            EligibleChunk(
                chunk_id=chunk_id,
                document_id=doc_id,
                version=version,
                start=start,
                end=end,
                indexed_hash=chash,
                title=doc[2],
                knowledge_class=doc[3],
                doc_type=doc[4],
                customer_id=doc[5],
            )
        )
    not_indexed = sorted(f"{d}@{v[0]}" for d, v in current.items() if d not in indexed_docs)
    return Eligibility(
        chunks=chunks, not_indexed=not_indexed, tenant_chunk_ids=frozenset(tenant_ids)
    )


@dataclass(frozen=True)
class Verified:
    """The authoritative row a hit was checked against (body included)."""

    document_id: str
    version: int
    title: str
    body: str
    content_hash: str
    knowledge_class: str
    doc_type: str
    customer_id: str | None
    valid_from: date
    valid_to: date | None


def current_versions(
    session: Session, principal: Principal, *, as_of: date, document_ids: list[str]
) -> dict[str, Verified]:
    """Re-read from SQL: the current eligible version of each document, with its body."""
    current: dict[str, DocumentVersion] = {}
    for row in session.scalars(KnowledgeStore.eligible_query(principal, as_of, document_ids)):
        if row.document_id not in current or row.version > current[row.document_id].version:
            current[row.document_id] = row
    return {
        doc_id: Verified(
            document_id=row.document_id,
            version=row.version,
            title=row.title,
            body=row.body,
            content_hash=row.content_hash,
            knowledge_class=row.knowledge_class,
            doc_type=row.doc_type,
            customer_id=row.customer_id,
            valid_from=row.valid_from,
            valid_to=row.valid_to,
        )
        for doc_id, row in current.items()
    }


def check_citation(
    current: Verified | None,
    *,
    version: int,
    start: int,
    end: int,
    expected_text: str | None,
    indexed_hash: str | None,
) -> str | None:
    """None when the citation holds; otherwise the reason it was dropped."""
    if current is None:
        return "not_eligible"
    if current.version != version:
        return "not_current_version"
    if content_hash(current.body) != current.content_hash:
        return "content_hash_mismatch"
    if indexed_hash is not None and indexed_hash != current.content_hash:
        return "stale_index_hash"
    if not (0 <= start < end <= len(current.body)):
        return "offsets_out_of_range"
    if expected_text is not None and current.body[start:end] != expected_text:
        return "quote_mismatch"
    return None


def why_not_eligible(
    session: Session, principal: Principal, *, as_of: date, document_id: str, version: int
) -> str:
    """A precise reason for the drop counters (another tenant's row reads as missing)."""
    row = session.get(DocumentVersion, (principal.tenant_id, document_id, version))
    if row is None:
        return "missing"
    if row.status != DocStatus.approved.value:
        return f"status_{row.status}"
    if not (row.valid_from <= as_of and (row.valid_to is None or as_of < row.valid_to)):
        return "not_valid_at_as_of"
    if not principal.can_read(tenant_id=row.tenant_id, acl=row.acl):
        return "not_readable"
    return "not_current_version"
