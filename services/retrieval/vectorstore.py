"""The vector store behind a small Protocol: Chroma (embedded or server) with bounded retries."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import urlparse

import numpy as np

from services.core.clock import Clock
from services.core.errors import IndexUnavailable
from services.retrieval import index_copy
from services.retrieval.embedders import Vectors
from services.retrieval.index_retries import TransientIndexError, with_retries

T = TypeVar("T")
Metadata = dict[str, Any]
Where = dict[str, Any]

# Chroma (SQLite underneath) refuses more than ~32k variables per statement; stay well below.
ID_BATCH = 5000
# Chroma defaults for construction (ef_construction 100, M 16): larger values halve write speed
# and the governed path never searches HNSW (it scores eligible chunks exactly).
HNSW = {"space": "cosine", "ef_search": 100}


@dataclass(frozen=True)
class VectorRecord:
    id: str
    metadata: Metadata = field(default_factory=dict)
    embedding: Vectors | None = None


class VectorStore(Protocol):
    """What the index needs from a vector database. Every method may raise TransientIndexError."""

    def create_collection(self, name: str, *, metadata: Metadata) -> None: ...

    def drop_collection(self, name: str) -> None: ...

    def collections(self) -> list[str]: ...

    def upsert(
        self,
        collection: str,
        *,
        ids: Sequence[str],
        embeddings: Vectors,
        metadatas: Sequence[Metadata],
    ) -> None: ...

    def update_metadata(
        self, collection: str, *, ids: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None: ...

    def get(
        self,
        collection: str,
        *,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        embeddings: bool = False,
    ) -> list[VectorRecord]: ...

    def query(
        self, collection: str, *, embedding: Vectors, n_results: int, where: Where | None = None
    ) -> list[tuple[str, float]]: ...

    def delete(self, collection: str, *, ids: Sequence[str]) -> None: ...

    def count(self, collection: str) -> int: ...

    def close(self) -> None: ...


class MissingCollection(IndexUnavailable):
    """The collection an index version points at no longer exists in the vector store."""


class ChromaStore:
    """Chroma 1.5 with our own embeddings only (never its default model) and telemetry off.

    The client is created lazily, so commands that never search do not pay for it. One writer
    per directory: embedded mode must not be shared by several processes (use server mode).
    """

    def __init__(self, *, path: str | None = None, url: str | None = None) -> None:
        if (path is None) == (url is None):
            raise ValueError("give either a directory or a server URL")
        self._path = path
        self._url = url
        self._client: Any = None
        self._copy: Path | None = None  # a private copy of a read-only directory, if any
        self._collections: dict[str, Any] = {}
        self._lock = threading.RLock()

    # ---- client -------------------------------------------------------------------------
    def _connect(self) -> Any:
        if self._client is None:
            import chromadb
            from chromadb.config import Settings as ChromaSettings

            settings = ChromaSettings(anonymized_telemetry=False)
            if self._url:
                parsed = urlparse(self._url)
                self._client = _guard(
                    lambda: chromadb.HttpClient(
                        host=parsed.hostname or "127.0.0.1",
                        port=parsed.port or (443 if parsed.scheme == "https" else 8000),
                        ssl=parsed.scheme == "https",
                        settings=settings,
                    )
                )
            else:
                self._client = chromadb.PersistentClient(path=self._readable(), settings=settings)
        return self._client

    def _readable(self) -> str:
        """The directory to open: ours, or a private copy when this process may not write it
        (a read-only store stays searchable; services/retrieval/index_copy.py)."""
        directory = Path(str(self._path))
        if index_copy.writable(directory):
            return str(directory)
        self._copy = index_copy.private_copy(directory)
        return str(self._copy)

    def _collection(self, name: str) -> Any:
        with self._lock:
            if name not in self._collections:
                client = self._connect()
                self._collections[name] = _guard(
                    lambda: client.get_collection(name, embedding_function=None)
                )
            return self._collections[name]

    # ---- protocol -----------------------------------------------------------------------
    def create_collection(self, name: str, *, metadata: Metadata) -> None:
        with self._lock:
            client = self._connect()
            self._collections[name] = _guard(
                lambda: client.create_collection(
                    name,
                    metadata=metadata,
                    configuration={"hnsw": HNSW},
                    embedding_function=None,
                    get_or_create=True,
                )
            )

    def drop_collection(self, name: str) -> None:
        with self._lock:
            client = self._connect()
            self._collections.pop(name, None)
            with contextlib.suppress(MissingCollection):  # already gone is what we wanted
                _guard(lambda: client.delete_collection(name))

    def collections(self) -> list[str]:
        client = self._connect()
        return [c.name for c in _guard(lambda: client.list_collections())]

    def upsert(
        self,
        collection: str,
        *,
        ids: Sequence[str],
        embeddings: Vectors,
        metadatas: Sequence[Metadata],
    ) -> None:
        target = self._collection(collection)
        for start in range(0, len(ids), ID_BATCH):
            end = start + ID_BATCH
            batch = {
                "ids": list(ids[start:end]),
                "embeddings": np.asarray(embeddings[start:end], dtype=np.float32),
                "metadatas": [_clean(m) for m in metadatas[start:end]],
            }
            _guard(partial(target.upsert, **batch))

    def update_metadata(
        self, collection: str, *, ids: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None:
        target = self._collection(collection)
        for start in range(0, len(ids), ID_BATCH):
            end = start + ID_BATCH
            _guard(
                partial(
                    target.update,
                    ids=list(ids[start:end]),
                    metadatas=[_clean(m) for m in metadatas[start:end]],
                )
            )

    def get(
        self,
        collection: str,
        *,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        embeddings: bool = False,
    ) -> list[VectorRecord]:
        target = self._collection(collection)
        include = ["metadatas"] + (["embeddings"] if embeddings else [])
        batches: list[list[str] | None] = (
            [list(ids[i : i + ID_BATCH]) for i in range(0, len(ids), ID_BATCH)]
            if ids is not None
            else [None]
        )
        records: list[VectorRecord] = []
        for batch in batches:
            if batch == []:
                continue
            result = _guard(partial(target.get, ids=batch, where=where, include=include))
            records.extend(_records(result, embeddings=embeddings))
        return records

    def query(
        self, collection: str, *, embedding: Vectors, n_results: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        target = self._collection(collection)
        result = _guard(
            lambda: target.query(
                query_embeddings=np.asarray(embedding, dtype=np.float32).reshape(1, -1),
                n_results=n_results,
                where=where,
                include=["distances"],
            )
        )
        ids = result["ids"][0] if result["ids"] else []
        distances = result["distances"][0] if result.get("distances") else [0.0] * len(ids)
        return [(i, float(d)) for i, d in zip(ids, distances, strict=True)]

    def delete(self, collection: str, *, ids: Sequence[str]) -> None:
        target = self._collection(collection)
        for start in range(0, len(ids), ID_BATCH):
            _guard(partial(target.delete, ids=list(ids[start : start + ID_BATCH])))

    def count(self, collection: str) -> int:
        target = self._collection(collection)
        return int(_guard(lambda: target.count()))

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
            self._collections.clear()
            if client is not None and hasattr(client, "close"):
                client.close()
            if self._copy is not None:
                index_copy.remove(self._copy)
                self._copy = None


class RetryingStore:
    """Wraps a store so every call gets at most 3 attempts with backoff, then IndexUnavailable."""

    def __init__(self, inner: VectorStore, *, clock: Clock) -> None:
        self.inner = inner
        self._clock = clock

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        return with_retries(fn, clock=self._clock, what=what)

    def create_collection(self, name: str, *, metadata: Metadata) -> None:
        self._call(
            "create collection", lambda: self.inner.create_collection(name, metadata=metadata)
        )

    def drop_collection(self, name: str) -> None:
        self._call("drop collection", lambda: self.inner.drop_collection(name))

    def collections(self) -> list[str]:
        return self._call("list collections", self.inner.collections)

    def upsert(
        self,
        collection: str,
        *,
        ids: Sequence[str],
        embeddings: Vectors,
        metadatas: Sequence[Metadata],
    ) -> None:
        self._call(
            "upsert",
            lambda: self.inner.upsert(
                collection, ids=ids, embeddings=embeddings, metadatas=metadatas
            ),
        )

    def update_metadata(
        self, collection: str, *, ids: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None:
        self._call(
            "update metadata",
            lambda: self.inner.update_metadata(collection, ids=ids, metadatas=metadatas),
        )

    def get(
        self,
        collection: str,
        *,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        embeddings: bool = False,
    ) -> list[VectorRecord]:
        return self._call(
            "get",
            lambda: self.inner.get(collection, ids=ids, where=where, embeddings=embeddings),
        )

    def query(
        self, collection: str, *, embedding: Vectors, n_results: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        return self._call(
            "query",
            lambda: self.inner.query(
                collection, embedding=embedding, n_results=n_results, where=where
            ),
        )

    def delete(self, collection: str, *, ids: Sequence[str]) -> None:
        self._call("delete", lambda: self.inner.delete(collection, ids=ids))

    def count(self, collection: str) -> int:
        return self._call("count", lambda: self.inner.count(collection))

    def close(self) -> None:
        self.inner.close()


def _guard(fn: Callable[[], T]) -> T:
    """Translate Chroma/transport failures: unreachable → transient, missing collection → named."""
    import httpx
    from chromadb.errors import NotFoundError

    try:
        return fn()
    except NotFoundError as exc:
        raise MissingCollection(f"vector index collection is missing: {exc}") from exc
    except (httpx.TransportError, ConnectionError, TimeoutError) as exc:
        raise TransientIndexError(f"{type(exc).__name__}: {exc}") from exc
    except Exception as exc:
        # Chroma raises plain ValueError/Exception for "Could not connect to a Chroma server".
        if "connect" in str(exc).lower():
            raise TransientIndexError(str(exc)) from exc
        if "does not exist" in str(exc).lower():
            raise MissingCollection(f"vector index collection is missing: {exc}") from exc
        raise


def _clean(metadata: Metadata) -> Metadata:
    """Chroma rejects None values; an absent key is how 'no value' is stored."""
    return {key: value for key, value in metadata.items() if value is not None}


def _records(result: Any, *, embeddings: bool) -> list[VectorRecord]:
    ids = list(result["ids"])
    metas = result.get("metadatas") or [{}] * len(ids)
    vecs = result.get("embeddings") if embeddings else None
    out = []
    for i, record_id in enumerate(ids):
        out.append(
            VectorRecord(
                id=record_id,
                metadata=dict(metas[i] or {}),
                embedding=np.asarray(vecs[i], dtype=np.float32) if vecs is not None else None,
            )
        )
    return out
