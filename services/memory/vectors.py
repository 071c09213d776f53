"""Embeddings the Memory Bank asks for again and again, kept.

Every generation compares what an event says with the scope's memories and all their kept
revisions, and the offline extractor compares each sentence with the config's few-shot examples:
the same texts are embedded generation after generation, and a scope's history grows with every
run that touches it. The bank therefore embeds through a bounded cache keyed by text, inside one
embedder's vector space: only texts it has not seen recently reach the model, in one batch.

Queries (the extractor's sentences, recall's questions) repeat too: the same mail is read for
the task's and the customer's scope, the same pending items are asked run after run. They are
kept in a cache of their own, because an embedder may embed a query differently from a document
(Gemini's task types); for an embedder that does not (SYMMETRIC) they share the documents'
cache and the model sees the queries it has not seen in one batch too.

A memory's stored vector was embedded by the same model when it was written, perhaps by another
worker process: `remember` keeps it, so a generation never embeds another worker's memory again
while it holds the scope's lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from services.retrieval.embedders import Embedder, Vectors

# Texts kept: 4,096 × 512 float32 is 8 MB, far more than the memories one process works on.
CAPACITY = 4096
# Embedders whose embed_query(text) is embed([text])[0] (services/retrieval/embedders.py:
# UseEmbedder, HashingEmbedder; tests/unit/test_memory_vectors.py holds them to it).
SYMMETRIC = frozenset({"use-multilingual-v3", "hashing-v2"})

Fill = Callable[[Sequence[str]], Vectors]


class _Recent:
    """Vectors by text, the least recently used dropped first beyond `capacity`."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._rows: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, texts: Sequence[str], fill: Fill) -> Vectors:
        """The texts' vectors; those not kept are filled in one call (outside the lock)."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._rows]
        fresh = fill(missing) if missing else None
        with self._lock:
            if fresh is not None:
                for text, row in zip(missing, fresh, strict=True):
                    self._rows[text] = row
            rows = []
            for text in texts:
                row = self._rows.get(text)
                if row is None:  # evicted by another thread in between: embed it again
                    row = fill([text])[0]
                self._rows[text] = row
                self._rows.move_to_end(text)
                rows.append(row)
            self._evict()
        stacked: Vectors = np.vstack(rows).astype(np.float32, copy=False)
        return stacked

    def keep(self, texts: Sequence[str], rows: Sequence[Vectors]) -> None:
        """Vectors computed elsewhere by the same model; a text already kept keeps its own."""
        with self._lock:
            for text, row in zip(texts, rows, strict=True):
                if text not in self._rows:
                    self._rows[text] = np.asarray(row, dtype=np.float32)
            self._evict()

    def _evict(self) -> None:
        while len(self._rows) > self._capacity:
            self._rows.popitem(last=False)


class RememberingEmbedder:
    """An Embedder that embeds a text once while it stays among the CAPACITY most recent."""

    def __init__(self, embedder: Embedder, *, capacity: int = CAPACITY) -> None:
        self._embedder = embedder
        self._documents = _Recent(capacity)
        self._symmetric = embedder.name in SYMMETRIC
        self._queries = self._documents if self._symmetric else _Recent(capacity)

    @property
    def name(self) -> str:
        return self._embedder.name

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return self._embedder.embed(texts)
        return self._documents.get(texts, self._embedder.embed)

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self.embed_queries([text])[0]
        return row

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Several queries at once: the ones not seen recently in one batch when the model
        embeds queries like documents, else one embed_query each."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        fill = self._embedder.embed if self._symmetric else self._one_by_one
        return self._queries.get(texts, fill)

    def remember(self, texts: Sequence[str], rows: Sequence[Vectors]) -> None:
        """Keep vectors this model produced earlier (a memory's stored embedding)."""
        self._documents.keep(texts, rows)

    def _one_by_one(self, texts: Sequence[str]) -> Vectors:
        stacked: Vectors = np.vstack([self._embedder.embed_query(t) for t in texts])
        return stacked


def remembering(embedder: Embedder) -> RememberingEmbedder:
    """The embedder with a cache in front of it (the one it has, if it has one)."""
    return embedder if isinstance(embedder, RememberingEmbedder) else RememberingEmbedder(embedder)


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """Several queries: in one cached call through a RememberingEmbedder, else one by one."""
    if isinstance(embedder, RememberingEmbedder):
        return embedder.embed_queries(texts)
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    stacked: Vectors = np.vstack([embedder.embed_query(t) for t in texts])
    return stacked
