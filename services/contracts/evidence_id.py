"""The evidence-id grammar `DOC@VERSION:START-END`: one citation, resolvable in the store."""

from __future__ import annotations

# A citation of an approval record (an engineer's confirmed result) rather than of a document:
# `APPROVAL-<approval id>@<decision version>:0-<length>` (services/approvals/handover.py).
APPROVAL_PREFIX = "APPROVAL-"


def approval_id_of(document_id: str) -> int | None:
    """The approval id an `APPROVAL-<id>` reference names, or None for a document id."""
    if not document_id.startswith(APPROVAL_PREFIX):
        return None
    digits = document_id[len(APPROVAL_PREFIX) :]
    return int(digits) if digits.isdigit() else None


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
