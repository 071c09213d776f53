"""In-process caches keyed by immutable content, so a stale entry can never be served.

* chunk payloads (vector, text, tokens) are keyed by (index version, chunk id): a chunk id names
  one immutable document version and span, so its payload never changes;
* a tenant's chunk list is cached with the generation counter SQL keeps for it
  (IndexTenantState), checked on every query, so a change made by any process is seen at once;
* lexical views are keyed by a fingerprint of the principal's eligible chunk set, which is read
  fresh from SQL on every query: a publish, revoke, import or ACL change yields a new fingerprint;
* rankings are keyed by (index version, that fingerprint, query, k) and every hit they name is
  still re-verified against SQL;
* query embeddings depend on the model and the text only.

Eligibility itself is never cached. Purging a document evicts every entry that mentions it, and
`mentions()` lets the purge check prove nothing is left.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import bm25s
import numpy as np
import numpy.typing as npt

from services.language import tokens as text_analysis
from services.retrieval.embedders import Vectors

# bm25s sets its own logger to DEBUG on import and logs every index build: that floods logs
# (and pytest's captured output) with nothing a person needs.
logging.getLogger("bm25s").setLevel(logging.WARNING)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def evict_where(self, predicate: Callable[[K, V], bool]) -> int:
        with self._lock:
            doomed = [key for key, value in self._items.items() if predicate(key, value)]
            for key in doomed:
                del self._items[key]
            return len(doomed)

    def items(self) -> list[tuple[K, V]]:
        with self._lock:
            return list(self._items.items())

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

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


@dataclass
class TenantBlock:
    """All payloads fetched so far for one tenant in one index version, as one matrix."""

    dimension: int
    ids: list[str] = field(default_factory=list)
    row_of: dict[str, int] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)  # normalised title + text for exact matching
    units: list[text_analysis.TextUnits] = field(default_factory=list)
    matrix: Vectors = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))

    def add(self, payloads: Sequence[Payload]) -> None:
        fresh = [p for p in payloads if p.chunk_id not in self.row_of]
        if not fresh:
            return
        for payload in fresh:
            self.row_of[payload.chunk_id] = len(self.ids)
            self.ids.append(payload.chunk_id)
            self.texts.append(payload.text)
            self.titles.append(payload.title)
            self.hashes.append(payload.content_hash)
            normalized = text_analysis.normalize(f"{payload.title}\n{payload.text}")
            self.matched.append(normalized)
            self.units.append(text_analysis.TextUnits.of(normalized))
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
        block.units = [self.units[i] for i in kept]
        block.matrix = self.matrix[kept] if kept else np.zeros((0, 0), dtype=np.float32)
        return block


@dataclass(frozen=True)
class LexicalView:
    """A principal's eligible chunks inside a tenant block, with a BM25 index over exactly them."""

    fingerprint: str
    rows: npt.NDArray[np.int64]
    chunk_ids: tuple[str, ...]
    bm25: Any  # bm25s.BM25, or None when there is nothing to index

    def document_frequency(self, token: str) -> int:
        """How many of the view's chunks contain `token` (a BM25 token: CJK n-gram, word)."""
        if self.bm25 is None:
            return 0
        return int(np.count_nonzero(self.bm25_scores([token])))

    def bm25_scores(self, query_tokens: list[str]) -> npt.NDArray[np.float64]:
        if self.bm25 is None or not query_tokens:
            return np.zeros(len(self.rows))
        return np.asarray(self.bm25.get_scores(query_tokens), dtype=np.float64)[: len(self.rows)]


def fingerprint(parts: Iterable[str]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in sorted(parts):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


class RetrievalCaches:
    def __init__(
        self,
        *,
        query_vectors: int = 2048,
        views: int = 512,
        rankings: int = 4096,
        chunk_tables: int = 1024,
    ) -> None:
        self.query_vectors: Lru[tuple[str, str], Vectors] = Lru(query_vectors)
        self.views: Lru[tuple[str, str, str], LexicalView] = Lru(views)
        self.rankings: Lru[tuple[str, str, str, int], tuple[Any, ...]] = Lru(rankings)
        # (index version, tenant) → ChunkTable, valid while its generation matches SQL's.
        self.chunk_tables: Lru[tuple[str, str], Any] = Lru(chunk_tables)
        self._blocks: dict[tuple[str, str], TenantBlock] = {}
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
            block = self._blocks.setdefault(key, TenantBlock(dimension=dimension))
            missing = [c for c in chunk_ids if c not in block.row_of]
            if missing:
                block.add(fetch(missing))
            return block

    def view(
        self, index_version: str, tenant_id: str, block: TenantBlock, chunk_ids: Sequence[str]
    ) -> LexicalView:
        present = [c for c in chunk_ids if c in block.row_of]
        key = (index_version, tenant_id, fingerprint(present))
        cached = self.views.get(key)
        if cached is not None:
            return cached
        rows = np.array([block.row_of[c] for c in present], dtype=np.int64)
        retriever = None
        if present:
            retriever = bm25s.BM25()
            # Tokens are derived here rather than kept per chunk: as lists of short strings they
            # would be the largest thing in the cache, and a view is built once per eligible set.
            retriever.index([block.tokens_of(int(r)) or [""] for r in rows], show_progress=False)
        view = LexicalView(fingerprint=key[2], rows=rows, chunk_ids=tuple(present), bm25=retriever)
        self.views.put(key, view)
        return view

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
        # Rankings name block rows too: a renumbered block's index version loses them all.
        versions = {index_version for index_version, _tenant in renumbered}
        removed += self.rankings.evict_where(
            lambda k, v: k[0] in versions or bool(doomed & {_chunk_of(e) for e in v})
        )
        removed += self.chunk_tables.evict_where(lambda _k, v: bool(doomed & v.rows.keys()))
        return removed

    def evict_index_version(self, index_version: str) -> None:
        with self._lock:
            for key in [k for k in self._blocks if k[0] == index_version]:
                del self._blocks[key]
        self.views.evict_where(lambda k, _v: k[0] == index_version)
        self.rankings.evict_where(lambda k, _v: k[0] == index_version)
        self.chunk_tables.evict_where(lambda k, _v: k[0] == index_version)

    def ids_with_prefix(self, chunk_prefix: str) -> list[str]:
        """Every cached chunk id (blocks, views, rankings) starting with `chunk_prefix`."""
        with self._lock:
            ids = {c for block in self._blocks.values() for c in block.ids}
        ids |= {c for _k, view in self.views.items() for c in view.chunk_ids}
        ids |= {_chunk_of(e) for _k, ranking in self.rankings.items() for e in ranking}
        ids |= {c for _k, table in self.chunk_tables.items() for c in table.rows}
        return sorted(c for c in ids if c.startswith(chunk_prefix))

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
        return count

    def clear(self) -> None:
        with self._lock:
            self._blocks.clear()
        self.views.clear()
        self.rankings.clear()
        self.chunk_tables.clear()
        self.query_vectors.clear()


def _chunk_of(entry: Any) -> str:
    """Ranking entries are candidates (with a chunk_id) or bare chunk ids."""
    return str(getattr(entry, "chunk_id", entry))
