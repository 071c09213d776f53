"""Remembered analyses of hits' texts and remembered eligible sets: what they return, what they
count against the ceiling, and that purging a chunk or a document leaves nothing of it."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from services.retrieval.caches import EligibleSet, RetrievalCaches, TextAnalyses


def test_an_analysis_is_computed_once_per_text_and_chunk() -> None:
    analyses = TextAnalyses(16)
    calls: list[str] = []

    def words(text: str) -> tuple[str, ...]:
        calls.append(text)
        return tuple(text.split())

    assert analyses.get("A/D@1#0", "words", "lead time", words) == ("lead", "time")
    assert analyses.get("A/D@1#0", "words", "lead time", words) == ("lead", "time")
    assert analyses.get("A/D@1#0", "words", "cut off", words) == ("cut", "off")
    assert calls == ["lead time", "cut off"]
    assert analyses.weight > 0


def test_analyses_without_room_compute_every_time() -> None:
    analyses = TextAnalyses(0)
    calls: list[str] = []
    for _ in range(2):
        analyses.get("A/D@1#0", "words", "x", lambda t: calls.append(t) or t)
    assert calls == ["x", "x"] and len(analyses) == 0


def test_analyses_keep_to_their_share_of_the_ceiling() -> None:
    caches = RetrievalCaches(budget_bytes=80_000)
    for n in range(2000):
        caches.analyses.get(f"A/D@1#{n}", "words", f"text {n} " * 20, str.split)
    assert 0 < caches.analyses.weight <= 80_000 // 8
    assert caches.nbytes() <= 80_000


def test_evicting_a_chunk_forgets_its_analyses_and_mentions_proves_it() -> None:
    caches = RetrievalCaches()
    caches.analyses.get("A/SOP@2#0", "words", "標準交期", list)
    caches.analyses.get("A/OTHER@1#0", "words", "包裝", list)
    assert caches.mentions("A/SOP@") == 1
    assert "A/SOP@2#0" in caches.ids_with_prefix("A/SOP@")
    caches.evict_chunks(caches.ids_with_prefix("A/SOP@"))
    assert caches.mentions("A/SOP@") == 0
    assert caches.mentions("A/OTHER@") == 1


def test_a_purged_documents_eligible_sets_go_with_its_chunks() -> None:
    caches = RetrievalCaches()
    key_a = ("A", ("tenant",), "2026-11-29", 3)
    key_b = ("B", ("tenant",), "2026-11-29", 1)
    caches.eligible.put(key_a, EligibleSet("A", MappingProxyType({"SOP": 2, "OTHER": 1})))
    caches.eligible.put(key_b, EligibleSet("B", MappingProxyType({"SOP": 1})))
    assert caches.mentions("A/SOP@") == 1
    assert caches.ids_with_prefix("A/SOP@2#") == ["A/SOP@2#"]
    assert caches.ids_with_prefix("A/SOP@1#") == []

    caches.evict_chunks(caches.ids_with_prefix("A/SOP@"))

    assert caches.mentions("A/SOP@") == 0
    assert caches.eligible.get(key_a) is None
    assert caches.eligible.get(key_b) is not None  # another tenant's set stays


def test_a_shared_piece_is_analysed_once_per_tenant_and_counted() -> None:
    caches = RetrievalCaches()
    calls: list[str] = []

    def words(piece: str) -> tuple[str, ...]:
        calls.append(piece)
        return (piece,)

    for chunk_id in ("A/SOP@1#0", "A/SOP@1#1", "A/OTHER@2#0"):
        assert caches.analyses.shared(chunk_id, "tagged_run")("標準交期", words) == ("標準交期",)
    assert calls == ["標準交期"]  # one tenant: analysed once for all its chunks
    caches.analyses.shared("B/SOP@1#0", "tagged_run")("標準交期", words)
    assert calls == ["標準交期", "標準交期"]  # another tenant's chunks do not share it
    assert caches.analyses.weight > 0 and caches.nbytes() >= caches.analyses.weight
    assert caches.analyses.chunk_ids() == set()  # a shared piece names no chunk


def test_evicting_any_chunk_of_a_tenant_forgets_the_pieces_its_chunks_share() -> None:
    caches = RetrievalCaches()
    caches.analyses.shared("A/SOP@1#0", "tagged_run")("標準交期", lambda p: (p,))
    caches.analyses.shared("B/SOP@1#0", "tagged_run")("標準交期", lambda p: (p,))
    calls: list[str] = []

    caches.evict_chunks(["A/OTHER@1#0"])

    caches.analyses.shared("A/SOP@1#0", "tagged_run")("標準交期", lambda p: calls.append(p) or (p,))
    caches.analyses.shared("B/SOP@1#0", "tagged_run")("標準交期", lambda p: calls.append(p) or (p,))
    assert calls == ["標準交期"]  # tenant A's piece was read again; B's stayed


def test_dropping_a_tenant_block_forgets_the_pieces_its_chunks_share() -> None:
    caches = RetrievalCaches()
    caches.block("v1", "A", [], dimension=4, fetch=lambda missing: [])
    caches.analyses.shared("A/SOP@1#0", "tagged_run")("標準交期", lambda p: (p,))
    caches.analyses.shared("B/SOP@1#0", "tagged_run")("標準交期", lambda p: (p,))
    caches._drop_tenant(("v1", "A"))  # what the ceiling does to the least recently used
    assert len(caches.analyses) == 1  # B's piece stays


def test_several_texts_of_a_chunk_are_analysed_together_and_only_once() -> None:
    analyses = TextAnalyses(16)
    batches: list[list[str]] = []

    def lengths(texts: list[str]) -> list[int]:
        batches.append(texts)
        return [len(t) for t in texts]

    assert analyses.get_many("A/D@1#0", "len", ["ab", "abc"], lengths) == [2, 3]
    assert analyses.get_many("A/D@1#0", "len", ["abc", "abcd", "abcd"], lengths) == [3, 4, 4]
    assert batches == [["ab", "abc"], ["abcd"]]  # the missing text once, in one call


def test_a_remembered_vector_counts_its_buffer() -> None:
    analyses = TextAnalyses(16)
    analyses.get("A/D@1#0", "vector", "lead time", lambda _t: np.zeros(512, dtype=np.float32))
    assert analyses.weight >= 512 * 4
