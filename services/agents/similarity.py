"""The retrieval embedder as a Similarity: cosine of its normalised vectors, for ranking only.

Planning ranks a task's own phrases against an item's name with the same embedder retrieval
uses (so "dirty hold time" finds 「脏设备保持时间」 in a Chinese supplement). The score only
orders phrases; it never decides alone whether a phrase is about an item (agents/wording.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from services.retrieval.embedders import Embedder, Vectors

# Phrase vectors kept between calls: one run ranks the same phrases for each of its items.
CACHED_PHRASES = 4096


class EmbeddingSimilarity:
    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()

    def scores(self, phrase: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        query = self._embedder.embed_query(phrase)
        rows = np.vstack([self._vector(text) for text in self._embedded(texts)])
        return [float(score) for score in rows @ query]

    def _embedded(self, texts: Sequence[str]) -> Sequence[str]:
        missing = list(dict.fromkeys(text for text in texts if text not in self._vectors))
        if missing:
            for text, row in zip(missing, self._embedder.embed(missing), strict=True):
                self._vectors[text] = row
        while len(self._vectors) > CACHED_PHRASES:
            self._vectors.popitem(last=False)
        return texts

    def _vector(self, text: str) -> Vectors:
        row = self._vectors.get(text)
        if row is None:  # evicted by this very call (more texts than the cache holds)
            row = self._embedder.embed([text])[0]
        return row
