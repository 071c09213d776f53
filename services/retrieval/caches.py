"""In-process caches keyed by immutable content, so a stale entry can never be served.

* chunk payloads (vector, text, tokens) are keyed by (index version, chunk id): a chunk id names
  one immutable document version and span, so its payload never changes;
* a tenant's chunk list is cached with the generation counter SQL keeps for it
  (IndexTenantState), checked on every query, so a change made by any process is seen at once;
* a principal's eligible (document, version) set is kept under the tenant's knowledge generation,
  which database triggers move with every change to a version or an ACL row and which is read
  from SQL on every query (services/retrieval/eligibility.py): a publish, revoke, expiry edit,
  import or ACL change, by any process or by hand, files the next read under a new key; its
  selection of the chunk list is kept under both generations;
* lexical views are keyed by a fingerprint of the principal's eligible chunk set: a change to
  that set yields a new fingerprint;
* rankings are keyed by (index version, that fingerprint, query, k) and every hit they name is
  still re-verified against SQL; the document frequency of a query's unit among a view's chunks
  is keyed by (index version, tenant, that fingerprint, unit);
* query embeddings depend on the model and the text only;
* analyses of a hit's text (its clauses' words and quantities, a span's units: `TextAnalyses`)
  are keyed by the analysed text itself, and by the chunk it was cut from only so that purging
  the chunk evicts them; pieces many chunks of a tenant share (the runs of characters jieba's
  tagger does not know as words) are keyed by the tenant instead, and go with its block or
  when any of its chunks is evicted.

Memory has a ceiling (`budget_bytes`, MEMDESK_RETRIEVAL_CACHE_MB): every entry above counts its
bytes, and when they add up to more than the ceiling less the allocator's margin
(ALLOCATOR_MARGIN), whole tenant blocks are dropped least recently used first,
with the views, rankings and chunk list of that tenant; the next query of the tenant fetches
and indexes them again. A tenant block larger than the ceiling on its own is still served.

Every hit is still re-verified against fresh SQL rows, whatever was cached. Purging a document
evicts every entry that mentions it, and `mentions()` lets the purge check prove nothing is left.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import sys
import threading
from collections import OrderedDict
from collections.abc import (
    Callable,
    Container,
    Hashable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast, overload

import numpy as np
import numpy.typing as npt

from services.language import tokens as text_analysis
from services.retrieval.embedders import Vectors
from services.retrieval.lexicon import Lexicon, RowUnits
from services.retrieval.records import chunk_prefix as prefix_of

# BM25 as bm25s computes it with its defaults (method "lucene"): the scores below are those of
# `bm25s.BM25().index(...)` over exactly the view's chunks, read from the block's postings
# instead of a fresh index per eligible set (tests/unit/test_ranking_equivalence.py).
BM25_K1 = 1.5
BM25_B = 0.75
# Estimated bytes of cache entries that are Python objects rather than arrays.
_POINTER = 8
_DICT_ENTRY = 104
_CHUNK_ROW_BYTES = 480
_CANDIDATE_BYTES = 120
# Rankings and query vectors together keep at most this fraction of the ceiling (1/8 each).
RECOMPUTABLE_SHARE = 8

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """Least recently used first out, past `capacity` entries or past `max_weight` as `weigh`
    counts them (once per entry: its weight is kept with it)."""

    def __init__(
        self,
        capacity: int,
        *,
        weigh: Callable[[V], int] | None = None,
        max_weight: int | None = None,
    ) -> None:
        self._capacity = capacity
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._weigh = weigh
        self.max_weight = max_weight
        self.weight = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            held = self._items.get(key)
            if held is None:
                return None
            self._items.move_to_end(key)
            return held[0]

    def put(self, key: K, value: V) -> None:
        weight = self._weigh(value) if self._weigh is not None else 0
        with self._lock:
            if key in self._items:
                self._forget(key)
            self._items[key] = (value, weight)
            self.weight += weight
            while len(self._items) > self._capacity or (
                self.max_weight is not None and self.weight > self.max_weight and self._items
            ):
                self._forget(next(iter(self._items)))

    def evict_where(self, predicate: Callable[[K, V], bool]) -> int:
        with self._lock:
            doomed = [key for key, (value, _w) in self._items.items() if predicate(key, value)]
            for key in doomed:
                self._forget(key)
            return len(doomed)

    def _forget(self, key: K) -> None:
        self.weight -= self._items.pop(key)[1]

    def items(self) -> list[tuple[K, V]]:
        with self._lock:
            return [(key, value) for key, (value, _w) in self._items.items()]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.weight = 0

    def __len__(self) -> int:
        return len(self._items)


@dataclass(frozen=True)
class Payload:
    """What the store holds for one chunk, plus its analysed text."""

    chunk_id: str
    vector: Vectors
    text: str  # sliced from the SQL body (Chroma holds vectors and metadata, no texts)
    title: str
    content_hash: str  # what the vector was computed from, as Chroma's metadata says


class _Units(Sequence[text_analysis.TextUnits]):
    """The unit sets of a block's rows, computed when read (a set per chunk held in memory
    would cost more than the chunk's text)."""

    def __init__(self, matched: Sequence[str]) -> None:
        self._matched = matched

    def __len__(self) -> int:
        return len(self._matched)

    @overload
    def __getitem__(self, row: int) -> text_analysis.TextUnits: ...
    @overload
    def __getitem__(self, row: slice) -> list[text_analysis.TextUnits]: ...
    def __getitem__(
        self, row: int | slice
    ) -> text_analysis.TextUnits | list[text_analysis.TextUnits]:
        if isinstance(row, slice):
            return [text_analysis.TextUnits.of(m) for m in self._matched[row]]
        return text_analysis.TextUnits.of(self._matched[row])

    def __iter__(self) -> Iterator[text_analysis.TextUnits]:
        return (text_analysis.TextUnits.of(m) for m in self._matched)


@dataclass
class TenantBlock:
    """All payloads fetched so far for one tenant in one index version, as one matrix, with the
    inverted indexes of their texts (services/retrieval/lexicon.py). A block read from disk
    (services/retrieval/blocks.py) holds its text columns as read-only sequences until it grows."""

    dimension: int
    ids: list[str] = field(default_factory=list)
    row_of: dict[str, int] = field(default_factory=dict)
    texts: Sequence[str] = field(default_factory=list)
    titles: Sequence[str] = field(default_factory=list)
    hashes: Sequence[str] = field(default_factory=list)
    matched: Sequence[str] = field(default_factory=list)  # normalised title + text to match
    matrix: Vectors = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    lexicon: Lexicon = field(default_factory=Lexicon)
    object_bytes: int = 0  # the strings and list slots of its rows
    # Block row of each chunk of a chunk list (by its key), while the block has not grown.
    _rows_for: tuple[Hashable, int, npt.NDArray[np.int64]] | None = None
    # (chunk list key, rows) when every row was last found in that chunk list.
    checked: tuple[Hashable, int] | None = None
    # Whether each row is written in English (text_analysis.script_of its matched text): a
    # question's words in translation reach rows of the other script only.
    english: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))

    def rows_for(self, key: Hashable, ids: Sequence[str]) -> npt.NDArray[np.int64]:
        """The block row of each of `ids` (-1: not fetched), remembered for one chunk list."""
        held = self._rows_for
        if held is not None and held[0] == key and held[1] == len(self.ids):
            return held[2]
        if len(ids) == len(self.ids) and tuple(self.ids) == tuple(ids):
            rows = np.arange(len(ids), dtype=np.int64)  # a block made for this very list
        else:
            row_of = self.row_of
            rows = np.fromiter((row_of.get(c, -1) for c in ids), dtype=np.int64, count=len(ids))
        self._rows_for = (key, len(self.ids), rows)
        return rows

    @property
    def units(self) -> _Units:
        return _Units(self.matched)

    def unit_set(self, row: int) -> RowUnits:
        """`unit in block.units[row]`, answered from the index without building the set."""
        return self.lexicon.units(row, self.matched[row])

    @property
    def nbytes(self) -> int:
        return (
            int(self.matrix.nbytes) + self.lexicon.nbytes + self.object_bytes + self.english.nbytes
        )

    def add(self, payloads: Sequence[Payload]) -> None:
        fresh = [p for p in payloads if p.chunk_id not in self.row_of]
        if not fresh:
            return
        texts, titles = _growable(self.texts), _growable(self.titles)
        hashes, matched_rows = _growable(self.hashes), _growable(self.matched)
        matched: list[str] = []
        for payload in fresh:
            self.row_of[payload.chunk_id] = len(self.ids)
            self.ids.append(payload.chunk_id)
            texts.append(payload.text)
            titles.append(payload.title)
            hashes.append(payload.content_hash)
            normalized = text_analysis.normalize(f"{payload.title}\n{payload.text}")
            matched_rows.append(normalized)
            matched.append(normalized)
            self.object_bytes += _row_bytes(payload, normalized)
        self.texts, self.titles, self.hashes, self.matched = texts, titles, hashes, matched_rows
        english = [text_analysis.script_of(text) == "latin" for text in matched]
        self.english = np.concatenate([self.english, np.array(english, dtype=np.bool_)])
        # BM25 tokens of title + text, as the views were indexed with (tokens_of).
        self.lexicon.add(matched, [text_analysis.tokens_in(text) for text in matched])
        rows = np.vstack([p.vector for p in fresh]).astype(np.float32)
        self.matrix = rows if self.matrix.size == 0 else np.vstack([self.matrix, rows])

    def tokens_of(self, row: int) -> list[str]:
        return text_analysis.tokens(f"{self.titles[row]}\n{self.texts[row]}")

    def without(self, doomed: set[str]) -> TenantBlock:
        kept = [i for i, chunk_id in enumerate(self.ids) if chunk_id not in doomed]
        block = TenantBlock(dimension=self.dimension)
        block.ids = [self.ids[i] for i in kept]
        block.row_of = {chunk_id: n for n, chunk_id in enumerate(block.ids)}
        block.texts = [self.texts[i] for i in kept]
        block.titles = [self.titles[i] for i in kept]
        block.hashes = [self.hashes[i] for i in kept]
        block.matched = [self.matched[i] for i in kept]
        block.english = self.english[kept]
        block.matrix = self.matrix[kept] if kept else np.zeros((0, 0), dtype=np.float32)
        block.lexicon = self.lexicon.subset(np.asarray(kept, dtype=np.int64))
        block.object_bytes = self.object_bytes * len(kept) // max(1, len(self.ids))
        return block


def _growable(column: Sequence[str]) -> list[str]:
    """The column as a list to append to (a block read from disk holds them read-only)."""
    return column if isinstance(column, list) else list(column)


def _row_bytes(payload: Payload, normalized: str) -> int:
    strings = (payload.chunk_id, payload.text, payload.title, payload.content_hash, normalized)
    return sum(sys.getsizeof(s) for s in strings) + 6 * _POINTER + _DICT_ENTRY


@dataclass(frozen=True)
class LexicalView:
    """A principal's eligible chunks inside a tenant block, with BM25 over exactly them."""

    fingerprint: str
    rows: npt.NDArray[np.int64]
    chunk_ids: tuple[str, ...]
    positions: npt.NDArray[np.int32]  # block row → its position in `rows`, -1 when not in it
    lexicon: Lexicon
    average_length: float  # mean BM25 length of the view's chunks (bm25s: avg_doc_len)

    @classmethod
    def of(cls, fingerprint: str, block: TenantBlock, rows: npt.NDArray[np.int64]) -> LexicalView:
        positions = np.full(len(block.ids), -1, dtype=np.int32)
        positions[rows] = np.arange(len(rows), dtype=np.int32)
        average = block.lexicon.lengths[rows].mean() if len(rows) else 0.0
        return cls(
            fingerprint=fingerprint,
            rows=rows,
            chunk_ids=tuple(block.ids[int(r)] for r in rows),
            positions=positions,
            lexicon=block.lexicon,
            average_length=average,
        )

    @property
    def nbytes(self) -> int:
        return int(self.rows.nbytes + self.positions.nbytes) + _POINTER * len(self.chunk_ids)

    def position_of(self, block_rows: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Positions in the view of those `block_rows` it holds, in the order given."""
        inside = block_rows[block_rows < len(self.positions)]
        found = self.positions[inside]
        return found[found >= 0].astype(np.int64)

    def document_frequency(self, token: str) -> int:
        """How many of the view's chunks contain `token` (a BM25 token: CJK n-gram, word)."""
        return len(self.position_of(self.lexicon.term(token)[0]))

    def bm25_scores(self, query_tokens: list[str]) -> npt.NDArray[np.float64]:
        scores = np.zeros(len(self.rows), dtype=np.float32)
        if len(self.rows) == 0 or not query_tokens:
            return scores.astype(np.float64)
        by_term: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]] = {}
        for token in query_tokens:  # a repeated query token counts again, as in bm25s
            if token not in by_term:
                by_term[token] = self._term_scores(token)
            positions, values = by_term[token]
            scores[positions] += values  # float32 sums in query order, as bm25s adds them
        return scores.astype(np.float64)

    def _term_scores(self, token: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Each containing chunk's BM25 weight for one term, in bm25s's arithmetic (lucene
        idf in float32, term-frequency saturation in float64, stored as float32)."""
        rows, counts = self.lexicon.term(token)
        inside = rows < len(self.positions)
        rows, counts = rows[inside], counts[inside]
        found = self.positions[rows]
        mine = found >= 0
        positions = found[mine].astype(np.int64)
        if len(positions) == 0:
            return positions, np.zeros(0, dtype=np.float32)
        n, df = len(self.rows), len(positions)
        idf = np.float32(math.log(1 + (n - df + 0.5) / (df + 0.5)))
        tf = counts[mine].astype(np.float32)
        lengths = self.lexicon.lengths[rows[mine]]
        saturation = tf / (BM25_K1 * ((1 - BM25_B) + BM25_B * lengths / self.average_length) + tf)
        return positions, (idf * saturation).astype(np.float32)


T = TypeVar("T")


class TextAnalyses:
    """Pure functions of a text, remembered: `get(chunk_id, kind, text, analyse)` is always
    `analyse(text)`. The hits of one tenant's queries come back to the same chunks, whose texts
    never change (a chunk id names one immutable version and span), and segmenting them again
    (jieba's tagger, the quantity and fact patterns) was most of a query's cost. The chunk id
    is part of the key only so that `evict_chunks` and `mentions` find a purged chunk's texts;
    `kind` names the analysis (one text has several)."""

    def __init__(self, capacity: int, *, max_weight: int | None = None) -> None:
        self._lru: Lru[tuple[str, str, str], _Analysed] = Lru(
            capacity, weigh=_approx_bytes, max_weight=max_weight
        )

    def get(self, chunk_id: str, kind: str, text: str, analyse: Callable[[str], T]) -> T:
        key = (chunk_id, kind, text)
        entry = self._lru.get(key)
        if entry is not None:
            return cast(T, entry.value)
        value = analyse(text)
        # The key's text is counted with the value: it is held as long as the entry.
        self._lru.put(key, _Analysed(value, len(text)))
        return value

    def get_many(
        self,
        chunk_id: str,
        kind: str,
        texts: Sequence[str],
        analyse: Callable[[list[str]], Sequence[T]],
    ) -> list[T]:
        """`get` for several texts of one chunk, the missing ones analysed in one call (a
        model embeds a batch for about the price of one text)."""
        found: dict[str, T] = {}
        for text in texts:
            entry = self._lru.get((chunk_id, kind, text))
            if entry is not None:
                found[text] = cast(T, entry.value)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            for text, value in zip(missing, analyse(missing), strict=True):
                self._lru.put((chunk_id, kind, text), _Analysed(value, len(text)))
                found[text] = value
        return [found[text] for text in texts]

    def shared(self, chunk_id: str, kind: str) -> Callable[[str, Callable[[str], T]], T]:
        """`remember(piece, analyse)`: `analyse(piece)` for pieces of text that many chunks of
        `chunk_id`'s tenant share (the runs of characters jieba's tagger does not know as
        words), remembered once for the tenant rather than per chunk. Kept under the tenant's
        prefix (tenant/): dropped with its block, and with every other shared piece of the
        tenant when any of its chunks is evicted (`evict_chunks`), so a purged text leaves
        nothing behind."""
        owner = _tenant_prefix(chunk_id)

        def remember(piece: str, analyse: Callable[[str], T]) -> T:
            return self.get(owner, kind, piece, analyse)

        return remember

    @property
    def weight(self) -> int:
        return self._lru.weight

    def evict_where(self, predicate: Callable[[str], bool]) -> int:
        """Drop the analyses of every chunk id (or tenant prefix, for shared pieces)
        `predicate` accepts."""
        return self._lru.evict_where(lambda k, _v: predicate(k[0]))

    def chunk_ids(self) -> set[str]:
        """The chunks analyses are kept for (shared pieces name their tenant only)."""
        return {k[0] for k, _v in self._lru.items() if not k[0].endswith("/")}

    def clear(self) -> None:
        self._lru.clear()

    def __len__(self) -> int:
        return len(self._lru)


@dataclass(frozen=True, slots=True)
class _Analysed:
    value: Any
    text_chars: int


def _tenant_prefix(chunk_id: str) -> str:
    """tenant/ of a chunk id tenant/DOC@V#N."""
    return f"{chunk_id.split('/', 1)[0]}/"


def _approx_bytes(entry: _Analysed) -> int:
    """An entry's bytes, estimated cheaply (it is weighed on every miss): its key (tuple, the
    text at up to 4 bytes a character, the chunk id) and its value one level into containers
    and dataclasses, each element counted at `_ELEMENT_BYTES`. A walk of the whole value cost
    7% of a query's time in a profile."""
    return _DICT_ENTRY + 3 * _POINTER + 4 * entry.text_chars + 120 + _shallow(entry.value, 1)


_ELEMENT_BYTES = 64


def _shallow(value: Any, depth: int) -> int:
    if isinstance(value, str):
        return sys.getsizeof(value)
    if isinstance(value, np.ndarray):  # a vector: its buffer and the array object
        return int(value.nbytes) + _ELEMENT_BYTES
    if isinstance(value, tuple | list | frozenset | set):
        return sys.getsizeof(value) + _ELEMENT_BYTES * len(value)
    if depth > 0 and hasattr(value, "__dataclass_fields__"):
        fields = value.__dataclass_fields__
        return _ELEMENT_BYTES + sum(_shallow(getattr(value, f), depth - 1) for f in fields)
    return _ELEMENT_BYTES


def fingerprint(parts: Iterable[str]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in sorted(parts):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


# Share of the ceiling the allocator's heap around the entries may take. Freed analyses and
# blocks leave holes that later, differently sized entries do not fill: with tenants queried
# round-robin under the ceiling, RSS grew 13% past the entries' bytes at 64 MB and 5% at 512 MB
# (README "Benchmarks"); handing freed pages back (below) takes about half of it.
ALLOCATOR_MARGIN = 0.1
# Freed heap is handed back to the OS each time evictions have freed this share of the ceiling.
RELEASE_SHARE = 8


def release_freed_memory() -> None:
    """Hand the heap's free pages back to the OS (glibc's malloc_trim; elsewhere nothing)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


class RetrievalCaches:
    def __init__(
        self,
        *,
        query_vectors: int = 2048,
        views: int = 512,
        rankings: int = 4096,
        chunk_tables: int = 1024,
        analyses: int = 65536,
        frequencies: int = 65536,
        eligible: int = 1024,
        budget_bytes: int | None = None,
    ) -> None:
        # Cheap to recompute: under a ceiling they keep at most a small share of it, so a
        # tenant's block is never dropped to make room for old rankings.
        share = budget_bytes // RECOMPUTABLE_SHARE if budget_bytes is not None else None
        self.query_vectors: Lru[tuple[str, str], Vectors] = Lru(
            query_vectors, weigh=lambda v: int(v.nbytes), max_weight=share
        )
        self.views: Lru[tuple[str, str, str], LexicalView] = Lru(views, weigh=lambda v: v.nbytes)
        self.rankings: Lru[tuple[str, str, str, int], tuple[Any, ...]] = Lru(
            rankings, weigh=lambda r: _CANDIDATE_BYTES * len(r), max_weight=share
        )
        # (index version, tenant) → ChunkTable, valid while its generation matches SQL's.
        self.chunk_tables: Lru[tuple[str, str], Any] = Lru(
            chunk_tables, weigh=lambda t: _CHUNK_ROW_BYTES * len(t.rows)
        )
        # Analyses of hits' texts: recomputable, so held to the same small share.
        self.analyses = TextAnalyses(analyses, max_weight=share)
        # (index version, tenant, view fingerprint, unit) → in how many of the view's chunks the
        # unit is: a query's units recur across queries, and counting a common word's chunks
        # reads as many texts as the tenant has chunks with it.
        self.frequencies: Lru[tuple[str, str, str, str], int] = Lru(
            frequencies, weigh=_frequency_bytes, max_weight=share
        )
        # eligibility_key (tenant, ACL tags, as_of, knowledge generation) → EligibleSet, and
        # (chunk list key, eligibility_key) → that set's Eligibility in the chunk list.
        self.eligible: Lru[Hashable, EligibleSet] = Lru(
            eligible, weigh=lambda e: e.nbytes, max_weight=share
        )
        self.selections: Lru[tuple[Hashable, Hashable], Any] = Lru(
            eligible, weigh=_selection_bytes, max_weight=share
        )
        self.budget_bytes = budget_bytes
        # What the entries may add up to: the ceiling less the heap the allocator keeps around
        # them (ALLOCATOR_MARGIN), so the process's memory, not only the estimate, stays under.
        self.held_bytes = (
            int(budget_bytes * (1 - ALLOCATOR_MARGIN)) if budget_bytes is not None else None
        )
        self._dropped_since_release = 0
        self.evicted_blocks = 0
        self._blocks: OrderedDict[tuple[str, str], TenantBlock] = OrderedDict()
        self._lock = threading.RLock()

    # ---- tenant blocks ---------------------------------------------------------------------
    def block(
        self,
        index_version: str,
        tenant_id: str,
        chunk_ids: Sequence[str],
        *,
        dimension: int,
        fetch: Callable[[list[str]], list[Payload]],
    ) -> TenantBlock:
        """The tenant's block holding at least `chunk_ids`; missing payloads are fetched once."""
        key = (index_version, tenant_id)
        with self._lock:
            block = self._blocks.get(key)
            if block is None:
                block = self._blocks[key] = TenantBlock(dimension=dimension)
            self._blocks.move_to_end(key)
            row_of = block.row_of
            missing = [c for c in chunk_ids if c not in row_of]
            if missing:
                block.add(fetch(missing))
                self.enforce_budget(keep=key)
            return block

    def view(
        self, index_version: str, tenant_id: str, block: TenantBlock, chunk_ids: Sequence[str]
    ) -> LexicalView:
        row_of = block.row_of
        present = [c for c in chunk_ids if c in row_of]
        key = (index_version, tenant_id, fingerprint(present))
        cached = self.views.get(key)
        if cached is not None:
            return cached
        rows = np.array([row_of[c] for c in present], dtype=np.int64)
        view = LexicalView.of(key[2], block, rows)
        self.views.put(key, view)
        self.enforce_budget(keep=(index_version, tenant_id))
        return view

    def tenant_view(
        self,
        index_version: str,
        tenant_id: str,
        *,
        table_key: Hashable,
        table_ids: Sequence[str],
        selected: npt.NDArray[np.int64],
        load: Callable[[], TenantBlock],
        fetch: Callable[[list[str]], list[Payload]],
    ) -> tuple[TenantBlock, LexicalView]:
        """`block` then `view` for the chunks at positions `selected` of a chunk list that
        `table_key` names (a list is immutable under its key), without a pass over their ids:
        the view's key is the selection itself. A tenant without a block here gets the one
        `load` makes for that whole chunk list (each of its rows is in the list)."""
        key = (index_version, tenant_id)
        with self._lock:
            block = self._blocks.get(key)
            if block is None:
                block = self._blocks[key] = load()
                block.checked = (table_key, len(block.ids))
                self.enforce_budget(keep=key)
            self._blocks.move_to_end(key)
            rows = block.rows_for(table_key, table_ids)[selected]
            if (rows < 0).any():
                was_checked = block.checked == (table_key, len(block.ids))
                block.add(fetch([table_ids[int(i)] for i in selected[rows < 0]]))
                if was_checked:  # what it fetched is in the same chunk list
                    block.checked = (table_key, len(block.ids))
                self.enforce_budget(keep=key)
                rows = block.rows_for(table_key, table_ids)[selected]
        present = rows[rows >= 0]
        digest = hashlib.blake2b(repr((table_key, len(present))).encode(), digest_size=16)
        digest.update(selected.astype(np.int64).tobytes())
        view_key = (index_version, tenant_id, digest.hexdigest())
        cached = self.views.get(view_key)
        if cached is not None:
            return block, cached
        view = LexicalView.of(view_key[2], block, present)
        self.views.put(view_key, view)
        self.enforce_budget(keep=key)
        return block, view

    def drop_missing(
        self, index_version: str, tenant_id: str, *, table_key: Hashable, table: Container[str]
    ) -> int:
        """Evict the tenant block's chunks that the chunk list no longer holds (removed by any
        process); a block already checked against this list is not read again."""
        with self._lock:
            block = self._blocks.get((index_version, tenant_id))
            if block is None or block.checked == (table_key, len(block.ids)):
                return 0
            stale = [c for c in block.ids if c not in table]
        removed = self.evict_chunks(stale) if stale else 0
        with self._lock:
            block = self._blocks.get((index_version, tenant_id))
            if block is not None:
                block.checked = (table_key, len(block.ids))
        return removed

    # ---- the memory ceiling ----------------------------------------------------------------
    def nbytes(self) -> int:
        """What every retrieval cache holds together, estimated from its arrays and objects."""
        with self._lock:
            blocks = sum(block.nbytes for block in self._blocks.values())
        others = (
            self.views,
            self.rankings,
            self.chunk_tables,
            self.query_vectors,
            self.analyses,
            self.frequencies,
            self.eligible,
            self.selections,
        )
        return blocks + sum(cache.weight for cache in others)

    def cached_chunks(self) -> int:
        with self._lock:
            return sum(len(block.ids) for block in self._blocks.values())

    def enforce_budget(self, *, keep: tuple[str, str] | None = None) -> int:
        """Drop least recently used tenant blocks (never `keep`) until the caches fit."""
        if self.budget_bytes is None or self.held_bytes is None:
            return 0
        dropped = 0
        release = False
        with self._lock:
            held = self.nbytes()
            while held > self.held_bytes:
                victim = next((k for k in self._blocks if k != keep), None)
                if victim is None:
                    break  # one tenant larger than the ceiling is still served
                self._drop_tenant(victim)
                after = self.nbytes()
                self._dropped_since_release += held - after
                held = after
                dropped += 1
            if self._dropped_since_release >= self.budget_bytes // RELEASE_SHARE:
                self._dropped_since_release = 0
                release = True
        if release:  # outside the lock: other queries need not wait for the allocator
            release_freed_memory()
        self.evicted_blocks += dropped
        return dropped

    def _drop_tenant(self, key: tuple[str, str]) -> None:
        index_version, tenant_id = key
        del self._blocks[key]
        prefix = f"{tenant_id}/"  # chunk ids are tenant/DOC@V#N
        self.views.evict_where(lambda k, _v: (k[0], k[1]) == key)
        self.frequencies.evict_where(lambda k, _v: (k[0], k[1]) == key)
        self.rankings.evict_where(
            lambda k, v: k[0] == index_version and any(_chunk_of(e).startswith(prefix) for e in v)
        )
        self.chunk_tables.evict_where(lambda k, _v: k == key)
        self.analyses.evict_where(lambda chunk_id: chunk_id.startswith(prefix))
        self.eligible.evict_where(lambda _k, v: v.tenant_id == tenant_id)
        self.selections.evict_where(lambda k, _v: _table_of(k[0]) == key)

    def query_vector(self, model: str, query: str, embed: Callable[[str], Vectors]) -> Vectors:
        key = (model, query)
        cached = self.query_vectors.get(key)
        if cached is None:
            cached = embed(query)
            self.query_vectors.put(key, cached)
        return cached

    # ---- eviction and proof -------------------------------------------------------------------
    def evict_chunks(self, chunk_ids: Iterable[str]) -> int:
        doomed = set(chunk_ids)
        if not doomed:
            return 0
        removed = 0
        renumbered: set[tuple[str, str]] = set()
        with self._lock:
            for key, block in list(self._blocks.items()):
                hit = doomed & block.row_of.keys()
                if hit:
                    self._blocks[key] = block.without(hit)
                    renumbered.add(key)
                    removed += len(hit)
        # Views index rows of their block; a renumbered block invalidates all of its views.
        removed += self.views.evict_where(
            lambda k, v: (k[0], k[1]) in renumbered or bool(doomed & set(v.chunk_ids))
        )
        removed += self.frequencies.evict_where(lambda k, _v: (k[0], k[1]) in renumbered)
        # Rankings name block rows too: a renumbered block's index version loses them all.
        versions = {index_version for index_version, _tenant in renumbered}
        removed += self.rankings.evict_where(
            lambda k, v: k[0] in versions or bool(doomed & {_chunk_of(e) for e in v})
        )
        removed += self.chunk_tables.evict_where(lambda _k, v: bool(doomed & v.rows.keys()))
        # Pieces a tenant's chunks share cannot be told apart by chunk: a tenant that lost
        # chunks loses them all.
        shared_by = {_tenant_prefix(c) for c in doomed}
        removed += self.analyses.evict_where(lambda owner: owner in doomed or owner in shared_by)
        # Eligible sets name documents, not chunks: every set of a tenant that lost chunks goes.
        tenants = {c.split("/", 1)[0] for c in doomed}
        removed += self.eligible.evict_where(lambda _k, v: v.escaped_tenant in tenants)
        removed += self.selections.evict_where(lambda _k, v: bool(doomed & v.table.rows.keys()))
        return removed

    def evict_index_version(self, index_version: str) -> None:
        with self._lock:
            for key in [k for k in self._blocks if k[0] == index_version]:
                del self._blocks[key]
        self.views.evict_where(lambda k, _v: k[0] == index_version)
        self.frequencies.evict_where(lambda k, _v: k[0] == index_version)
        self.rankings.evict_where(lambda k, _v: k[0] == index_version)
        self.chunk_tables.evict_where(lambda k, _v: k[0] == index_version)
        self.selections.evict_where(lambda k, _v: _table_of(k[0])[0] == index_version)

    def ids_with_prefix(self, chunk_prefix: str) -> list[str]:
        """Every cached chunk id (blocks, views, rankings, chunk lists, analyses) starting with
        `chunk_prefix`, and the chunk prefix of every version an eligible set holds that does."""
        with self._lock:
            ids = {c for block in self._blocks.values() for c in block.ids}
        ids |= {c for _k, view in self.views.items() for c in view.chunk_ids}
        ids |= {_chunk_of(e) for _k, ranking in self.rankings.items() for e in ranking}
        ids |= {c for _k, table in self.chunk_tables.items() for c in table.rows}
        ids |= self.analyses.chunk_ids()
        ids |= {c for _k, selection in self.selections.items() for c in selection.table.rows}
        found = sorted(c for c in ids if c.startswith(chunk_prefix))
        # Eligible sets hold documents: each named by the prefix its chunk ids would have.
        found += [ref for _k, e in self.eligible.items() for ref in e.refs(chunk_prefix)]
        return sorted(set(found))

    def mentions(self, chunk_prefix: str) -> int:
        """How many cache entries still mention a chunk id starting with `chunk_prefix`."""
        with self._lock:
            count = sum(
                1
                for block in self._blocks.values()
                for c in block.ids
                if c.startswith(chunk_prefix)
            )
        count += sum(
            1
            for _k, v in self.views.items()
            if any(c.startswith(chunk_prefix) for c in v.chunk_ids)
        )
        count += sum(
            1
            for _k, v in self.rankings.items()
            if any(_chunk_of(e).startswith(chunk_prefix) for e in v)
        )
        count += sum(
            1
            for _k, table in self.chunk_tables.items()
            if any(c.startswith(chunk_prefix) for c in table.rows)
        )
        count += sum(1 for c in self.analyses.chunk_ids() if c.startswith(chunk_prefix))
        count += sum(1 for _k, e in self.eligible.items() if e.refs(chunk_prefix))
        count += sum(
            1
            for _k, selection in self.selections.items()
            if any(c.startswith(chunk_prefix) for c in selection.table.rows)
        )
        return count

    def clear(self) -> None:
        with self._lock:
            self._blocks.clear()
        self.views.clear()
        self.rankings.clear()
        self.chunk_tables.clear()
        self.query_vectors.clear()
        self.analyses.clear()
        self.frequencies.clear()
        self.eligible.clear()
        self.selections.clear()


@dataclass(frozen=True)
class EligibleSet:
    """One read of a principal's eligible versions (document id → version), kept read-only."""

    tenant_id: str
    documents: Mapping[str, int]

    @property
    def escaped_tenant(self) -> str:
        """The tenant as its chunk ids spell it (before the first /)."""
        return prefix_of(self.tenant_id, "").split("/", 1)[0]

    @property
    def nbytes(self) -> int:
        names = sum(sys.getsizeof(d) for d in self.documents)
        return names + (_DICT_ENTRY + 32) * len(self.documents) + _DICT_ENTRY

    def refs(self, prefix: str) -> list[str]:
        """The chunk prefix of each held version that starts with `prefix`."""
        return [
            ref
            for document_id, version in self.documents.items()
            if (ref := prefix_of(self.tenant_id, document_id, version)).startswith(prefix)
        ]


def _frequency_bytes(count: int) -> int:
    """A frequency entry: its key (a tuple of three short strings and the unit) and the int."""
    return _DICT_ENTRY + 4 * _POINTER + 3 * 64 + 80 + 32


def _selection_bytes(selection: Any) -> int:
    """An Eligibility's own arrays and lists (its chunk list is counted with chunk_tables)."""
    names = sum(sys.getsizeof(ref) for ref in selection.not_indexed)
    return int(selection.selected.nbytes) + names + _POINTER * len(selection.not_indexed) + 200


def _table_of(table_key: Hashable) -> tuple[str, str]:
    """(index version, tenant) of a chunk list key (index version, tenant, generation)."""
    parts = cast(tuple[str, str, int], table_key)
    return parts[0], parts[1]


def _chunk_of(entry: Any) -> str:
    """Ranking entries are candidates (with a chunk_id) or bare chunk ids."""
    return str(getattr(entry, "chunk_id", entry))
