"""span-reading@1: whether each retrieved span answers a query (answers / partly / no).

Retrieval hands a reader the spans it re-verified, each with the section it was cut from and its
document's title, all as untrusted data. The reader says, per span, whether it answers the query
and what it lacks. The offline reader (services.retrieval.answerability) and a model reader
(services.llm.span_reader) answer on this same contract; retrieval decides the status from the
verdicts and never lets a reader add, drop or rewrite a citation.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from services.core.errors import MemdeskError

SCHEMA_VERSION: Literal["span-reading@1"] = "span-reading@1"

Verdict = Literal["answers", "partly", "no"]


class SpanToRead(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence_id: str = Field(description="DOC@VERSION:START-END, as retrieval cited it.")
    title: str
    text: str = Field(description="The cited span itself.")
    context: str = Field(description="The section the span was cut from (the span included).")


class SpanVerdict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence_id: str
    verdict: Verdict
    missing: list[str] = Field(
        default_factory=list, description="What the query asks that this span does not state."
    )


class SpanReading(BaseModel):
    """One reader's verdicts on the spans of one query, with what the reading cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal["span-reading@1"] = SCHEMA_VERSION
    reader: str = Field(description="offline, or the model that read the spans.")
    verdicts: list[SpanVerdict]
    model_calls: int = 0
    tokens: int = 0


class ReadingFailed(MemdeskError):
    """A model reader could not give a usable reading (unreachable, rate-limited, output refused).
    Retrieval keeps the offline judgement; what the failed attempt cost is still reported."""

    def __init__(self, reason: str, message: str, *, model_calls: int = 0, tokens: int = 0) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.model_calls = model_calls
        self.tokens = tokens
