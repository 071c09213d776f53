"""What retrieval returns: evidence with citations that re-slice the authoritative body."""

from __future__ import annotations

from datetime import date
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from services.contracts.span_reading import SpanReading, SpanToRead
from services.core.principals import Principal

RetrievalStatus = Literal["ok", "insufficient_evidence", "source_conflict"]


class Evidence(BaseModel):
    """One re-verified citation. `rank` orders results; it is not a confidence."""

    model_config = ConfigDict(frozen=True)

    evidence_id: str
    document_id: str
    version: int
    chunk_id: str
    knowledge_class: str
    doc_type: str
    title: str
    start: int
    end: int
    quote: str
    content_hash: str
    customer_id: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    rank: int = 0

    @property
    def is_history(self) -> bool:
        return self.knowledge_class == "history"

    @property
    def ref(self) -> str:
        return f"{self.document_id}@{self.version}"


class ConflictValue(BaseModel):
    model_config = ConfigDict(frozen=True)

    value: str
    evidence_id: str
    document_id: str
    version: int
    quote: str


class Conflict(BaseModel):
    """Authoritative evidence that disagrees on the same fact, shown side by side."""

    model_config = ConfigDict(frozen=True)

    fact: str
    unit: str | None = None
    values: list[ConflictValue]


class RetrievalResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    status: RetrievalStatus
    query: str
    as_of: date
    evidence: list[Evidence] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    dropped: dict[str, int] = Field(
        default_factory=dict, description="Hits removed by re-verification, by reason."
    )
    index_version: str | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
    reader: str = Field(
        default="offline", description="Who judged whether the spans answer: offline or a model."
    )
    model_calls: int = 0
    tokens: int = 0


class Retriever(Protocol):
    """Governed retrieval as its users see it: only evidence the principal may use, re-verified."""

    def retrieve(
        self,
        principal: Principal,
        query: str,
        *,
        k: int = 5,
        as_of: date | None = None,
        customer_id: str | None = None,
    ) -> RetrievalResult: ...

    def resolve(
        self, principal: Principal, evidence_id: str, *, as_of: date | None = None
    ) -> Evidence: ...

    def units(
        self, principal: Principal, document_id: str, version: int, *, as_of: date | None = None
    ) -> list[Evidence]: ...


class SpanReader(Protocol):
    """Judges whether retrieved spans answer a query (span-reading@1). A model reader raises a
    MemdeskError when it cannot answer (unreachable, rate-limited, unusable output); retrieval
    then keeps the offline judgement and says so (`reader`)."""

    name: str

    def read(self, query: str, spans: list[SpanToRead]) -> SpanReading: ...
