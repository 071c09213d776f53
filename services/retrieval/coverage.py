"""Index coverage on the query path: an answer is never `ok` while an approved, eligible version
of a document that bears on the question has no chunks in the active index (a deferred sync, a
publication that lost its chunks). `memdesk index health` reports the same lag for operators."""

from __future__ import annotations

from sqlalchemy import select

from services.contracts.evidence_id import parse_evidence_id
from services.db.engine import Database
from services.db.models import DocumentVersion
from services.language import tokens as text_analysis


def unsearchable_relevant(
    db: Database, *, tenant_id: str, not_indexed: list[str], query: str
) -> list[str]:
    """Of the eligible versions the index lacks (`DOC@VERSION`), those whose title and body
    hold at least half of the query's key units: what the answer may be missing."""
    wanted = text_analysis.key_units(query)
    if not not_indexed or not wanted:
        return []
    refs: dict[tuple[str, int], str] = {}
    for ref in not_indexed:
        parsed = parse_evidence_id(f"{ref}:0-0")
        if parsed is not None:
            refs[(parsed[0], parsed[1])] = ref
    found = []
    with db.read() as session:
        rows = session.execute(
            select(
                DocumentVersion.document_id,
                DocumentVersion.version,
                DocumentVersion.title,
                DocumentVersion.body,
            ).where(
                DocumentVersion.tenant_id == tenant_id,
                DocumentVersion.document_id.in_(sorted({doc for doc, _ in refs})),
            )
        )
        for document_id, version, title, body in rows:
            key = (str(document_id), int(version))
            shared = wanted & text_analysis.key_units(f"{title}\n{body}")
            if key in refs and 2 * len(shared) >= len(wanted):
                found.append(refs[key])
    return sorted(found)
