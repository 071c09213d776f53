"""The model's vectors kept in a file that the processes of one host share."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from services.core.clock import FakeClock, UuidIds
from services.db.engine import Database, make_engine
from services.retrieval.embedders import GuardedEmbedder, HashingEmbedder, Vectors
from services.retrieval.embedding_store import ROW_OVERHEAD, TRIM_EVERY, SharedEmbeddings
from services.retrieval.wiring import build_retrieval
from services.settings import Settings


class Counting:
    """A model that says which texts it was asked to embed (hashing vectors, 512-d)."""

    name = "counting-v1"
    dimension = 512

    def __init__(self) -> None:
        self.documents: list[str] = []
        self.queries: list[str] = []
        self._vectors = HashingEmbedder(dimension=512)

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.documents += texts
        return self._vectors.embed(texts)

    def embed_query(self, text: str) -> Vectors:
        self.queries.append(text)
        return -self._vectors.embed_query(text)  # a model whose queries differ from documents


def shared(
    model: Counting, path: Path, *, max_mb: int = 16, version: str = "1"
) -> SharedEmbeddings:
    return SharedEmbeddings(model, path, max_mb=max_mb, version=version)


def test_a_text_one_process_embedded_is_read_back_by_another_bit_for_bit(tmp_path: Path):
    first, second = Counting(), Counting()
    texts = ["客戶要求特殊檢驗時的交期", "The lead time is 15 days.", "客戶要求特殊檢驗時的交期"]
    made = shared(first, tmp_path / "e.sqlite3").embed(texts)
    read = shared(second, tmp_path / "e.sqlite3").embed(texts)
    assert first.documents == texts[:2]  # a text repeated in one call is embedded once
    assert second.documents == []
    assert read.dtype == np.float32 and read.shape == (3, 512)
    assert np.array_equal(made, read)
    assert np.array_equal(made[0], made[2])


def test_only_the_texts_not_kept_yet_go_to_the_model_in_one_call(tmp_path: Path):
    model = Counting()
    store = shared(model, tmp_path / "e.sqlite3")
    store.embed(["a", "b"])
    vectors = store.embed(["b", "c", "a", "d"])
    assert model.documents == ["a", "b", "c", "d"]
    assert np.array_equal(vectors, model._vectors.embed(["b", "c", "a", "d"]))


def test_queries_and_documents_are_kept_apart(tmp_path: Path):
    model = Counting()
    store = shared(model, tmp_path / "e.sqlite3")
    query = store.embed_query("交期")
    document = store.embed(["交期"])[0]
    assert np.array_equal(query, -document)
    assert np.array_equal(store.embed_query("交期"), query)
    assert (model.queries, model.documents) == (["交期"], ["交期"])


def test_another_model_dimension_or_release_is_never_served(tmp_path: Path):
    path = tmp_path / "e.sqlite3"
    shared(Counting(), path, version="1").embed(["交期"])
    newer = Counting()
    shared(newer, path, version="2").embed(["交期"])
    renamed = Counting()
    renamed.name = "counting-v2"
    shared(renamed, path, version="1").embed(["交期"])
    assert newer.documents == ["交期"] and renamed.documents == ["交期"]


def test_a_row_that_is_not_a_vector_of_the_model_is_a_miss(tmp_path: Path):
    path = tmp_path / "e.sqlite3"
    store = shared(Counting(), path)
    store.embed(["交期"])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE vectors SET vector = ?", (b"\x00" * 12,))
    again = Counting()
    vector = shared(again, path).embed(["交期"])
    assert again.documents == ["交期"]
    assert np.array_equal(vector, again._vectors.embed(["交期"]))


@pytest.mark.parametrize("damage", ["not a database", "a directory"])
def test_a_file_that_cannot_be_used_leaves_the_model_to_answer(tmp_path: Path, caplog, damage):
    path = tmp_path / "e.sqlite3"
    if damage == "a directory":
        path.mkdir()
    else:
        path.write_bytes(b"this is not sqlite " * 100)
    model = Counting()
    store = shared(model, path)
    with caplog.at_level(logging.WARNING):
        first = store.embed(["交期", "lead time"])
        second = store.embed(["交期"])
    assert np.array_equal(first, model._vectors.embed(["交期", "lead time"]))
    assert np.array_equal(second[0], first[0])
    assert model.documents == ["交期", "lead time", "交期"]
    warnings = [r for r in caplog.records if "embedding cache" in r.getMessage()]
    assert len(warnings) == 1 and str(path) in warnings[0].getMessage()


def test_the_file_keeps_to_its_ceiling_dropping_the_rows_written_first(tmp_path: Path):
    path = tmp_path / "e.sqlite3"
    store = shared(Counting(), path, max_mb=1)
    ceiling = 2**20 // (512 * 4 + ROW_OVERHEAD)
    texts = [f"sentence {i}" for i in range(3 * ceiling)]
    for i in range(0, len(texts), 50):
        store.embed(texts[i : i + 50])
    with sqlite3.connect(path) as db:
        (count,) = db.execute("SELECT count(*) FROM vectors").fetchone()
    room = ceiling - TRIM_EVERY
    assert room * 9 // 10 <= count <= ceiling
    assert path.stat().st_size <= 2**20  # the file itself, at its high-water mark
    later = Counting()
    shared(later, path, max_mb=1).embed([texts[0], texts[-1]])
    assert later.documents == [texts[0]]  # the first written is gone, the last is kept


def test_a_file_locked_by_another_process_is_skipped_for_that_call_only(
    tmp_path: Path, monkeypatch
):
    path = tmp_path / "e.sqlite3"
    monkeypatch.setattr("services.retrieval.embedding_store.BUSY_TIMEOUT_S", 0.05)
    model = Counting()
    store = shared(model, path)
    store.embed(["交期"])
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing, past the timeout
    try:
        vectors = store.embed(["交期", "lead time"])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert np.array_equal(vectors, model._vectors.embed(["交期", "lead time"]))
    assert not store._broken
    store.embed(["lead time", "hazardous goods"])
    # Reads go on beside a writer (WAL); the write waited out its timeout and was skipped.
    assert model.documents == ["交期", "lead time", "lead time", "hazardous goods"]
    assert shared(Counting(), path).embed(["hazardous goods"]).shape == (1, 512)


def test_stores_writing_at_once_share_one_file(tmp_path: Path):
    """Each store has its own connection, as each worker process has."""
    path = tmp_path / "e.sqlite3"
    stores = [shared(Counting(), path) for _ in range(4)]
    texts = [f"text {i}" for i in range(200)]
    results: dict[int, Vectors] = {}

    def work(n: int) -> None:
        for i in range(0, len(texts), 10):
            stores[n].embed(texts[i : i + 10])
        results[n] = stores[n].embed(texts)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(len(stores))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not any(store._broken for store in stores)
    assert all(np.array_equal(results[0], results[n]) for n in results)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM vectors").fetchone() == (200,)


def _retrieval(settings: Settings):
    db = Database(make_engine(f"sqlite:///{settings.resolved_home / 'm.db'}"))
    return build_retrieval(settings, db=db, clock=FakeClock(), ids=UuidIds())[0]


def test_serving_shares_the_file_and_indexing_does_not(tmp_path: Path):
    index = _retrieval(Settings(home=tmp_path, embedding_backend="use"))
    assert isinstance(index.embedder, GuardedEmbedder)
    assert isinstance(index.embedder.inner, SharedEmbeddings)
    assert index.embedder.inner._path == tmp_path / "embeddings.sqlite3"
    assert index.embedder.inner._prefix.startswith(b"use-multilingual-v3\x00512\x000.")
    writer = index.writer._embedder
    assert isinstance(writer, GuardedEmbedder) and writer.inner is index.embedder.inner.uncached


@pytest.mark.parametrize(
    "settings", [{"embedding_cache_mb": 0}, {"embedding_backend": "hashing"}], ids=str
)
def test_no_file_when_switched_off_or_for_the_hashing_embedder(tmp_path: Path, settings):
    index = _retrieval(Settings(home=tmp_path, **{"embedding_backend": "use", **settings}))
    assert not isinstance(index.embedder.inner, SharedEmbeddings)
