"""Evidence always says something: a chunk the chunker left with punctuation only (a hard cut
at its size limit just before a sentence's full stop) is never cited."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from services.bootstrap import Services
from tests.support.corpus import doc, owner_corpus, write_corpus


@pytest.mark.parametrize(
    ("body", "language", "query"),
    [
        # an unpunctuated run of exactly the chunk size, then its full stop
        ("本程序适用于所有仓库作业" * 25 + "。", "zh-Hans", "仓库作业适用什么程序？"),
        # English is cut at a word boundary: a spaced full stop is left alone
        ("stack " * 50 + ".", "en", "How high do we stack?"),
    ],
)
def test_a_chunk_of_punctuation_only_is_never_evidence(
    services: Services, tmp_path: Path, body: str, language: str, query: str
) -> None:
    corpus = owner_corpus(
        "P",
        "Punctuation",
        [
            doc("LONG", 1, tenant_id="P", language=language, body=body, approved_by="p.owner"),
            doc(
                "SHORT",
                1,
                tenant_id="P",
                language="en",
                body="Pallets are stacked three high at most.",
                approved_by="p.owner",
            ),
        ],
    )
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus))
    services.index.sync()
    principal = services.directory.principal("p.owner")
    result = services.retrieval.retrieve(principal, query, k=10, as_of=date(2026, 12, 1))
    assert result.evidence, "the other chunks are still found"
    for item in result.evidence:
        assert any(ch.isalnum() for ch in item.quote), item.evidence_id
