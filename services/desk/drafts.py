"""A run's decision as a draft to read: each claim with the citations it rests on."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from services.contracts.evidence_id import parse_evidence_id
from services.retrieval.types import Evidence


class Citation(BaseModel):
    model_config = ConfigDict(frozen=True)

    evidence_id: str
    document_id: str
    version: int
    start: int
    end: int
    quote: str | None = None  # None when the run's evidence pool does not hold it
    title: str | None = None
    knowledge_class: str | None = None

    @property
    def is_history(self) -> bool:
        return self.knowledge_class == "history"

    @property
    def ref(self) -> str:
        return f"{self.document_id}@{self.version}"


class DraftClaim(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    citations: list[Citation]


class Draft(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    decision_version: int
    status: str
    proposed_next_action: str
    claims: list[DraftClaim]
    missing_fields: list[str]


def draft(run_id: str, decision: dict[str, Any], pool: list[Evidence]) -> Draft:
    by_id = {item.evidence_id: item for item in pool}
    claims = [
        DraftClaim(
            text=str(claim.get("text", "")),
            citations=[
                c
                for c in (_citation(eid, by_id) for eid in claim.get("evidence_ids", []))
                if c is not None
            ],
        )
        for claim in decision.get("claims", [])
    ]
    return Draft(
        run_id=run_id,
        decision_version=int(decision.get("state_revision", 0)),
        status=str(decision.get("status", "")),
        proposed_next_action=str(decision.get("proposed_next_action", "")),
        claims=claims,
        missing_fields=[str(f) for f in decision.get("missing_fields", [])],
    )


def _citation(evidence_id: str, pool: dict[str, Evidence]) -> Citation | None:
    item = pool.get(evidence_id)
    if item is not None:
        return Citation(
            evidence_id=item.evidence_id,
            document_id=item.document_id,
            version=item.version,
            start=item.start,
            end=item.end,
            quote=item.quote,
            title=item.title,
            knowledge_class=item.knowledge_class,
        )
    parsed = parse_evidence_id(evidence_id)
    if parsed is None:
        return None  # a decision citing an unparseable id never passed review; nothing to show
    document_id, version, start, end = parsed
    return Citation(
        evidence_id=evidence_id, document_id=document_id, version=version, start=start, end=end
    )
