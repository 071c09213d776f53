"""Hybrid ranking over a principal's eligible chunks: exact identifiers + BM25 + vectors, fused."""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from services.language import tokens as text_analysis
from services.retrieval.caches import LexicalView, TenantBlock
from services.retrieval.embedders import Vectors

RRF_K = 60  # the constant from Cormack et al.; it damps the weight of top ranks
LIST_DEPTH = 100  # how deep each signal's list enters the fusion
_QUANTITY = re.compile(r"[±≤≥]?\s*\d+(?:\.\d+)?\s*(?:[a-zµμ%°]+|[\u4e00-\u9fff])")


@dataclass(frozen=True)
class Candidate:
    """One fused hit. Ranks are 1-based positions in each signal's list (None: not in it)."""

    chunk_id: str
    row: int  # row in the tenant block
    fused: float
    keyword_rank: int | None
    bm25_rank: int | None
    vector_rank: int | None
    identifiers_matched: int
    # How far its vector similarity stands above the principal's eligible chunks, in standard
    # deviations: a statistic of the ranking, not a confidence.
    vector_z: float = 0.0

    @property
    def signals(self) -> int:
        return sum(r is not None for r in (self.keyword_rank, self.bm25_rank, self.vector_rank))


@dataclass(frozen=True)
class QueryAnalysis:
    text: str
    tokens: list[str]
    identifiers: list[str]
    quantities: list[str]

    @classmethod
    def of(cls, query: str) -> QueryAnalysis:
        norm = text_analysis.normalize(query)
        return cls(
            text=query,
            tokens=text_analysis.tokens(query),
            identifiers=text_analysis.identifiers(query),
            quantities=[re.sub(r"\s+", "", q) for q in _QUANTITY.findall(norm)],
        )


def rank(
    query: QueryAnalysis, query_vector: Vectors, block: TenantBlock, view: LexicalView
) -> list[Candidate]:
    """Reciprocal rank fusion of the three signals, then exact identifier matches first."""
    rows = view.rows
    if len(rows) == 0:
        return []
    bm25 = view.bm25_scores(query.tokens)
    keyword = _keyword_scores(query, block, rows)
    vector: npt.NDArray[np.float64] = (block.matrix[rows] @ query_vector).astype(np.float64)
    keyword_ranks = _ranks(keyword, tiebreak=bm25, positive_only=True)
    bm25_ranks = _ranks(bm25, tiebreak=vector, positive_only=True)
    vector_ranks = _ranks(vector, tiebreak=bm25, positive_only=False)
    fused: dict[int, float] = {}
    for ranks in (keyword_ranks, vector_ranks):
        for position, rank_ in ranks.items():
            fused[position] = fused.get(position, 0.0) + 1.0 / (RRF_K + rank_)
    # A BM25 rank earned by one shared word is weak evidence: its vote is weighted by the share
    # of the query's content terms the chunk contains (a Chinese SOP must not lose to English
    # chunks that merely share "parts" with an English question).
    terms = text_analysis.content_terms(query.text)
    for position, rank_ in bm25_ranks.items():
        weight = _coverage(terms, block, int(rows[position]))
        fused[position] = fused.get(position, 0.0) + weight / (RRF_K + rank_)
    idents = _identifier_hits(query, block, rows)
    spread = float(vector.std())
    z = (vector - float(vector.mean())) / spread if spread > 0 else np.zeros(len(rows))
    candidates = [
        Candidate(
            chunk_id=block.ids[int(rows[p])],
            row=int(rows[p]),
            fused=score,
            keyword_rank=keyword_ranks.get(p),
            bm25_rank=bm25_ranks.get(p),
            vector_rank=vector_ranks.get(p),
            identifiers_matched=int(idents[p]),
            vector_z=round(float(z[p]), 4),
        )
        for p, score in fused.items()
    ]
    # Rerank: a chunk naming every identifier the query names beats one that does not, however
    # similar it looks (PN-7731-B vs PN-7731-C); otherwise the fused order stands.
    candidates.sort(key=lambda c: (-c.identifiers_matched, -c.fused, c.chunk_id))
    return candidates


def vector_top(query_vector: Vectors, block: TenantBlock, view: LexicalView, n: int) -> list[str]:
    """The exact vector-only top n (used by the benchmark to measure recall)."""
    if len(view.rows) == 0:
        return []
    scores = block.matrix[view.rows] @ query_vector
    order = np.argsort(-scores, kind="stable")[:n]
    return [block.ids[int(view.rows[i])] for i in order]


# A CJK term counts as found when at least half of its characters are (see Term.coverage).
TERM_SHARE = 0.5


def term_found(term: text_analysis.Term, text: str, units: Container[str]) -> bool:
    if term.kind == "identifier":
        return text_analysis.contains_identifier(text, term.text)
    return term.coverage(units) >= TERM_SHARE


def _coverage(terms: list[text_analysis.Term], block: TenantBlock, row: int) -> float:
    if not terms:
        return 1.0
    text, units = block.matched[row], block.units[row]
    return sum(term_found(t, text, units) for t in terms) / len(terms)


def _keyword_scores(
    query: QueryAnalysis, block: TenantBlock, rows: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """Exact matches of identifiers (whole tokens) and of quantities with units (15 日, 0.01 mm)."""
    scores = np.zeros(len(rows))
    if not query.identifiers and not query.quantities:
        return scores
    for position, row in enumerate(rows):
        text = block.matched[int(row)]
        compact = None
        hits = sum(text_analysis.contains_identifier(text, i) for i in query.identifiers)
        if query.quantities:
            compact = re.sub(r"\s+", "", text)
            hits += sum(q in compact for q in query.quantities)
        scores[position] = hits
    return scores


def _identifier_hits(
    query: QueryAnalysis, block: TenantBlock, rows: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    hits = np.zeros(len(rows), dtype=np.int64)
    if not query.identifiers:
        return hits
    for position, row in enumerate(rows):
        text = block.matched[int(row)]
        hits[position] = sum(text_analysis.contains_identifier(text, i) for i in query.identifiers)
    return hits


def _ranks(
    scores: npt.NDArray[np.float64],
    *,
    tiebreak: npt.NDArray[np.float64],
    positive_only: bool,
) -> dict[int, int]:
    order = np.lexsort((-tiebreak, -scores))
    ranks: dict[int, int] = {}
    for position in order[:LIST_DEPTH]:
        if positive_only and scores[position] <= 0:
            break
        ranks[int(position)] = len(ranks) + 1
    return ranks
