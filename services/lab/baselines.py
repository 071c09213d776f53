"""Plain retrieval baselines for public evaluations: BM25 and dense-only, no governance.

They see the same documents memdesk indexes (title + body) and answer with document ids, best
first. Nothing here is tuned: BM25 is bm25s with its defaults over character unigrams and
bigrams (lower-cased, NFKC, no stop words, no script folding), or over plain words for text
written with spaces; dense-only embeds the product's
chunks with the same embedder memdesk uses and ranks documents by their best chunk's exact
cosine similarity.
"""

from __future__ import annotations

import itertools
import logging
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from services.retrieval.chunker import chunk_text
from services.retrieval.embedders import Embedder

logging.getLogger("bm25s").setLevel(logging.WARNING)


@dataclass(frozen=True)
class Doc:
    document_id: str
    title: str
    body: str


def char_ngrams(text: str) -> list[str]:
    """Character unigrams and bigrams of every run of letters/digits (CJK or not)."""
    tokens: list[str] = []
    run: list[str] = []
    for ch in unicodedata.normalize("NFKC", text).lower() + " ":
        if ch.isalnum():
            run.append(ch)
            continue
        tokens += run
        tokens += [a + b for a, b in itertools.pairwise(run)]
        run = []
    return tokens


def words(text: str) -> list[str]:
    """Lower-cased words (letters and digits), for text written with spaces: no stemming, no
    stop words, as plain as the character n-grams are for Chinese."""
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())


class Bm25Baseline:
    def __init__(
        self, docs: Sequence[Doc], tokenize: Callable[[str], list[str]] = char_ngrams
    ) -> None:
        self._ids = [d.document_id for d in docs]
        self._tokenize = tokenize
        self._retriever = bm25s.BM25()
        self._retriever.index([tokenize(f"{d.title}\n{d.body}") for d in docs], show_progress=False)

    def rank(self, query: str, k: int) -> list[str]:
        tokens = self._tokenize(query)
        if not tokens:
            return []
        scores = np.asarray(self._retriever.get_scores(tokens), dtype=np.float64)
        # Stable order on ties (the document's position), so runs are reproducible.
        order = np.lexsort((np.arange(len(scores)), -scores))
        return [self._ids[i] for i in order[:k] if scores[i] > 0]


class DenseBaseline:
    def __init__(self, docs: Sequence[Doc], embedder: Embedder) -> None:
        owners: list[int] = []
        texts: list[str] = []
        for position, doc in enumerate(docs):
            for chunk in chunk_text(doc.body):
                owners.append(position)
                texts.append(f"{doc.title}\n{chunk.text}")
        self._ids = [d.document_id for d in docs]
        self._owners = np.asarray(owners, dtype=np.int64)
        self._vectors = embedder.embed(texts)
        self._embedder = embedder

    def rank(self, query: str, k: int) -> list[str]:
        cosine = self._vectors @ self._embedder.embed_query(query)
        best = np.full(len(self._ids), -np.inf)
        np.maximum.at(best, self._owners, cosine.astype(np.float64))
        order = np.lexsort((np.arange(len(best)), -best))
        return [self._ids[i] for i in order[:k] if np.isfinite(best[i])]
