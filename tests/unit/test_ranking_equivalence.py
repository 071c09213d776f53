"""The indexed ranking returns what a scan over every eligible chunk returns: the same
candidates, in the same order, with the same fields; and the same document frequencies."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from services.retrieval import answerability
from services.retrieval.caches import Payload, RetrievalCaches, TenantBlock
from services.retrieval.chunker import chunk_text
from services.retrieval.embedders import HashingEmbedder
from services.retrieval.ranking import (
    LIST_DEPTH,
    QueryAnalysis,
    _ranks,
    document_frequency,
    rank,
)
from tests.support import reference_ranking as reference

ROOT = Path(__file__).resolve().parents[2]
EMBEDDER = HashingEmbedder(dimension=64)

_SCRIPTS = {
    "zh": list(
        "標準交期檢驗抽樣量測報告包裝紙箱棧板防鏽付款月結訂金陽極膜厚鈍化鹽霧熱處理淬火回火硬度的了是在"
    ),
    "en": [
        "lead",
        "time",
        "inspection",
        "sampling",
        "packing",
        "pallet",
        "payment",
        "anodizing",
        "passivation",
        "hardness",
        "calibration",
        "gauge",
        "gauges",
        "days",
        "working",
        "the",
        "of",
        "and",
        "is",
    ],
    "ids": ["SUS304", "SUS316L", "PN-7731-B", "PN-7731-C", "Q42", "A6061-T6", "Ti-6Al-4V", "8D"],
    "qty": [
        "15 日",
        "15日",
        "0.01 mm",
        "±0.01mm",
        "12 個工作天",
        "5%",
        "30 days",
        "2.5 µm",
        "115 日",
    ],
}


def demo_chunks() -> list[tuple[str, str, str]]:
    corpus = json.loads((ROOT / "data/demo-corpus.json").read_text(encoding="utf-8"))
    chunks = []
    for d in corpus["documents"]:
        for c in chunk_text(d["body"]):
            chunks.append(
                (
                    f"{d['tenant_id']}/{d['document_id']}@{d['version']}#{c.ordinal}",
                    d["title"],
                    c.text,
                )
            )
    return chunks


def synthetic_chunks(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    chunks = []
    for i in range(n):
        parts = []
        for _ in range(rng.randrange(0, 14)):
            script = rng.choice(["zh", "zh", "en", "ids", "qty"])
            words = _SCRIPTS[script]
            if script == "zh":
                parts.append("".join(rng.choice(words) for _ in range(rng.randrange(1, 6))))
            else:
                parts.append(rng.choice(words))
        sep = rng.choice([" ", "", "，", "-", "/"])
        chunks.append(
            (
                f"T/DOC-{i // 3}@1#{i % 3}",
                rng.choice(["", "交期標準", "Inspection SOP"]),
                sep.join(parts),
            )
        )
    return chunks


def synthetic_queries(rng: random.Random, n: int) -> list[str]:
    queries = []
    for _ in range(n):
        parts = [
            rng.choice(_SCRIPTS[rng.choice(["zh", "en", "ids", "qty"])])
            for _ in range(rng.randrange(1, 5))
        ]
        queries.append(rng.choice([" ", ""]).join(parts) + rng.choice(["？", "?", "是多少", ""]))
    return queries


def block_of(chunks: list[tuple[str, str, str]]) -> tuple[RetrievalCaches, TenantBlock]:
    caches = RetrievalCaches()
    vectors = EMBEDDER.embed([f"{title}\n{text}" for _id, title, text in chunks])
    payloads = {
        chunk_id: Payload(
            chunk_id=chunk_id, vector=vectors[i], text=text, title=title, content_hash="h"
        )
        for i, (chunk_id, title, text) in enumerate(chunks)
    }
    # Fetched in two rounds, as a second principal's first query adds its chunks to the block.
    ids = list(payloads)
    first = ids[: len(ids) // 2]
    fetch = lambda missing: [payloads[c] for c in missing]  # noqa: E731
    caches.block("v1", "T", first, dimension=EMBEDDER.dimension, fetch=fetch)
    return caches, caches.block("v1", "T", ids, dimension=EMBEDDER.dimension, fetch=fetch)


def golden_queries() -> list[str]:
    golden = json.loads((ROOT / "data/memory-demo.golden.json").read_text(encoding="utf-8"))
    return [case["query"] for case in golden["cases"] if case.get("query")]


def units_of(query: str) -> list[str]:
    units = answerability.query_units(query)
    parts = [u[i : i + 2] for u in units for i in range(len(u) - 1)]
    return list(dict.fromkeys([*units, *parts]))


def assert_same(
    caches: RetrievalCaches, block: TenantBlock, eligible: list[str], queries: list[str]
) -> int:
    view = caches.view("v1", "T", block, eligible)
    compared = 0
    for query in queries:
        analysis = QueryAnalysis.of(query)
        vector = EMBEDDER.embed_query(query)
        assert rank(analysis, vector, block, view) == reference.rank(
            analysis, vector, block, view
        ), query
        assert (
            view.bm25_scores(analysis.tokens) == reference.bm25_scores(block, view, analysis.tokens)
        ).all()
        for unit in units_of(query):
            assert document_frequency(unit, block, view) == reference.document_frequency(
                unit, block, view
            ), (query, unit)
        compared += 1
    return compared


def test_the_demo_corpus_ranks_the_same_for_every_golden_query_and_eligible_set():
    chunks = demo_chunks()
    caches, block = block_of(chunks)
    rng = random.Random(3)
    ids = [c[0] for c in chunks]
    queries = golden_queries() + synthetic_queries(rng, 40)
    assert_same(caches, block, ids, queries)
    for _ in range(3):  # a principal reads a part of the tenant
        assert_same(caches, block, rng.sample(ids, len(ids) * 2 // 3), queries[:30])


@pytest.mark.parametrize("seed", range(6))
def test_random_corpora_with_identifiers_quantities_and_mixed_scripts_rank_the_same(seed):
    rng = random.Random(seed)
    chunks = synthetic_chunks(rng, rng.randrange(5, 400))
    caches, block = block_of(chunks)
    ids = [c[0] for c in chunks]
    eligible = rng.sample(ids, rng.randrange(1, len(ids) + 1))
    assert assert_same(caches, block, eligible, synthetic_queries(rng, 40)) == 40


def test_a_block_that_dropped_chunks_still_ranks_the_same():
    rng = random.Random(11)
    chunks = synthetic_chunks(rng, 200)
    caches, _block = block_of(chunks)
    ids = [c[0] for c in chunks]
    caches.evict_chunks(rng.sample(ids, 60))
    kept = [c for c in ids if c in caches._blocks[("v1", "T")].row_of]
    survivor = caches.block("v1", "T", kept, dimension=EMBEDDER.dimension, fetch=lambda m: [])
    assert len(survivor.ids) == 140
    assert_same(caches, survivor, kept, synthetic_queries(rng, 30))


@pytest.mark.parametrize("positive_only", [True, False])
def test_the_top_of_a_signal_with_ties_at_its_floor_is_that_of_a_full_sort(positive_only):
    """Only the positions that can reach the list are sorted: ties at the last place, equal
    scores broken by the tiebreak then by position, and zeros left out where asked."""
    rng = np.random.default_rng(5)
    for size in (0, 1, LIST_DEPTH - 1, LIST_DEPTH, LIST_DEPTH + 1, 3_000):
        scores = rng.integers(0, 4, size).astype(np.float64)  # few values: many ties
        tiebreak = rng.integers(0, 3, size).astype(np.float64)
        everything = np.arange(size)
        chosen = everything[scores > 0] if positive_only else everything
        order = chosen[np.lexsort((-tiebreak[chosen], -scores[chosen]))][:LIST_DEPTH]
        expected = {int(p): n + 1 for n, p in enumerate(order)}
        assert _ranks(scores, tiebreak=tiebreak, positive_only=positive_only) == expected
