"""The span-reading@1 seam of retrieval, with a hand-written reader: its verdicts decide which
spans answer, within what retrieval itself guarantees (only the spans it gave count, a query's
identifiers must be named, conflicts are still found); when it cannot answer, the offline
judgement stands and the result says so."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import select

from services.bootstrap import Services
from services.contracts.span_reading import (
    ReadingFailed,
    SpanReading,
    SpanToRead,
    SpanVerdict,
    Verdict,
)
from services.core.errors import MemdeskError
from services.db.models import AuditEntry
from services.retrieval.service import RetrievalService
from services.retrieval.types import RetrievalResult
from tests.support.corpus import corpus_dict, doc
from tests.support.retrieval import AS_OF, fake_services, fake_store, load, who

__all__ = ["fake_services", "fake_store"]

ANODIZE = [
    doc("SOP-ANODIZE", 1, body="耐磨用途採硬陽極處理，A6061-T6 硬陽極膜厚為 25 µm，公差 ±5 µm。"),
    doc("SOP-ANODIZE-QC", 1, body="進料檢驗：A6061-T6 硬陽極膜厚為 35 µm，低於下限者整批退回。"),
]
LEAD_TIME = "標準交期是幾天"


class FakeReader:
    """Says what `judge` says about each span; may add verdicts of its own or fail."""

    def __init__(
        self,
        judge: Callable[[SpanToRead], Verdict],
        *,
        missing: list[str] | None = None,
        extra: list[SpanVerdict] | None = None,
        fails: MemdeskError | None = None,
    ) -> None:
        self.name = "fake"
        self._judge = judge
        self._missing = missing or []
        self._extra = extra or []
        self._fails = fails
        self.calls: list[tuple[str, list[SpanToRead]]] = []

    def read(self, query: str, spans: list[SpanToRead]) -> SpanReading:
        self.calls.append((query, spans))
        if self._fails is not None:
            raise self._fails
        verdicts = [
            SpanVerdict(
                evidence_id=span.evidence_id,
                verdict=(verdict := self._judge(span)),
                missing=self._missing if verdict == "partly" else [],
            )
            for span in spans
        ]
        return SpanReading(
            reader="fake-model", verdicts=verdicts + self._extra, model_calls=1, tokens=321
        )


def only(document_id: str, verdict: Verdict) -> Callable[[SpanToRead], Verdict]:
    """`verdict` for the spans of one document, `no` for every other span."""
    return lambda span: verdict if span.evidence_id.startswith(f"{document_id}@") else "no"


@pytest.fixture
def store(fake_services: Services, tmp_path: Path) -> Services:
    corpus = corpus_dict()
    corpus["documents"] += ANODIZE
    return load(fake_services, tmp_path, corpus)


def read_by(store: Services, reader: FakeReader) -> RetrievalService:
    return RetrievalService(db=store.db, clock=store.clock, index=store.index, reader=reader)


def ask(service: RetrievalService, store: Services, query: str, user: str = "a.sales"):
    return service.retrieve(who(store, user), query, as_of=AS_OF)


def test_a_span_the_reader_says_answers_makes_the_result_ok(store: Services) -> None:
    query = "幾天可以出貨"  # 出貨 is not how the SOP says it: the offline rule finds no answer
    assert ask(store.retrieval, store, query).status == "insufficient_evidence"
    result = ask(read_by(store, FakeReader(only("SOP-LEADTIME", "answers"))), store, query)
    assert result.status == "ok"
    assert result.missing == []
    assert (result.reader, result.model_calls, result.tokens) == ("fake-model", 1, 321)


def test_spans_that_only_partly_answer_leave_it_insufficient_with_what_they_lack(
    store: Services,
) -> None:
    assert ask(store.retrieval, store, LEAD_TIME).status == "ok"
    reader = FakeReader(only("SOP-LEADTIME", "partly"), missing=["特殊檢驗時的交期"])
    result = ask(read_by(store, reader), store, LEAD_TIME)
    assert result.status == "insufficient_evidence"
    assert result.missing == ["特殊檢驗時的交期"]


def test_no_span_answering_leaves_it_insufficient(store: Services) -> None:
    result = ask(read_by(store, FakeReader(lambda span: "no")), store, LEAD_TIME)
    assert result.status == "insufficient_evidence"
    assert result.missing == [LEAD_TIME]  # insufficient always says what is missing


def test_a_verdict_on_a_span_retrieval_did_not_give_is_ignored(store: Services) -> None:
    superseded = SpanVerdict(evidence_id="SOP-LEADTIME@1:0-11", verdict="answers")
    reader = FakeReader(lambda span: "no", extra=[superseded])
    result = ask(read_by(store, reader), store, LEAD_TIME)
    assert result.status == "insufficient_evidence"
    assert superseded.evidence_id not in {e.evidence_id for e in result.evidence}


def test_an_identifier_no_evidence_names_keeps_it_insufficient_whatever_the_reader_says(
    store: Services,
) -> None:
    reader = FakeReader(lambda span: "answers")
    result = ask(read_by(store, reader), store, "PN-9999-Z 的標準交期是幾天")
    assert reader.calls  # the reader was asked, and said every span answers
    assert result.status == "insufficient_evidence"
    assert "PN-9999-Z" in result.missing


def same_judgement(a: RetrievalResult, b: RetrievalResult) -> bool:
    return (a.status, a.missing, a.evidence, a.conflicts) == (
        b.status,
        b.missing,
        b.evidence,
        b.conflicts,
    )


@pytest.mark.parametrize(
    ("user", "query"),
    [
        ("a.sales", LEAD_TIME),
        ("a.sales", "幾天可以出貨"),
        ("a.sales", "PN-9999-Z 的標準交期是幾天"),
        ("a.engineer", "A6061-T6 硬陽極膜厚要做多少？"),
    ],
)
def test_a_reader_that_fails_leaves_the_offline_judgement_and_says_so(
    store: Services, user: str, query: str
) -> None:
    reader = FakeReader(lambda span: "answers", fails=MemdeskError("connection refused"))
    result = ask(read_by(store, reader), store, query, user)
    assert reader.calls
    assert same_judgement(result, ask(store.retrieval, store, query, user))
    assert result.reader == "offline (fake unavailable: connection refused)"
    assert (result.model_calls, result.tokens) == (0, 0)


def test_a_refused_reading_still_reports_what_it_cost(store: Services) -> None:
    refused = ReadingFailed("invalid_json", "not JSON", model_calls=1, tokens=1500)
    result = ask(
        read_by(store, FakeReader(lambda span: "answers", fails=refused)), store, "幾天可以出貨"
    )
    assert result.status == "insufficient_evidence"  # the offline judgement
    assert result.reader == "offline (fake unavailable: invalid_json: not JSON)"
    assert (result.model_calls, result.tokens) == (1, 1500)


def test_conflicts_are_still_found_among_the_spans_that_answer(store: Services) -> None:
    reader = FakeReader(lambda span: "answers" if "ANODIZE" in span.evidence_id else "no")
    result = ask(read_by(store, reader), store, "A6061-T6 硬陽極膜厚要做多少？", "a.engineer")
    assert result.status == "source_conflict"
    [conflict] = result.conflicts
    assert {v.document_id for v in conflict.values} == {"SOP-ANODIZE", "SOP-ANODIZE-QC"}
    assert {v.value for v in conflict.values} == {"25 µm", "35 µm"}


def test_the_reader_is_given_the_verified_spans_with_their_sections(store: Services) -> None:
    reader = FakeReader(only("SOP-LEADTIME", "answers"))
    result = ask(read_by(store, reader), store, LEAD_TIME)
    [(query, spans)] = reader.calls
    assert query == LEAD_TIME
    assert [s.evidence_id for s in spans] == [e.evidence_id for e in result.evidence]
    for span, evidence in zip(spans, result.evidence, strict=True):
        assert (span.text, span.title) == (evidence.quote, evidence.title)
        assert span.text in span.context


def test_the_reader_is_not_asked_when_nothing_was_retrieved(store: Services) -> None:
    reader = FakeReader(lambda span: "answers")
    before_any_validity = date(2025, 6, 1)
    result = read_by(store, reader).retrieve(
        who(store, "a.sales"), LEAD_TIME, as_of=before_any_validity
    )
    assert result.evidence == [] and result.status == "insufficient_evidence"
    assert reader.calls == []
    assert (result.reader, result.model_calls) == ("offline", 0)


def test_the_audit_row_says_who_read_the_spans_and_what_it_cost(store: Services) -> None:
    ask(read_by(store, FakeReader(only("SOP-LEADTIME", "answers"))), store, LEAD_TIME)
    with store.db.read() as session:
        row = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.action == "retrieval.performed")
            .order_by(AuditEntry.id.desc())
        ).first()
        assert row is not None
        assert (row.detail["reader"], row.detail["model_calls"], row.detail["tokens"]) == (
            "fake-model",
            1,
            321,
        )
