"""Vectors a model has produced, kept in a file that every process of one host shares.

A model embeds the same text to the same vector, and the texts a run embeds — its queries, the
candidate spans of the chunks it reads, the sentences of the mails it remembers — repeat across
runs and across processes: four `memdesk worker` processes each embedded every span they met for
the first time, and each CLI command starts with empty caches. `SharedEmbeddings` answers a text
embedded before (by any process with the same home) from a SQLite file next to the store, and
asks the model only for the rest, in one call.

It is a cache, never a source of truth: a file another process holds too long is skipped for
that call; one that cannot be opened, read or written (corrupt, read-only, full) is logged once
and the model answers for the rest of the process; a row whose length is not the model's
dimension is a miss. Its key names the model, its dimension and its package version, so vectors
of another model (or another release of it) are never served. The file is bounded: past
`max_mb` the rows written first are removed. Documents being indexed are not embedded through
it (`uncached`): each chunk is embedded once per version and stored in the index already.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from services.retrieval.embedders import Embedder, Vectors

_T = TypeVar("_T")

log = logging.getLogger(__name__)

# Pages of 16 KB hold seven 512-d rows; at SQLite's default 4 KB one such row filled a page.
PAGE_SIZE = 16_384
# Bytes a row costs in the file beyond its vector (key, its index, page slack, the pages rows
# written first leave behind): 336 measured with 4,000 rows of 512 dimensions written once,
# ~650 at the high-water mark of a file trimmed again and again (the unit test's bound).
ROW_OVERHEAD = 704
WAL_PAGES = 256  # the write-ahead log is folded into the file past 4 MB (SQLite's default: 16)
# The file is measured against its ceiling once every this many rows written.
TRIM_EVERY = 256
BUSY_TIMEOUT_S = 2.0  # a file locked longer by another process: this access is skipped
READ_BATCH = 500  # keys per SELECT, well under SQLite's limit on bound parameters


class SharedEmbeddings:
    """`inner` with its vectors kept in `path` (see the module's docstring)."""

    def __init__(self, inner: Embedder, path: Path, *, max_mb: int, version: str = "") -> None:
        self.uncached = inner
        self._path = path
        self._max_rows = max(1, max_mb * 2**20 // (inner.dimension * 4 + ROW_OVERHEAD))
        self._prefix = f"{inner.name}\0{inner.dimension}\0{version}\0".encode()
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._broken = False
        self._written = 0

    @property
    def name(self) -> str:
        return self.uncached.name

    @property
    def dimension(self) -> int:
        return self.uncached.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._vectors("document", texts, self.uncached.embed)

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self._vectors("query", [text], self._queries)[0]
        return row

    def _queries(self, texts: Sequence[str]) -> Vectors:
        return np.vstack([self.uncached.embed_query(text) for text in texts])

    # ---- the file ---------------------------------------------------------------------------
    def _vectors(
        self, kind: str, texts: Sequence[str], model: Callable[[Sequence[str]], Vectors]
    ) -> Vectors:
        if not texts:
            return model(texts)
        keys = [self._key(kind, text) for text in texts]
        found = self._read(list(dict.fromkeys(keys)))
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if missing:
            fresh = model(missing)
            made = {self._key(kind, t): row for t, row in zip(missing, fresh, strict=True)}
            self._write(made)
            found.update(made)
        return np.vstack([found[key] for key in keys]).astype(np.float32, copy=False)

    def _key(self, kind: str, text: str) -> bytes:
        return hashlib.blake2b(
            self._prefix + kind.encode() + b"\0" + text.encode(), digest_size=16
        ).digest()

    def _read(self, keys: list[bytes]) -> dict[bytes, Vectors]:
        def read(db: sqlite3.Connection) -> list[tuple[bytes, bytes]]:
            rows = []
            for i in range(0, len(keys), READ_BATCH):
                part = keys[i : i + READ_BATCH]
                rows += db.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})",
                    part,
                ).fetchall()
            return rows

        size = self.dimension * 4
        found: dict[bytes, Vectors] = {}
        for key, blob in self._use(read) or ():
            if len(blob) == size:  # anything else is not this model's vector: a miss
                found[key] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def _write(self, made: dict[bytes, Vectors]) -> None:
        def write(db: sqlite3.Connection) -> None:
            with db:
                db.executemany(
                    "INSERT OR IGNORE INTO vectors (key, vector) VALUES (?, ?)",
                    [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in made.items()],
                )
            self._written += len(made)
            if self._written >= TRIM_EVERY:
                self._written = 0
                self._trim(db)

        self._use(write)

    def _trim(self, db: sqlite3.Connection) -> None:
        """Drop the rows written first, down to nine tenths of what leaves room for the next
        TRIM_EVERY rows under the ceiling (the file reuses the pages they free)."""
        room = max(1, self._max_rows - TRIM_EVERY)
        (count,) = db.execute("SELECT count(*) FROM vectors").fetchone()
        if count <= room:
            return
        with db:
            db.execute(
                "DELETE FROM vectors WHERE rowid IN "
                "(SELECT rowid FROM vectors ORDER BY rowid LIMIT ?)",
                (count - room * 9 // 10,),
            )

    def _use(self, fn: Callable[[sqlite3.Connection], _T]) -> _T | None:
        if self._broken:
            return None
        with self._lock:
            try:
                if self._connection is None:
                    self._connection = self._open()
                return fn(self._connection)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    self._give_up(exc)
                    return None
                # Another process held the file past the timeout: this read or write is
                # skipped (the model answers), the next one tries again.
                log.debug("embedding cache %s busy: %s", self._path, exc)
                return None
            except (sqlite3.Error, OSError) as exc:
                self._give_up(exc)
                return None

    def _give_up(self, exc: Exception) -> None:
        """A file that does not work is left alone for the life of this process; the model
        answers every text, as it would without the cache."""
        self._broken = True
        log.warning("embedding cache %s not used: %s", self._path, exc)

    def _open(self) -> sqlite3.Connection:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self._path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # takes effect when the file is created
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES}")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)"
        )
        return db
