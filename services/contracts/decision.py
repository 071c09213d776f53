"""memory-decision@1: what the Analysis agent proposes, validated before anyone sees it."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class DecisionStatus(StrEnum):
    ready_for_review = "ready_for_review"
    insufficient_evidence = "insufficient_evidence"
    source_conflict = "source_conflict"


class NextAction(StrEnum):
    human_review = "human_review"
    request_information = "request_information"


class Claim(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1)
    evidence_ids: list[str] = Field(min_length=1)


class MemoryDecision(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(min_length=1)
    state_revision: int = Field(ge=1)
    status: DecisionStatus
    claims: list[Claim]
    missing_fields: list[str]
    proposed_next_action: NextAction
