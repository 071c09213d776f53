"""Inverted indexes of one tenant block: BM25 term postings and exact-match keys, row by row.

Built once per row when the block fetches it, so a query never reads every chunk's text: it
looks up the rows that can contain a query's identifiers, quantities, words or Chinese terms
(postings over scipy.sparse column-compressed matrices) and tests only those exactly. Every
lookup here returns a superset of the rows that match; callers keep their exact test on the
candidates, so the answers are those of a scan over every row.

Keys per row (of its normalised title + text):

* BM25 terms, with their counts: what `services.language.tokens.tokens` yields (CJK unigrams
  and bigrams, stemmed words, identifier parts);
* word units (`TextUnits.words`), the unit sets of coverage and document frequency;
* alphanumeric runs (`[a-z0-9]+`): an identifier such as pn-7731-b is found only where each of
  its parts is a whole run;
* quantity edges: a digit followed by the first character of a unit, in the text without
  whitespace (15 日 → "5日"), which every quantity of a query has.
"""

from __future__ import annotations

import re
import sys
import threading
from array import array
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from services.language import tokens as text_analysis

WORD, RUN, EDGE = 1, 2, 4  # flags of a match key in a row
_RUN = re.compile(r"[a-z0-9]+")
_SPACE = re.compile(r"\s+")
# The first character of a quantity's unit, as ranking's quantity pattern allows it.
_EDGE = re.compile(r"\d[a-zµμ%°\u4e00-\u9fff]")
_CJK_RUN = re.compile(f"[{text_analysis.CJK}]+")
_EDGE_PREFIX = "\x00"  # keeps quantity edges apart from words in one key vocabulary

_POINTER = 8
Rows = npt.NDArray[np.int64]
_NONE: Rows = np.zeros(0, dtype=np.int64)


def compact(text: str) -> str:
    """The text without whitespace, where ranking looks for a query's quantities."""
    return _SPACE.sub("", text)


def edge_of(quantity: str) -> str | None:
    """The digit-to-unit edge every occurrence of a compact quantity (15日, ±0.01mm) contains."""
    found = _EDGE.findall(quantity)
    return found[-1] if found else None


class _Postings:
    """Column-compressed (row, value) pairs, grown in batches of new rows."""

    def __init__(self, dtype: type[np.unsignedinteger]) -> None:
        self._dtype = dtype
        self._matrix = sp.csc_array((0, 0), dtype=dtype)
        self._pending: list[tuple[list[int], list[int], list[int]]] = []
        self._shape = (0, 0)
        self._lock = threading.Lock()  # queries of several threads compile it at most once

    def extend(
        self, rows: list[int], cols: list[int], values: list[int], shape: tuple[int, int]
    ) -> None:
        with self._lock:
            self._pending.append((rows, cols, values))
            self._shape = shape

    @classmethod
    def of(cls, matrix: sp.csc_array) -> _Postings:
        """Postings over an already compiled matrix (one read from disk)."""
        postings = cls(matrix.dtype.type)
        postings._matrix = matrix
        postings._shape = matrix.shape
        return postings

    @property
    def matrix(self) -> sp.csc_array:
        return self._compiled()

    def subset(self, kept: Rows, n_cols: int) -> _Postings:
        """The postings of rows `kept` only, renumbered 0 … len(kept) - 1."""
        subset = _Postings(self._dtype)
        subset._matrix = sp.csc_array(self._compiled().tocsr()[kept].tocsc())
        subset._matrix.resize((len(kept), n_cols))
        subset._shape = (len(kept), n_cols)
        return subset

    def column(self, col: int) -> tuple[Rows, npt.NDArray[np.unsignedinteger]]:
        matrix = self._compiled()
        if col >= matrix.shape[1]:
            return _NONE, np.zeros(0, dtype=self._dtype)
        start, end = int(matrix.indptr[col]), int(matrix.indptr[col + 1])
        return matrix.indices[start:end].astype(np.int64), matrix.data[start:end]

    @property
    def nbytes(self) -> int:
        m = self._compiled()
        return int(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes)

    def _compiled(self) -> sp.csc_array:
        with self._lock:
            if self._pending:
                old = self._matrix.tocoo()
                parts = [(old.row, old.col, old.data)] + [
                    (np.asarray(r, np.int32), np.asarray(c, np.int32), np.asarray(v, self._dtype))
                    for r, c, v in self._pending
                ]
                rows, cols, data = (np.concatenate([p[i] for p in parts]) for i in range(3))
                self._matrix = sp.csc_array(
                    (data, (rows, cols)), shape=self._shape, dtype=self._dtype
                )
                self._pending = []
            return self._matrix


@dataclass(frozen=True)
class RowUnits:
    """`unit in TextUnits.of(text)` for one row, with its word units read from the index."""

    text: str
    row: int
    lexicon: Lexicon

    def __contains__(self, unit: object) -> bool:
        if not isinstance(unit, str) or not unit:
            return False
        if len(unit) <= 2 and _CJK_RUN.fullmatch(unit):
            return unit in self.text
        return self.lexicon.has_word(self.row, unit)


class Lexicon:
    """The postings of one tenant block, rows numbered as the block numbers them."""

    def __init__(self) -> None:
        self.terms: dict[str, int] = {}  # BM25 term → column
        self.keys: dict[str, int] = {}  # word unit, alphanumeric run or quantity edge → column
        self._lengths = array("I")  # BM25 document length of each row
        self._tf = _Postings(np.uint16)
        self._has = _Postings(np.uint8)
        self._lengths_array: npt.NDArray[np.int64] | None = None
        self._vocabulary_bytes = 0

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, texts: Sequence[str], token_lists: Sequence[list[str]]) -> None:
        """Index rows len(self) … in order: each normalised text with its BM25 tokens.

        Each (row, term) pair goes in once per occurrence and the sparse matrix sums them into
        the term's count; each (row, key) pair once per kind of key, so the sum of the flags is
        their union.
        """
        terms: list[str] = []
        term_rows: list[int] = []
        keys: list[str] = []
        key_rows: list[int] = []
        flags: list[int] = []
        for row, (text, tokens) in enumerate(zip(texts, token_lists, strict=True), len(self)):
            self._lengths.append(len(tokens) or 1)  # bm25s indexes a token-less chunk as [""]
            terms += tokens
            term_rows += [row] * len(tokens)
            for found, flag in _match_keys(text):
                keys += found
                key_rows += [row] * len(found)
                flags += [flag] * len(found)
        rows = len(self._lengths)
        tf_cols = self._columns(self.terms, terms)
        self._tf.extend(term_rows, tf_cols, [1] * len(terms), (rows, len(self.terms)))
        key_cols = self._columns(self.keys, keys)
        self._has.extend(key_rows, key_cols, flags, (rows, len(self.keys)))
        self._lengths_array = None

    def subset(self, kept: Rows) -> Lexicon:
        """The index of rows `kept` only, renumbered as a block that dropped the others does."""
        lexicon = Lexicon()
        lexicon.terms, lexicon.keys = self.terms, self.keys  # shared: a vocabulary only grows
        lexicon._vocabulary_bytes = self._vocabulary_bytes
        lexicon._lengths = array("I", (self._lengths[int(r)] for r in kept))
        lexicon._tf = self._tf.subset(kept, len(self.terms))
        lexicon._has = self._has.subset(kept, len(self.keys))
        return lexicon

    @classmethod
    def restore(
        cls,
        *,
        terms: list[str],
        keys: list[str],
        lengths: npt.NDArray[np.uint32],
        tf: sp.csc_array,
        has: sp.csc_array,
        vocabulary_bytes: int,
    ) -> Lexicon:
        """The index `parts()` gave, vocabularies in column order (retrieval/blocks.py)."""
        lexicon = cls()
        lexicon.terms = {term: col for col, term in enumerate(terms)}
        lexicon.keys = {key: col for col, key in enumerate(keys)}
        lexicon._lengths = array("I", np.ascontiguousarray(lengths, dtype=np.uint32).tobytes())
        lexicon._tf, lexicon._has = _Postings.of(tf), _Postings.of(has)
        lexicon._vocabulary_bytes = vocabulary_bytes
        return lexicon

    def parts(self) -> tuple[list[str], list[str], sp.csc_array, sp.csc_array, int]:
        """Vocabularies in column order, the two posting matrices and the vocabulary's bytes."""
        return (
            list(self.terms),
            list(self.keys),
            self._tf.matrix,
            self._has.matrix,
            (self._vocabulary_bytes),
        )

    def _columns(self, vocabulary: dict[str, int], keys: list[str]) -> list[int]:
        for key in dict.fromkeys(keys):
            if key not in vocabulary:
                vocabulary[key] = len(vocabulary)
                self._vocabulary_bytes += sys.getsizeof(key) + 2 * _POINTER
        return [vocabulary[key] for key in keys]

    # ---- lookups ----------------------------------------------------------------------------
    @property
    def lengths(self) -> npt.NDArray[np.int64]:
        if self._lengths_array is None:
            self._lengths_array = np.asarray(self._lengths, dtype=np.int64)
        return self._lengths_array

    def term(self, term: str) -> tuple[Rows, npt.NDArray[np.unsignedinteger]]:
        """Rows holding a BM25 term, with its count in each."""
        col = self.terms.get(term)
        if col is None:
            return _NONE, np.zeros(0, dtype=np.uint16)
        return self._tf.column(col)

    def key(self, key: str, flag: int) -> Rows:
        col = self.keys.get(key)
        if col is None:
            return _NONE
        rows, flags = self._has.column(col)
        flagged: Rows = rows[(flags & flag) != 0]
        return flagged

    def has_word(self, row: int, word: str) -> bool:
        rows = self.key(word, WORD)
        at = int(np.searchsorted(rows, row))
        return at < len(rows) and int(rows[at]) == row

    def units(self, row: int, text: str) -> RowUnits:
        return RowUnits(text=text, row=row, lexicon=self)

    def with_identifier(self, identifier: str) -> Rows:
        """Rows where every part of the identifier is a whole alphanumeric run."""
        return _all_of(self.key(part, RUN) for part in identifier.split("-"))

    def with_quantity(self, quantity: str) -> Rows | None:
        edge = edge_of(quantity)
        return None if edge is None else self.key(_EDGE_PREFIX + edge, EDGE)

    def containing(self, unit: str) -> tuple[Rows, bool] | None:
        """Rows whose text may contain `unit` as answerability's document frequency tests it
        (a Chinese word as a substring, an identifier as whole tokens, a word as a word unit),
        and whether they are exactly those; None when nothing narrows it (every row may)."""
        if not unit:
            return None
        if _CJK_RUN.match(unit):
            return self._with_cjk(unit)
        if text_analysis.identifiers_in(unit) == [unit]:
            return self.with_identifier(unit), False
        if text_analysis.is_compound(unit):
            return None  # found hyphenated, solid or its parts apart (`compound_in`): read all
        return self.key(unit, WORD), True  # the word units are what is indexed

    def _with_cjk(self, unit: str) -> tuple[Rows, bool] | None:
        required: list[Rows] = []
        for run in _CJK_RUN.findall(unit):
            if len(run) >= 2:
                required += [self.term(run[i : i + 2])[0] for i in range(len(run) - 1)]
            elif not text_analysis.is_function_char(run):  # function characters are no terms
                required.append(self.term(run)[0])
        if not required:
            return None
        # A Chinese word of one or two characters is in a text exactly where that term is
        # (two characters side by side belong to one run, whose bigrams are all terms).
        whole = _CJK_RUN.fullmatch(unit) is not None and len(required) == 1
        return _all_of(required), whole

    @property
    def nbytes(self) -> int:
        lengths = self._lengths.itemsize * len(self._lengths)
        return self._tf.nbytes + self._has.nbytes + lengths + self._vocabulary_bytes


def _all_of(postings: Iterable[Rows]) -> Rows:
    found: Rows | None = None
    for rows in postings:
        found = rows if found is None else np.intersect1d(found, rows, assume_unique=True)
        if len(found) == 0:
            return _NONE
    return _NONE if found is None else found


def _match_keys(text: str) -> tuple[tuple[Collection[str], int], ...]:
    """A text's keys by kind, each key once per kind."""
    edges = {_EDGE_PREFIX + edge for edge in _EDGE.findall(compact(text))}
    return (
        (text_analysis.TextUnits.of(text).words, WORD),
        (set(_RUN.findall(text)), RUN),
        (edges, EDGE),
    )
