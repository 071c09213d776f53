"""The Gemini span reader (span-reading@1): one bounded structured call judges a query's spans.

The model gets the registered `span-reader` prompt as its system instruction and the query with
every span (title, text, the section it was cut from) as delimited untrusted data. Its response
schema lets it name only the evidence ids it was given and say only answers / partly / no. What
comes back is used only if it finished normally and passes our own strict validation with one
verdict for each given span and nothing else; otherwise the reading is refused (ReadingFailed)
and retrieval keeps its offline judgement. Nothing is repaired.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from services.contracts.span_reading import (
    ReadingFailed,
    SpanReading,
    SpanToRead,
    SpanVerdict,
    Verdict,
)
from services.llm.gemini import GeminiCaller
from services.llm.parsing import parse_strict
from services.llm.ports import AnalysisRejected, ModelUsage, TransientFailure
from services.llm.prompts import PromptSpec

# A missing item is a short phrase of the query; a long one is the model writing something else.
MAX_MISSING_ITEMS = 8
MAX_MISSING_CHARS = 120


class _WireVerdict(BaseModel):
    evidence_id: str
    verdict: Literal["answers", "partly", "no"]
    missing: list[str]


class _WireReading(BaseModel):
    """The verdicts in the plain subset Gemini's response_schema understands."""

    verdicts: list[_WireVerdict]


class _StrictVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    evidence_id: str
    verdict: Verdict
    missing: Annotated[
        list[Annotated[str, StringConstraints(min_length=1, max_length=MAX_MISSING_CHARS)]],
        Field(max_length=MAX_MISSING_ITEMS),
    ] = []


class _StrictReading(BaseModel):
    """What we accept back: verdicts and nothing else (our validation, not the model's)."""

    model_config = ConfigDict(extra="forbid")

    verdicts: list[_StrictVerdict]


def reading_only(evidence_ids: list[str]) -> type[BaseModel]:
    """The wire reading whose verdicts may name only the given spans, one verdict per span:
    `evidence_id` becomes an enum in the response schema (as analysis's `citing_only` does for
    claims) and the list is exactly as long as the spans given."""
    members = {f"e{index}": eid for index, eid in enumerate(evidence_ids)}
    given = Enum("GivenSpan", members, type=str)  # type: ignore[misc]
    verdict = create_model("WireVerdict", __base__=_WireVerdict, evidence_id=(given, ...))
    count = len(evidence_ids)
    return create_model(
        "WireReading",
        __base__=_WireReading,
        verdicts=(list[verdict], Field(min_length=count, max_length=count)),
    )


class GeminiSpanReader:
    """services.retrieval.types.SpanReader, structurally (llm never imports retrieval)."""

    def __init__(self, *, caller: GeminiCaller, prompt: PromptSpec) -> None:
        self._caller = caller
        self._prompt = prompt
        self.name = f"gemini:{caller.binding.model}"

    def read(self, query: str, spans: list[SpanToRead]) -> SpanReading:
        if not spans:
            return SpanReading(reader=f"{self.name} {self._prompt.ref}", verdicts=[])
        given = [span.evidence_id for span in spans]
        try:
            text, usage = self._caller.generate(
                system=self._prompt.system,
                contents=self._prompt.render_input(
                    {"query": query, "spans": [span.model_dump(mode="json") for span in spans]}
                ),
                schema=reading_only(given),
            )
            answer: _StrictReading = parse_strict(text, _StrictReading, usage)
            verdicts = _one_verdict_per_span(answer, given, usage, text)
        except (AnalysisRejected, TransientFailure) as exc:
            raise ReadingFailed(
                exc.reason, str(exc), model_calls=exc.usage.model_calls, tokens=_tokens(exc.usage)
            ) from exc
        return SpanReading(
            reader=f"{self.name} {self._prompt.ref}",  # which model, read with which prompt
            verdicts=verdicts,
            model_calls=usage.model_calls,
            tokens=_tokens(usage),
        )


def _one_verdict_per_span(
    answer: _StrictReading, given: list[str], usage: ModelUsage, text: str
) -> list[SpanVerdict]:
    """Exactly the given spans, each once, in the order given; anything else refuses the
    reading (a verdict for an id we did not give means the model read something else)."""
    by_id: dict[str, _StrictVerdict] = {}
    for verdict in answer.verdicts:
        if verdict.evidence_id not in given:
            raise _refused(
                "unknown_evidence",
                f"a verdict names {verdict.evidence_id!r}, which was not given",
                usage,
                text,
            )
        if verdict.evidence_id in by_id:
            raise _refused(
                "duplicate_verdict", f"two verdicts for {verdict.evidence_id}", usage, text
            )
        by_id[verdict.evidence_id] = verdict
    absent = [eid for eid in given if eid not in by_id]
    if absent:
        raise _refused("missing_verdict", f"no verdict for {', '.join(absent)}", usage, text)
    return [
        SpanVerdict(
            evidence_id=eid,
            verdict=by_id[eid].verdict,
            missing=list(by_id[eid].missing),
        )
        for eid in given
    ]


def _refused(reason: str, message: str, usage: ModelUsage, text: str) -> AnalysisRejected:
    return AnalysisRejected(
        reason, f"the model's reading is refused: {message}", usage=usage, raw=text[:4000]
    )


def _tokens(usage: ModelUsage) -> int:
    return usage.tokens_in + usage.tokens_out
