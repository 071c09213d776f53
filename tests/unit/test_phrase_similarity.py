"""The retrieval embedder as a phrase Similarity: cosine order, each phrase embedded once."""

from __future__ import annotations

from collections.abc import Sequence

from services.agents.similarity import EmbeddingSimilarity
from services.retrieval.embedders import HashingEmbedder, Vectors


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(dimension=128)
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded += list(texts)
        return super().embed(texts)


def test_closer_texts_score_higher_and_each_phrase_is_embedded_once():
    embedder = CountingEmbedder()
    similarity = EmbeddingSimilarity(embedder)
    phrases = ["脏设备保持时间", "残留限度定下来", "继续出验证方案"]
    scores = similarity.scores("脏设备保持时间（DHT）", phrases)
    assert max(range(3), key=lambda i: scores[i]) == 0
    again = similarity.scores("残留限度", phrases)
    assert max(range(3), key=lambda i: again[i]) == 1
    # two queries, three phrases: each phrase embedded once, each query once
    assert sorted(embedder.embedded) == sorted([*phrases, "脏设备保持时间（DHT）", "残留限度"])
    assert similarity.scores("anything", []) == []
