"""The Memory Bank's embedding cache (services/memory/vectors.py): same vectors, fewer calls."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from services.memory.vectors import SYMMETRIC, RememberingEmbedder
from services.retrieval.embedders import HashingEmbedder, UseEmbedder, Vectors


class Counting(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(dimension=64)
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded += list(texts)
        return super().embed(texts)


def test_a_text_seen_before_is_not_embedded_again_and_the_vectors_are_the_same() -> None:
    inner = Counting()
    kept = RememberingEmbedder(inner)
    first = kept.embed(["Holten wants PPAP level 3", "宏昇要求真空包裝"])
    again = kept.embed(["宏昇要求真空包裝", "a new fact", "Holten wants PPAP level 3"])
    assert inner.embedded == ["Holten wants PPAP level 3", "宏昇要求真空包裝", "a new fact"]
    expected = HashingEmbedder(dimension=64).embed(
        ["宏昇要求真空包裝", "a new fact", "Holten wants PPAP level 3"]
    )
    assert np.allclose(again, expected)
    assert np.allclose(first[0], again[2])
    assert kept.name == inner.name and kept.dimension == 64


def test_only_the_most_recent_texts_are_kept() -> None:
    inner = Counting()
    kept = RememberingEmbedder(inner, capacity=2)
    kept.embed(["a", "b"])
    kept.embed(["c"])  # "a" is the oldest and goes
    kept.embed(["b", "a"])
    assert inner.embedded == ["a", "b", "c", "a"]


def test_nothing_to_embed_is_passed_through() -> None:
    assert RememberingEmbedder(Counting()).embed([]).shape[0] == 0


class Asymmetric(Counting):
    """An embedder whose queries live elsewhere in its space (like Gemini's task types)."""

    @property
    def name(self) -> str:
        return "asymmetric-test"

    def __init__(self) -> None:
        super().__init__()
        self.queried: list[str] = []

    def embed_query(self, text: str) -> Vectors:
        self.queried.append(text)
        row: Vectors = HashingEmbedder(dimension=64).embed([f"query: {text}"])[0]
        return row


def test_queries_are_kept_and_those_not_seen_go_to_a_symmetric_model_in_one_batch() -> None:
    inner = Counting()
    kept = RememberingEmbedder(inner)
    kept.embed(["Holten wants PPAP level 3"])
    asked = kept.embed_queries(["Holten wants PPAP level 3", "交期呢", "MOQ?", "交期呢"])
    assert inner.embedded == ["Holten wants PPAP level 3", "交期呢", "MOQ?"]  # one batch
    expected = [HashingEmbedder(dimension=64).embed_query(t) for t in ("交期呢", "MOQ?")]
    assert np.allclose(asked[1:3], np.vstack(expected)) and np.allclose(asked[1], asked[3])
    assert np.allclose(kept.embed_query("MOQ?"), expected[1])
    assert len(inner.embedded) == 3


def test_an_asymmetric_models_queries_are_embedded_as_queries_and_kept_apart() -> None:
    inner = Asymmetric()
    kept = RememberingEmbedder(inner)
    document = kept.embed(["交期呢"])[0]
    asked = kept.embed_queries(["交期呢", "交期呢", "MOQ?"])
    assert inner.queried == ["交期呢", "MOQ?"] and inner.embedded == ["交期呢"]
    assert not np.allclose(asked[0], document)
    assert np.allclose(asked[0], inner.embed_query("交期呢"))
    kept.embed_queries(["MOQ?"])
    assert inner.queried == ["交期呢", "MOQ?", "交期呢"]  # only the direct call above


def test_remembered_vectors_are_used_and_never_replace_one_kept() -> None:
    inner = Counting()
    kept = RememberingEmbedder(inner)
    own = kept.embed(["a"])[0]
    stored = np.ones(64, dtype=np.float32) / 8.0
    kept.remember(["a", "b"], [stored, stored])
    assert np.allclose(kept.embed(["a"])[0], own)  # what this process embedded stays
    assert np.allclose(kept.embed(["b"])[0], stored)  # another worker's vector, not re-embedded
    assert inner.embedded == ["a"]


@pytest.mark.parametrize("name", sorted(SYMMETRIC))
def test_an_embedder_named_symmetric_embeds_a_query_like_a_document(name: str) -> None:
    made = {"hashing-v2": HashingEmbedder, "use-multilingual-v3": UseEmbedder}
    embedder = made[name]()
    assert embedder.name == name
    texts = ["The customer needs 3,000 pcs of SUS304.", "請於 12 月 1 日前回覆交期。"]
    documents = embedder.embed(texts)
    for text, row in zip(texts, documents, strict=True):
        assert np.allclose(embedder.embed_query(text), row, atol=1e-5)
