"""Hybrid ranking over a principal's eligible chunks: exact identifiers + BM25 + vectors, fused.

The lexical signals read the tenant block's inverted indexes (services/retrieval/lexicon.py):
a query tests only the rows that can hold its identifiers, quantities and terms, and fusion
touches only the candidates of the three lists. The vector stage is the exact product over the
block's matrix. The result is that of a scan over every eligible chunk
(tests/support/reference_ranking.py keeps that scan; tests/unit/test_ranking_equivalence.py
compares the two).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from services.language import bilingual, frequency
from services.language import tokens as text_analysis
from services.retrieval import answerability
from services.retrieval.blas_threads import single_threaded
from services.retrieval.caches import LexicalView, TenantBlock
from services.retrieval.embedders import Vectors
from services.retrieval.lexicon import Rows, compact

RRF_K = 60  # the constant from Cormack et al.; it damps the weight of top ranks
LIST_DEPTH = 100  # how deep each signal's list enters the fusion
_QUANTITY = re.compile(r"[±≤≥]?\s*\d+(?:\.\d+)?\s*(?:[a-zµμ%°]+|[\u4e00-\u9fff])")


@dataclass(frozen=True, slots=True)
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
    # Chinese names and terms the segmenter does not know (「額亦都」): matched exactly, like a
    # part number, because nothing else in the question says what it is about.
    names: list[str] = field(default_factory=list)
    # Each Chinese content word's English meanings (stems) in a general dictionary
    # (services.language.bilingual): BM25 reads them as words of the query too, so an English
    # procedure can rank for a Chinese question by its words, not only by its embedding.
    meanings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The mirror: each English content word's Chinese renderings in the same dictionary (two
    # characters or more), so a Chinese procedure can rank for an English question by its words.
    renderings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Its content terms (text_analysis.content_terms): what BM25's vote is weighted by.
    terms: list[text_analysis.Term] = field(default_factory=list)

    @classmethod
    def of(cls, query: str) -> QueryAnalysis:
        norm = text_analysis.normalize(query)
        terms = text_analysis.content_terms(query)
        return cls(
            text=query,
            tokens=text_analysis.tokens(query),
            identifiers=text_analysis.identifiers(query),
            quantities=[re.sub(r"\s+", "", q) for q in _QUANTITY.findall(norm)],
            names=frequency.unknown_words(norm, joined=False),  # see unknown_words
            meanings={
                t.text: found for t in terms if t.kind == "cjk" and (found := _meanings(t.text))
            },
            renderings={
                t.text: found
                for t in terms
                if t.kind == "word" and (found := bilingual.renderings(t.display))
            },
            terms=terms,
        )

    @property
    def translated(self) -> list[str]:
        """The meanings' stems the query does not write itself, once each."""
        own = set(self.tokens)
        return list(dict.fromkeys(s for m in self.meanings.values() for s in m if s not in own))

    @property
    def rendered(self) -> list[str]:
        """The renderings' character bigrams (BM25's Chinese units), once each."""
        return list(
            dict.fromkeys(
                word[i : i + 2]
                for words in self.renderings.values()
                for word in words
                for i in range(len(word) - 1)
            )
        )


def _in_translation(
    bm25: npt.NDArray[np.float64],
    scores: Callable[[list[str]], npt.NDArray[np.float64]],
    terms: list[str],
    block: TenantBlock,
    rows: npt.NDArray[np.int64],
    *,
    latin: bool,
) -> None:
    """BM25 by translated `terms` (in place) for the chunks of one script (English when
    `latin`, else Chinese) that the question's own words gave no score."""
    if not terms:
        return
    translated = scores(terms)
    reached = np.flatnonzero((bm25 <= 0) & (translated > 0))
    reached = reached[block.english[rows[reached]] == latin]
    bm25[reached] = translated[reached]


def _meanings(run: str) -> tuple[str, ...]:
    """The English meanings of the words of a run of Chinese (「日志能保存」: log, keep, save …)."""
    words = text_analysis.content_words(text_analysis.normalize(run))
    return tuple(dict.fromkeys(m for word in words for m in bilingual.meanings(word)))


def rank(
    query: QueryAnalysis, query_vector: Vectors, block: TenantBlock, view: LexicalView
) -> list[Candidate]:
    """Reciprocal rank fusion of the three signals, then exact identifier matches first."""
    rows = view.rows
    if len(rows) == 0:
        return []
    bm25 = view.bm25_scores(query.tokens)
    # The question's words in translation score only chunks of the other script that its own
    # words do not reach: a passage in the question's script is ranked by what it shares with
    # it, not by a foreign word it happens to hold. A Chinese question's meanings reach English
    # chunks; the mirror, an English question's renderings, reaches Chinese ones.
    _in_translation(bm25, view.bm25_scores, query.translated, block, rows, latin=True)
    _in_translation(bm25, view.bm25_scores, query.rendered, block, rows, latin=False)
    keyword, idents = _exact_hits(query, block, view)
    vector = vector_scores(query_vector, block, view)
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
    for position, rank_ in bm25_ranks.items():
        weight = _coverage(query, block, int(rows[position]))
        fused[position] = fused.get(position, 0.0) + weight / (RRF_K + rank_)
    spread = float(vector.std())
    mean = float(vector.mean())
    candidates = [
        Candidate(
            chunk_id=block.ids[int(rows[p])],
            row=int(rows[p]),
            fused=score,
            keyword_rank=keyword_ranks.get(p),
            bm25_rank=bm25_ranks.get(p),
            vector_rank=vector_ranks.get(p),
            identifiers_matched=int(idents[p]),
            vector_z=round(float((vector[p] - mean) / spread), 4) if spread > 0 else 0.0,
        )
        for p, score in fused.items()
    ]
    # Rerank: a chunk naming every identifier the query names beats one that does not, however
    # similar it looks (PN-7731-B vs PN-7731-C); otherwise the fused order stands.
    candidates.sort(key=lambda c: (-c.identifiers_matched, -c.fused, c.chunk_id))
    return candidates


def vector_scores(
    query_vector: Vectors, block: TenantBlock, view: LexicalView
) -> npt.NDArray[np.float64]:
    """Cosine similarity (unit vectors) of every eligible chunk: one product over the block's
    matrix, read at the view's rows (no copy of the eligible rows' vectors per query). The
    product runs on this thread: BLAS's workers would wait for a core (blas_threads.py)."""
    with single_threaded():
        product = block.matrix[: len(view.positions)] @ query_vector
    return product[view.rows].astype(np.float64)


def document_frequency(unit: str, block: TenantBlock, view: LexicalView) -> int:
    """`answerability.document_frequency` over the view's chunks, tested only on the rows the
    block's index says can contain `unit` (the same count: the others cannot)."""
    rows, exact = _rows_with(unit, block, view)
    if exact:
        return len(rows)
    texts = [block.matched[int(r)] for r in rows]
    units = [block.unit_set(int(r)) for r in rows]
    return answerability.document_frequency(unit, texts, units)


def texts_naming(unit: str, block: TenantBlock, view: LexicalView, limit: int) -> list[str]:
    """The texts (as written) of at most `limit` of the view's chunks that contain `unit`, as
    answerability finds a unit, read only on the rows the block's index says can hold it."""
    rows, exact = _rows_with(unit, block, view)
    texts: list[str] = []
    for row in rows:
        r = int(row)
        if exact or answerability.present(unit, block.matched[r], block.unit_set(r)):
            texts.append(block.texts[r])
            if len(texts) >= limit:
                break
    return texts


def _rows_with(unit: str, block: TenantBlock, view: LexicalView) -> tuple[Rows, bool]:
    """The view's rows the block's index says may contain `unit`, and whether exactly those do
    (all of the view's rows, not exactly, when the index cannot narrow it)."""
    found = block.lexicon.containing(unit)
    if found is None:
        return view.rows, False
    candidates, exact = found
    return view.rows[view.position_of(candidates)], exact


def vector_top(query_vector: Vectors, block: TenantBlock, view: LexicalView, n: int) -> list[str]:
    """The exact vector-only top n (used by the benchmark to measure recall)."""
    if len(view.rows) == 0:
        return []
    scores = vector_scores(query_vector, block, view)
    order = np.argsort(-scores, kind="stable")[:n]
    return [block.ids[int(view.rows[i])] for i in order]


# A CJK term counts as found when at least half of its characters are (see Term.coverage).
TERM_SHARE = 0.5


def term_found(term: text_analysis.Term, text: str, units: Container[str]) -> bool:
    if term.kind == "identifier":
        return text_analysis.contains_identifier(text, term.text)
    return term.coverage(units) >= TERM_SHARE


def _coverage(query: QueryAnalysis, block: TenantBlock, row: int) -> float:
    """Share of the query's content terms a chunk has; a chunk in the other script that has
    none of them is weighed by the terms it has in translation (an English chunk by the Chinese
    terms' meanings, a Chinese chunk by the English terms' renderings)."""
    terms = query.terms
    if not terms:
        return 1.0
    text, units = block.matched[row], block.unit_set(row)
    found = sum(term_found(t, text, units) for t in terms)
    if found or not (query.meanings or query.renderings):
        return found / len(terms)
    if block.english[row]:  # read in translation (its words can only be reached so)
        found = sum(any(m in units for m in query.meanings.get(t.text, ())) for t in terms)
    else:
        found = sum(any(r in text for r in query.renderings.get(t.text, ())) for t in terms)
    return found / len(terms)


def _exact_hits(
    query: QueryAnalysis, block: TenantBlock, view: LexicalView
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Per eligible chunk: exact matches of identifiers (whole tokens), quantities with units
    (15 日, 0.01 mm, as substrings of the text without whitespace) and unknown Chinese words
    (as substrings), and of identifiers alone."""
    keyword = np.zeros(len(view.rows))
    idents = np.zeros(len(view.rows), dtype=np.int64)
    for ident in query.identifiers:
        for position in view.position_of(block.lexicon.with_identifier(ident)):
            if text_analysis.contains_identifier(block.matched[int(view.rows[position])], ident):
                keyword[position] += 1
                idents[position] += 1
    compacted: dict[int, str] = {}
    for quantity in query.quantities:  # a quantity the query repeats counts again
        found = block.lexicon.with_quantity(quantity)
        positions = range(len(view.rows)) if found is None else view.position_of(found)
        for position in positions:
            row = int(view.rows[position])
            if row not in compacted:
                compacted[row] = compact(block.matched[row])
            if quantity in compacted[row]:
                keyword[position] += 1
    for name in query.names:
        found_rows = block.lexicon.containing(name)
        positions = range(len(view.rows)) if found_rows is None else view.position_of(found_rows[0])
        for position in positions:
            if name in block.matched[int(view.rows[position])]:
                keyword[position] += 1
    return keyword, idents


def _ranks(
    scores: npt.NDArray[np.float64],
    *,
    tiebreak: npt.NDArray[np.float64],
    positive_only: bool,
) -> dict[int, int]:
    """1-based ranks of the top LIST_DEPTH positions by (score, tiebreak) descending, ties by
    position: only the positions that can be among them are sorted."""
    chosen = np.flatnonzero(scores > 0) if positive_only else np.arange(len(scores))
    if len(chosen) > LIST_DEPTH:
        considered = scores[chosen]
        at = len(considered) - LIST_DEPTH
        floor = np.partition(considered, at)[at]
        chosen = chosen[considered >= floor]  # ties at the floor included
    order = chosen[np.lexsort((-tiebreak[chosen], -scores[chosen]))][:LIST_DEPTH]
    return {int(position): n + 1 for n, position in enumerate(order)}
