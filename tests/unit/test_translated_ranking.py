"""A Chinese question ranks an English document by its words read in translation (CC-CEDICT's
English meanings of the question's Chinese words feed BM25), and an English question a Chinese
document by its words' Chinese renderings, on texts in the style of two datasets: an IT service
desk's retention policy and on-call rules, a museum's handling and lighting procedures."""

from __future__ import annotations

import dataclasses

import pytest

from services.retrieval.caches import Payload, RetrievalCaches
from services.retrieval.embedders import HashingEmbedder
from services.retrieval.ranking import QueryAnalysis, rank

EMBEDDER = HashingEmbedder()
CHUNKS = {
    "RETENTION-FAQ": (
        "Data Retention FAQ (Support Edition)",
        "Q: How long do we keep access logs? A: Access logs are kept for 90 days.",
    ),
    "HANDLING": (
        "Object Handling Procedure",
        "Wear clean nitrile gloves when handling metal objects and unglazed ceramics.",
    ),
    "SLA": ("支持服务标准", "P1 工单 15 分钟内响应，4 小时内恢复服务。"),
    "ONCALL": ("值班规则", "值班工程师须在 10 分钟内接听电话，交接班须填写交接清单。"),
    "LIGHTING": (
        "展示照明标准",
        "紙質文物照度不得超過 50 lux，每年累計曝光量不得超過 120,000 lux·h。",
    ),
}


def ranked(query: QueryAnalysis) -> dict[str, int | None]:
    caches = RetrievalCaches()
    ids = list(CHUNKS)
    vectors = EMBEDDER.embed([f"{title}\n{text}" for title, text in CHUNKS.values()])
    payloads = [
        Payload(chunk_id=c, vector=vectors[i], text=text, title=title, content_hash="h")
        for i, (c, (title, text)) in enumerate(CHUNKS.items())
    ]
    block = caches.block("v1", "T", ids, dimension=EMBEDDER.dimension, fetch=lambda m: payloads)
    view = caches.view("v1", "T", block, ids)
    return {
        c.chunk_id: c.bm25_rank for c in rank(query, EMBEDDER.embed_query(query.text), block, view)
    }


@pytest.mark.parametrize(
    ("question", "document"),
    [
        ("客户问访问日志能保存多久？", "RETENTION-FAQ"),  # IT service desk (Simplified)
        ("搬金屬文物要戴手套嗎？", "HANDLING"),  # museum (Traditional)
    ],
)
def test_a_chinese_question_ranks_an_english_document_by_its_translated_words(question, document):
    query = QueryAnalysis.of(question)
    assert query.meanings  # the dictionary gives its Chinese words English meanings
    assert ranked(query)[document] == 1
    # Without the meanings BM25 cannot see the English document at all.
    untranslated = dataclasses.replace(query, meanings={})
    assert ranked(untranslated).get(document) is None


@pytest.mark.parametrize(
    ("question", "document"),
    [
        ("How fast must the on-call engineer answer the phone?", "ONCALL"),  # IT service desk
        ("What is the illuminance limit for paper?", "LIGHTING"),  # museum (Traditional)
    ],
)
def test_an_english_question_ranks_a_chinese_document_by_its_rendered_words(question, document):
    """The mirror: the English words' Chinese renderings reach a Chinese procedure that the
    question's own words cannot (nor an English document that shares none of them)."""
    query = QueryAnalysis.of(question)
    assert query.renderings
    assert ranked(query)[document] == 1
    # Without the renderings BM25 cannot see the Chinese document at all.
    unrendered = dataclasses.replace(query, renderings={})
    assert ranked(unrendered).get(document) is None
