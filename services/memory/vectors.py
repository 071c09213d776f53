"""Embeddings the Memory Bank asks for again and again, kept.

Every generation compares what an event says with the scope's memories and all their kept
revisions, and the offline extractor compares each sentence with the config's few-shot examples:
the same texts are embedded generation after generation, and a scope's history grows with every
run that touches it. The bank therefore embeds through a bounded cache keyed by text, inside one
embedder's vector space: only texts it has not seen recently reach the model, in one batch.
Queries (follow-up questions, recall) are asked once and go straight through.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from services.retrieval.embedders import Embedder, Vectors

# Texts kept: 4,096 × 512 float32 is 8 MB, far more than the memories one process works on.
CAPACITY = 4096


class RememberingEmbedder:
    """An Embedder that embeds a text once while it stays among the CAPACITY most recent."""

    def __init__(self, embedder: Embedder, *, capacity: int = CAPACITY) -> None:
        self._embedder = embedder
        self._capacity = capacity
        self._kept: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._embedder.name

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return self._embedder.embed(texts)
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._kept]
        fresh = self._embedder.embed(missing) if missing else None
        with self._lock:
            if fresh is not None:
                for text, row in zip(missing, fresh, strict=True):
                    self._kept[text] = row
            rows = []
            for text in texts:
                row = self._kept.get(text)
                if row is None:  # evicted by another thread in between: embed it again
                    row = self._embedder.embed([text])[0]
                self._kept[text] = row
                self._kept.move_to_end(text)
                rows.append(row)
            while len(self._kept) > self._capacity:
                self._kept.popitem(last=False)
        stacked: Vectors = np.vstack(rows).astype(np.float32, copy=False)
        return stacked

    def embed_query(self, text: str) -> Vectors:
        return self._embedder.embed_query(text)
