"""Span narrowing across scripts ranks a chunk's candidate spans by the embedding; their vectors
do not depend on the question, so a chunk's spans are embedded once, not once per question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.bootstrap import Services
from tests.support.corpus import corpus_dict, doc, write_corpus
from tests.support.retrieval import AS_OF, who

ENGLISH_SOP = doc(
    "SOP-EXPORT-EN",
    1,
    language="en",
    title="Export packing",
    body="Export packing.\nUse fumigated wooden crates for sea freight.\n"
    "Each crate carries an ISPM 15 mark.\nPallets are wrapped twice.",
)


def test_a_chunks_spans_are_embedded_once_across_questions(
    services: Services, tmp_path: Path
) -> None:
    corpus = corpus_dict()
    corpus["documents"].append(ENGLISH_SOP)
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus))
    services.index.sync()
    embedder = services.index.embedder
    embedded: list[str] = []
    original = embedder.embed

    def counting(texts: Any) -> Any:
        embedded.extend(texts)
        return original(texts)

    embedder.embed = counting  # type: ignore[method-assign]
    sales = who(services, "a.sales")
    first = services.retrieval.retrieve(sales, "出口木箱要燻蒸嗎？", k=5, as_of=AS_OF)
    spans_once = [t for t in embedded if "crate" in t]
    assert spans_once, "the English SOP's spans were ranked by the embedding"
    again = services.retrieval.retrieve(sales, "海運出口的木箱有什麼標記？", k=5, as_of=AS_OF)
    assert [t for t in embedded if "crate" in t] == spans_once  # not embedded again
    assert {e.document_id for e in first.evidence} & {e.document_id for e in again.evidence}
