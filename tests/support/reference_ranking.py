"""The ranking as it was before the inverted index: Python loops over every eligible chunk and a
bm25s index built over exactly them. Kept to prove the indexed ranking returns the same."""

from __future__ import annotations

import logging
import re

import bm25s
import numpy as np
import numpy.typing as npt

from services.language import tokens as text_analysis
from services.retrieval import answerability
from services.retrieval.caches import LexicalView, TenantBlock
from services.retrieval.embedders import Vectors
from services.retrieval.ranking import (
    LIST_DEPTH,
    RRF_K,
    Candidate,
    QueryAnalysis,
    term_found,
    vector_scores,
)

logging.getLogger("bm25s").setLevel(logging.WARNING)


def bm25_scores(
    block: TenantBlock, view: LexicalView, tokens: list[str]
) -> npt.NDArray[np.float64]:
    """A fresh bm25s index over the view's chunks, as each view used to build."""
    if len(view.rows) == 0 or not tokens:
        return np.zeros(len(view.rows))
    retriever = bm25s.BM25()
    retriever.index([block.tokens_of(int(r)) or [""] for r in view.rows], show_progress=False)
    return np.asarray(retriever.get_scores(tokens), dtype=np.float64)[: len(view.rows)]


def document_frequency(unit: str, block: TenantBlock, view: LexicalView) -> int:
    texts = [block.matched[int(r)] for r in view.rows]
    found = [block.units[int(r)] for r in view.rows]
    return answerability.document_frequency(unit, texts, found)


def rank(
    query: QueryAnalysis, query_vector: Vectors, block: TenantBlock, view: LexicalView
) -> list[Candidate]:
    rows = view.rows
    if len(rows) == 0:
        return []
    bm25 = bm25_scores(block, view, query.tokens)
    # English chunks by the Chinese words' meanings, Chinese chunks by the English renderings
    for terms, script in ((query.translated, "latin"), (query.rendered, "cjk")):
        if not terms:
            continue
        translated = bm25_scores(block, view, terms)
        for position in range(len(rows)):
            same = text_analysis.script_of(block.matched[int(rows[position])]) == script
            if bm25[position] <= 0 and translated[position] > 0 and same:
                bm25[position] = translated[position]
    keyword = _keyword_scores(query, block, rows)
    # The one shared step: the product itself (its float rounding depends on the BLAS call's
    # layout, which is not what the loops below decided).
    vector = vector_scores(query_vector, block, view)
    keyword_ranks = _ranks(keyword, tiebreak=bm25, positive_only=True)
    bm25_ranks = _ranks(bm25, tiebreak=vector, positive_only=True)
    vector_ranks = _ranks(vector, tiebreak=bm25, positive_only=False)
    fused: dict[int, float] = {}
    for ranks in (keyword_ranks, vector_ranks):
        for position, rank_ in ranks.items():
            fused[position] = fused.get(position, 0.0) + 1.0 / (RRF_K + rank_)
    terms = text_analysis.content_terms(query.text)  # not query.terms: read afresh here
    for position, rank_ in bm25_ranks.items():
        weight = _coverage(terms, block, int(rows[position]), query)
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
    candidates.sort(key=lambda c: (-c.identifiers_matched, -c.fused, c.chunk_id))
    return candidates


def _coverage(
    terms: list[text_analysis.Term],
    block: TenantBlock,
    row: int,
    query: QueryAnalysis,
) -> float:
    if not terms:
        return 1.0
    text, units = block.matched[row], block.units[row]
    found = sum(term_found(t, text, units) for t in terms)
    if not found and text_analysis.script_of(text) == "latin":  # read in translation
        found = sum(any(m in units for m in query.meanings.get(t.text, ())) for t in terms)
    elif not found:  # a Chinese chunk, read by the English words' renderings
        found = sum(any(r in text for r in query.renderings.get(t.text, ())) for t in terms)
    return found / len(terms)


def _keyword_scores(
    query: QueryAnalysis, block: TenantBlock, rows: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    scores = np.zeros(len(rows))
    if not query.identifiers and not query.quantities and not query.names:
        return scores
    for position, row in enumerate(rows):
        text = block.matched[int(row)]
        compact = None
        hits = sum(text_analysis.contains_identifier(text, i) for i in query.identifiers)
        if query.quantities:
            compact = re.sub(r"\s+", "", text)
            hits += sum(q in compact for q in query.quantities)
        hits += sum(name in text for name in query.names)
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
