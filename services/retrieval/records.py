"""What one indexed chunk carries: ids, offsets and the little metadata Chroma stores."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from services.contracts.corpus import DocStatus
from services.db.models import DocumentVersion
from services.retrieval.chunker import Chunk, chunk_text
from services.retrieval.embedders import Embedder

COLLECTION_PREFIX = "md-"
# What Chroma stores per chunk is what the product reads back or filters on there, and no more:
# the ids purge filters on, the content hash and index version verification compares, and the
# signature a sync's drift check compares (it covers every field a re-import can change, the
# title that is part of the embedded text included). Governance (status, validity, ACL) is
# decided in SQL and never read from Chroma, and every key Chroma indexes costs ingest time.
# Texts are not stored there either (SQL holds them; Chroma's full-text index would cost more
# than the vectors).
DOC_META_FIELDS = ("content_hash", "signature")


@dataclass(frozen=True)
class IndexedDocument:
    """One approved document version as the index sees it (body included, for chunking)."""

    tenant_id: str
    document_id: str
    version: int
    content_hash: str
    knowledge_class: str
    doc_type: str
    status: str
    valid_from: date
    valid_to: date | None
    customer_id: str | None
    acl: tuple[str, ...]
    title: str
    body: str

    @property
    def key(self) -> tuple[str, int]:
        return self.document_id, self.version

    def metadata(self) -> dict[str, Any]:
        return {
            "tenant_id": self.tenant_id,
            "document_id": self.document_id,
            "document_version": self.version,
            "content_hash": self.content_hash,
            "signature": self.signature,
        }

    @property
    def signature(self) -> str:
        """Changes whenever anything the index depends on changes (title, class, ACL, ...)."""
        fields = [
            self.content_hash,
            self.knowledge_class,
            self.doc_type,
            self.status,
            self.valid_from.isoformat(),
            self.valid_to.isoformat() if self.valid_to else "",
            self.customer_id or "",
            ",".join(sorted(self.acl)),
            self.title,
        ]
        return hashlib.sha1("\x1f".join(fields).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ChunkRecord:
    chunk_id: str
    document: IndexedDocument
    chunk: Chunk

    @property
    def embed_text(self) -> str:
        # The title gives a short chunk its context (which SOP, which customer) for both signals.
        return f"{self.document.title}\n{self.chunk.text}"

    def metadata(self, *, index_version: str) -> dict[str, Any]:
        # The chunk id is the record's id; model, dimension and chunker are the collection's.
        return {**self.document.metadata(), "index_version": index_version}


# The chunk-id grammar is `TENANT/DOCUMENT@VERSION#ORDINAL`. Its separators (and `%`, the
# escape itself) are percent-escaped inside the two ids, so two different (tenant, document)
# pairs can never produce one chunk id: tenant `A/B` with document `C` is `A%2FB/C@1#0`,
# tenant `A` with document `B/C` is `A/B%2FC@1#0`. Ids valid under services/contracts/ids.py
# contain none of these characters, so their chunk ids read as before.
_ESCAPES = {"%": "%25", "/": "%2F", "@": "%40", "#": "%23"}


def _escaped(part: str) -> str:
    return "".join(_ESCAPES.get(char, char) for char in part)


def chunk_id_for(tenant_id: str, document_id: str, version: int, ordinal: int) -> str:
    return f"{chunk_prefix(tenant_id, document_id, version)}{ordinal}"


def next_chunk_id(chunk_id: str, step: int) -> str | None:
    """The id of the chunk `step` places after (before, when negative) this one in its document
    version, as `chunk_id_for` writes it; None before the first or for an id of another form."""
    prefix, mark, ordinal = chunk_id.rpartition("#")
    if not mark or not ordinal.isdigit() or int(ordinal) + step < 0:
        return None
    return f"{prefix}#{int(ordinal) + step}"


def chunk_prefix(tenant_id: str, document_id: str, version: int | None = None) -> str:
    """What every chunk id of the document (or of one version) starts with, and no other."""
    prefix = f"{_escaped(tenant_id)}/{_escaped(document_id)}@"
    return prefix if version is None else f"{prefix}{version}#"


def chunk_records(document: IndexedDocument) -> list[ChunkRecord]:
    return [
        ChunkRecord(
            chunk_id=chunk_id_for(
                document.tenant_id, document.document_id, document.version, chunk.ordinal
            ),
            document=document,
            chunk=chunk,
        )
        for chunk in chunk_text(document.body)
    ]


def indexable_documents(
    session: Session, *, tenant_ids: list[str] | None = None
) -> list[IndexedDocument]:
    """Every approved version (any validity window): validity and ACL are checked per query.

    Drafts, pending, rejected, superseded and revoked versions are never indexed at all.
    """
    query = select(DocumentVersion).where(DocumentVersion.status.in_([DocStatus.approved.value]))
    if tenant_ids is not None:
        query = query.where(DocumentVersion.tenant_id.in_(tenant_ids))
    query = query.order_by(
        DocumentVersion.tenant_id, DocumentVersion.document_id, DocumentVersion.version
    )
    return [to_indexed(row) for row in session.scalars(query)]


def to_indexed(row: DocumentVersion) -> IndexedDocument:
    return IndexedDocument(
        tenant_id=row.tenant_id,
        document_id=row.document_id,
        version=row.version,
        content_hash=row.content_hash,
        knowledge_class=row.knowledge_class,
        doc_type=row.doc_type,
        status=row.status,
        valid_from=row.valid_from,
        valid_to=row.valid_to,
        customer_id=row.customer_id,
        acl=tuple(row.acl),
        title=row.title,
        body=row.body,
    )


def collection_name(embedder: Embedder, index_version: str) -> str:
    """Model, dimension and index version in the name, so vector spaces never share one."""
    model = re.sub(r"[^A-Za-z0-9]+", "-", embedder.name).strip("-").lower()
    return f"{COLLECTION_PREFIX}{model}-{embedder.dimension}-{index_version}-{secrets.token_hex(3)}"


def space_key(embedder: Embedder) -> str:
    return f"{embedder.name}/{embedder.dimension}"[:40]
