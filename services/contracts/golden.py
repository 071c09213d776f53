"""golden@1: evaluation cases for retrieval and resumed tasks (docs/formats.md)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Case(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    case_id: str = Field(min_length=1)
    user_id: str = Field(min_length=1)
    relevant: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)


class RetrievalCase(_Case):
    kind: Literal["retrieval"]
    query: str
    k: int = Field(default=5, ge=1, le=100)
    expect_status: Literal["ok", "insufficient_evidence", "source_conflict"] = "ok"


class TaskCase(_Case):
    kind: Literal["task"]
    task_id: str = Field(min_length=1)
    supplement: str | None = None
    k: int = Field(default=5, ge=1, le=100)
    expect_status: Literal["ready_for_review", "insufficient_evidence", "source_conflict"]
    must_not_request: list[str] = Field(default_factory=list)


GoldenCase = Annotated[RetrievalCase | TaskCase, Field(discriminator="kind")]


class Golden(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    schema_version: Literal["golden@1"]
    dataset_id: str
    as_of: date | None = None
    cases: list[GoldenCase]


def parse_ref(ref: str) -> tuple[str, int | None]:
    """`DOC@N` names one version, a bare `DOC` every version."""
    document_id, sep, version = ref.rpartition("@")
    if sep and document_id and version.isdigit():
        return document_id, int(version)
    return ref, None


def ref_matches(ref: str, document_id: str, version: int) -> bool:
    ref_id, ref_version = parse_ref(ref)
    return ref_id == document_id and (ref_version is None or ref_version == version)
