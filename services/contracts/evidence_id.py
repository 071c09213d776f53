"""The evidence-id grammar `DOC@VERSION:START-END`: one citation, resolvable in the store."""

from __future__ import annotations


def evidence_id_for(document_id: str, version: int, start: int, end: int) -> str:
    """Stable and resolvable later: the document version and the character span it quotes."""
    return f"{document_id}@{version}:{start}-{end}"


def parse_evidence_id(evidence_id: str) -> tuple[str, int, int, int] | None:
    head, sep, span = evidence_id.rpartition(":")
    document_id, at, version = head.rpartition("@")
    start, dash, end = span.partition("-")
    if not (sep and at and dash and version.isdigit() and start.isdigit() and end.isdigit()):
        return None
    return document_id, int(version), int(start), int(end)
