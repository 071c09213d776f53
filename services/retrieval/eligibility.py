"""The SQL side of retrieval: what a principal may search now, and re-verifying every hit.

What a principal may search is read from SQL, or taken from a memo of that same read made at
the same knowledge generation: a counter per tenant that database triggers move in the same
transaction as every insert, update or delete of a document version or an ACL row
(migrations/versions/retrieval_0003_knowledge_generation.py), whatever code or person makes it.
The counter is read in the query that reads the index generation, before the eligible set, so
a memo is never older than the counter it is filed under. Every hit is then re-verified against
fresh rows of its document (`current_versions`, `check_citation`): a memo only decides which
chunks are ranked, never what is served."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import and_, bindparam, column, exists, or_, select, table
from sqlalchemy.orm import Session

from services.contracts.corpus import DocStatus
from services.core.principals import Principal
from services.db.models import (
    DocumentAcl,
    DocumentVersion,
    IndexChunk,
    IndexPointer,
    IndexVersion,
)
from services.db.models_retrieval import IndexTenantState
from services.records.knowledge import content_hash


@dataclass(frozen=True, slots=True)
class ActiveIndex:
    index_version: str
    collection: str
    embedding_model: str
    dimension: int


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """One chunk of the tenant's active index, as SQL records it."""

    chunk_id: str
    document_id: str
    version: int
    start: int
    end: int
    indexed_hash: str


class ChunkRows(Mapping[str, ChunkRow]):
    """A chunk list's rows by chunk id, held as columns and made into a `ChunkRow` when looked
    up: a query reads a few of a tenant's rows, so none is built for the others."""

    def __init__(
        self,
        *,
        ids: Sequence[str],
        document_ids: Sequence[str],
        versions: Sequence[int],
        starts: Sequence[int],
        ends: Sequence[int],
        hashes: Sequence[str],
    ) -> None:
        self.ids = tuple(ids)
        self.document_ids, self.hashes = list(document_ids), list(hashes)
        self.versions = np.asarray(versions, dtype=np.int64)
        self.starts = np.asarray(starts, dtype=np.int64)
        self.ends = np.asarray(ends, dtype=np.int64)
        self._at = {chunk_id: i for i, chunk_id in enumerate(self.ids)}

    @classmethod
    def of(cls, rows: Iterable[ChunkRow]) -> ChunkRows:
        listed = list(rows)
        return cls(
            ids=[r.chunk_id for r in listed],
            document_ids=[r.document_id for r in listed],
            versions=[r.version for r in listed],
            starts=[r.start for r in listed],
            ends=[r.end for r in listed],
            hashes=[r.indexed_hash for r in listed],
        )

    def __getitem__(self, chunk_id: str) -> ChunkRow:
        i = self._at[chunk_id]
        return ChunkRow(
            chunk_id,
            self.document_ids[i],
            int(self.versions[i]),
            int(self.starts[i]),
            int(self.ends[i]),
            self.hashes[i],
        )

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class ChunkTable:
    """A tenant's chunks in one index version at one generation (see IndexTenantState)."""

    generation: int
    rows: Mapping[str, ChunkRow]  # held as ChunkRows, whatever mapping is given
    # The same chunks as arrays, in the order of `rows`, so a principal's chunks are selected
    # without a Python pass over the tenant: each chunk's document (an index into `documents`)
    # and version.
    ids: tuple[str, ...] = field(init=False)
    documents: dict[str, int] = field(init=False)
    doc_index: npt.NDArray[np.int32] = field(init=False)
    versions: npt.NDArray[np.int64] = field(init=False)

    def __post_init__(self) -> None:
        rows = self.rows if isinstance(self.rows, ChunkRows) else ChunkRows.of(self.rows.values())
        # Each document numbered in order of first appearance (dict.fromkeys keeps it), then
        # every row's number read by C-level lookups instead of a Python loop per row.
        documents = {d: i for i, d in enumerate(dict.fromkeys(rows.document_ids))}
        doc_index = np.fromiter(
            map(documents.__getitem__, rows.document_ids),
            dtype=np.int32,
            count=len(rows.document_ids),
        )
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "ids", rows.ids)
        object.__setattr__(self, "documents", documents)
        object.__setattr__(self, "doc_index", doc_index)
        object.__setattr__(self, "versions", rows.versions)


@dataclass(frozen=True)
class Eligibility:
    """The current, approved, valid, readable versions' chunks: positions in the table."""

    table: ChunkTable
    selected: npt.NDArray[np.int64]
    not_indexed: list[str]  # eligible versions the active index does not hold yet

    @cached_property
    def chunks(self) -> list[ChunkRow]:
        return [self.table.rows[self.table.ids[int(i)]] for i in self.selected]


# Written by triggers only (see the module docstring); no model: no code writes it.
_KNOWLEDGE = table("knowledge_generations", column("tenant_id"), column("generation"))


@dataclass(frozen=True, slots=True)
class IndexState:
    """The active index of a space, the tenant's chunk-list generation in it and the tenant's
    knowledge generation, as one query read them."""

    active: ActiveIndex
    generation: int
    knowledge: int


_STATE = (
    select(
        IndexVersion.index_version,
        IndexVersion.collection,
        IndexVersion.embedding_model,
        IndexVersion.dimension,
        IndexTenantState.generation,
        select(_KNOWLEDGE.c.generation)
        .where(_KNOWLEDGE.c.tenant_id == bindparam("tenant_id"))
        .scalar_subquery(),
    )
    .join(IndexPointer, IndexPointer.index_version == IndexVersion.index_version)
    .outerjoin(
        IndexTenantState,
        and_(
            IndexTenantState.index_version == IndexVersion.index_version,
            IndexTenantState.tenant_id == bindparam("tenant_id"),
        ),
    )
    .where(IndexPointer.name == bindparam("space"))
)


def index_state(session: Session, space: str, tenant_id: str) -> IndexState | None:
    """The active version of an embedding space with the tenant's two generations (one query)."""
    row = session.connection().execute(_STATE, {"space": space, "tenant_id": tenant_id}).first()
    if row is None:
        return None
    return IndexState(ActiveIndex(*row[:4]), int(row[4] or 0), int(row[5] or 0))


def active_index(session: Session, space: str, tenant_id: str) -> tuple[ActiveIndex, int] | None:
    """The active version of an embedding space and the tenant's generation in it (one query)."""
    state = index_state(session, space, tenant_id)
    return None if state is None else (state.active, state.generation)


def load_chunk_table(
    session: Session, index_version: str, tenant_id: str, at_generation: int
) -> ChunkTable:
    rows = (
        session.connection()
        .execute(
            select(
                IndexChunk.chunk_id,
                IndexChunk.document_id,
                IndexChunk.version,
                IndexChunk.start,
                IndexChunk.end,
                IndexChunk.content_hash,
            ).where(IndexChunk.index_version == index_version, IndexChunk.tenant_id == tenant_id)
        )
        .all()
    )
    # One transposition of the rows instead of a pass per column (30k rows: ~25 ms less).
    ids, document_ids, versions, starts, ends, hashes = (
        zip(*rows, strict=True) if rows else ((), (), (), (), (), ())
    )
    chunks = ChunkRows(
        ids=ids,
        document_ids=document_ids,
        versions=versions,
        starts=starts,
        ends=ends,
        hashes=hashes,
    )
    return ChunkTable(generation=at_generation, rows=chunks)


def _eligible_where() -> tuple[Any, ...]:
    """KnowledgeStore.eligible_query's conditions with bind parameters, built once.

    Same rule, positive allow-lists only: the principal's tenant, status IN ('approved'),
    valid at as_of, and an ACL row whose tag is IN the principal's tags.
    """
    acl = exists().where(
        and_(
            DocumentAcl.tenant_id == DocumentVersion.tenant_id,
            DocumentAcl.document_id == DocumentVersion.document_id,
            DocumentAcl.version == DocumentVersion.version,
            DocumentAcl.tag.in_(bindparam("tags", expanding=True)),
        )
    )
    return (
        DocumentVersion.tenant_id == bindparam("tenant_id"),
        DocumentVersion.status.in_([DocStatus.approved.value]),
        DocumentVersion.valid_from <= bindparam("as_of"),
        or_(DocumentVersion.valid_to.is_(None), DocumentVersion.valid_to > bindparam("as_of")),
        acl,
    )


_ELIGIBLE_VERSIONS = select(DocumentVersion.document_id, DocumentVersion.version).where(
    *_eligible_where()
)
_ELIGIBLE_ROWS = select(
    DocumentVersion.document_id,
    DocumentVersion.version,
    DocumentVersion.title,
    DocumentVersion.body,
    DocumentVersion.content_hash,
    DocumentVersion.knowledge_class,
    DocumentVersion.doc_type,
    DocumentVersion.customer_id,
    DocumentVersion.valid_from,
    DocumentVersion.valid_to,
).where(*_eligible_where(), DocumentVersion.document_id.in_(bindparam("ids", expanding=True)))


def _params(principal: Principal, as_of: date) -> dict[str, Any]:
    return {"tenant_id": principal.tenant_id, "as_of": as_of, "tags": list(principal.acl_tags)}


def eligibility_key(principal: Principal, as_of: date, knowledge: int) -> Hashable:
    """Everything `eligible_documents` depends on: the tenant, the principal's ACL tags, the
    day and the tenant's knowledge generation (which moves with every row the query reads)."""
    return (principal.tenant_id, tuple(sorted(principal.acl_tags)), as_of, knowledge)


def eligible_documents(session: Session, principal: Principal, as_of: date) -> dict[str, int]:
    """document_id → its current eligible version, read from SQL.

    When several approved versions are valid on `as_of`, the highest one is current and the
    others are not eligible (as in KnowledgeStore.eligible).
    """
    current: dict[str, int] = {}
    # Fetched at once: iterating the result fetches row by row, several times slower.
    rows = session.connection().execute(_ELIGIBLE_VERSIONS, _params(principal, as_of)).all()
    for document_id, version in rows:
        if version > current.get(document_id, 0):
            current[document_id] = version
    return current


def select_eligible(table: ChunkTable, documents: Mapping[str, int]) -> Eligibility:
    """The chunks whose version is the document's eligible one (in table order)."""
    wanted = np.full(len(table.documents), -1, dtype=np.int64)  # -1: no eligible version
    for document_id, version in documents.items():
        at = table.documents.get(document_id)
        if at is not None:
            wanted[at] = version
    selected = np.flatnonzero(wanted[table.doc_index] == table.versions)
    indexed = np.zeros(len(table.documents), dtype=bool)
    indexed[table.doc_index[selected]] = True
    not_indexed = sorted(
        f"{d}@{v}"
        for d, v in documents.items()
        if (at := table.documents.get(d)) is None or not indexed[at]
    )
    return Eligibility(table=table, selected=selected, not_indexed=not_indexed)


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
    if not document_ids:
        return {}
    current: dict[str, Verified] = {}
    rows = (
        session.connection()
        .execute(_ELIGIBLE_ROWS, {**_params(principal, as_of), "ids": document_ids})
        .all()
    )
    for row in rows:
        verified = Verified(**row._mapping)
        if verified.version > getattr(current.get(verified.document_id), "version", 0):
            current[verified.document_id] = verified
    return current


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
