"""The Memory Bank's embedding cache (services/memory/vectors.py): same vectors, fewer calls."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from services.memory.vectors import RememberingEmbedder
from services.retrieval.embedders import HashingEmbedder, Vectors


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
