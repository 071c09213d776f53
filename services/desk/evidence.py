"""One citation beside its original document: the span, and every check a reviewer needs."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict

from services.desk.highlight import Segment, segments
from services.records.knowledge import DocumentView, content_hash


class VersionLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    version: int
    status: str
    valid_from: date
    valid_to: date | None
    cited: bool


class EvidenceView(BaseModel):
    model_config = ConfigDict(frozen=True)

    evidence_id: str
    document: DocumentView
    start: int
    end: int
    segments: list[Segment]
    span_ok: bool  # the offsets lie inside the body
    quote: str  # what the body holds at the offsets now
    quote_matches: bool | None  # equals the quote the run recorded (None: no recorded quote)
    hash_ok: bool  # the stored body still hashes to its content_hash
    cited_hash_matches: bool | None  # the hash the run recorded is the document's (None: unknown)
    valid_on: date
    valid: bool
    eligible: bool  # may back a claim today: approved, valid, readable, the current version
    is_history: bool
    versions: list[VersionLine]


def evidence_view(
    *,
    evidence_id: str,
    document: DocumentView,
    start: int,
    end: int,
    recorded_quote: str | None,
    recorded_hash: str | None,
    as_of: date,
    eligible: bool,
    versions: list[DocumentView],
) -> EvidenceView:
    body = document.body
    span_ok = 0 <= start <= end <= len(body)
    return EvidenceView(
        evidence_id=evidence_id,
        document=document,
        start=start,
        end=end,
        segments=segments(body, [(start, end)] if span_ok else []),
        span_ok=span_ok,
        quote=body[start:end] if span_ok else "",
        quote_matches=None
        if recorded_quote is None
        else span_ok and body[start:end] == recorded_quote,
        hash_ok=content_hash(body) == document.content_hash,
        cited_hash_matches=None
        if recorded_hash is None
        else recorded_hash == document.content_hash,
        valid_on=as_of,
        valid=document.valid_at(as_of),
        eligible=eligible,
        is_history=document.knowledge_class == "history",
        versions=[
            VersionLine(
                version=v.version,
                status=v.status,
                valid_from=v.valid_from,
                valid_to=v.valid_to,
                cited=v.version == document.version,
            )
            for v in versions
        ],
    )
