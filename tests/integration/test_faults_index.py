"""The index failing under a run: the Chroma server stopped, the embedding model failing. Each
gets bounded retries, then IndexUnavailable and a dead-lettered run for a person; nothing in SQL
is lost, and work resumes once the index is back."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from services import bootstrap
from services.bootstrap import Services
from services.contracts.task_state import TaskStatus
from services.core.clock import FakeClock
from services.core.errors import IndexUnavailable
from services.lab.chroma_server import ChromaProcess
from services.retrieval.embedders import HashingEmbedder, Vectors
from services.settings import Settings
from tests.support.corpus import corpus_dict, doc, write_corpus
from tests.support.ids import SequentialIds
from tests.support.retrieval import AS_OF, assert_citations_hold
from tests.support.scenario import SUPPLEMENT, resume_q42, scenario_corpus
from tests.support.vectors import InMemoryVectorStore

# One attempt: three index calls 0.2 s then 0.4 s apart; the run waits 2 s, then 4 s between
# its three attempts. Nothing is retried without bound.
INDEX_BACKOFF = [0.2, 0.4]
EXPECTED_WAITS = [*INDEX_BACKOFF, 2.0, *INDEX_BACKOFF, 4.0, *INDEX_BACKOFF]


def dead_lettered_for_a_person(services: Services, run_id: str, reason: str) -> None:
    sales = services.directory.principal("a.sales")
    run = services.runs.get(sales, run_id)
    assert run.status == "dead_letter" and run.attempts == 3
    assert reason in (run.error or "")
    kinds = [e.kind for e in services.runs.events(sales, run_id)]
    assert kinds.count("retry_scheduled") == 2 and "dead_lettered" in kinds
    state = services.tasks.get(sales, "Q42").state
    assert state.status == TaskStatus.failed and state.next_step.startswith("human takeover")
    # What the customer said is kept: the supplement was merged once, before the index failed.
    assert state.evidence_ids.count(f"supplement:{run_id}") == 1
    assert state.confirmed["material"] == "SUS304"


# ---- the Chroma server goes away -------------------------------------------------------------
@pytest.fixture
def chroma(tmp_path: Path) -> Iterator[ChromaProcess]:
    server = ChromaProcess(tmp_path / "chroma").start()
    yield server
    server.stop()


def build(settings: Settings, clock: FakeClock) -> Services:
    return bootstrap.build(settings, clock=clock, ids=SequentialIds())


@pytest.mark.chroma_server
def test_a_stopped_chroma_server_dead_letters_the_run_and_work_resumes_when_it_returns(
    tmp_path, sqlite_url, chroma
):
    settings = Settings(
        home=tmp_path / "home",
        database_url=sqlite_url,
        chroma_url=chroma.url,
        embedding_backend="hashing",
        analyzer="offline",
    )
    seeding = build(settings, FakeClock())
    seeding.importer.import_file(write_corpus(tmp_path / "scenario.json", scenario_corpus()))
    chunks = seeding.index.health().model_dump()
    seeding.close()
    # A process on a machine without the tenant blocks on disk, so every vector is Chroma's
    # (with them, retrieval does not read Chroma at all: tests/unit/test_index_versions.py).
    shutil.rmtree(settings.resolved_home / "retrieval-blocks")

    clock = FakeClock()
    store = build(settings, clock)  # a fresh process: nothing cached, every vector from Chroma
    back = ChromaProcess(chroma.path, port=chroma.port)  # the server restarted, stopped at the end
    try:
        chroma.stop()
        done = resume_q42(store)
        dead_lettered_for_a_person(store, done.run_id, "vector index unavailable")
        assert clock.sleeps == EXPECTED_WAITS
        down = store.index.health()
        assert down.vector_count is None and not down.ok  # shown as unreachable, not crashed

        back.start()  # back, same data, same address
        assert store.index.health().model_dump() == chunks
        assert store.index.health().ok
        sales = store.directory.principal("a.sales")
        again = store.worker.drain(store.runs.enqueue(sales, "Q42", as_of=AS_OF).run_id)
        assert again.status == "succeeded"
        assert store.tasks.get(sales, "Q42").state.status == TaskStatus.awaiting_approval
        assert_citations_hold(store, sales, store.runs.evidence(sales, again.run_id))
    finally:
        store.close()
        back.stop()


# ---- the embedding model fails ---------------------------------------------------------------
class FailingEmbedder(HashingEmbedder):
    """The hashing embedder, except that while `broken` every call raises like a crashed model
    library would (not one of our errors)."""

    broken = False

    def embed(self, texts: list[str]) -> Vectors:  # type: ignore[override]
        if self.broken:
            raise RuntimeError("model runtime crashed: CUDA error: out of memory")
        return super().embed(texts)


@pytest.fixture
def embedder() -> FailingEmbedder:
    return FailingEmbedder()


@pytest.fixture
def store(tmp_path, sqlite_url, embedder) -> Iterator[Services]:
    built = bootstrap.build(
        Settings(home=tmp_path / "home", database_url=sqlite_url, analyzer="offline"),
        clock=FakeClock(),
        ids=SequentialIds(),
        vector_store=InMemoryVectorStore(),
        embedder=embedder,
    )
    built.importer.import_file(write_corpus(tmp_path / "scenario.json", scenario_corpus()))
    yield built
    built.close()


def test_a_failing_embedding_model_dead_letters_the_run_with_a_clear_error(store, embedder):
    embedder.broken = True
    done = resume_q42(store, SUPPLEMENT)
    dead_lettered_for_a_person(
        store, done.run_id, "embedding model hashing-v2 failed on 1 text(s): RuntimeError"
    )
    embedder.broken = False
    sales = store.directory.principal("a.sales")
    again = store.worker.drain(store.runs.enqueue(sales, "Q42").run_id)
    assert again.status == "succeeded"
    assert store.tasks.get(sales, "Q42").state.status == TaskStatus.awaiting_approval


def test_an_import_while_the_embedding_model_fails_is_kept_and_indexed_later(
    store, embedder, tmp_path
):
    corpus = corpus_dict()
    corpus["documents"].append(
        doc("SOP-PACKING", 1, valid_from="2026-01-01", body="包裝規定：每箱不超過二十公斤。")
    )
    embedder.broken = True
    report = store.importer.import_file(write_corpus(tmp_path / "more.json", corpus))
    assert report.changed  # SQL is the truth: the import is committed
    sales = store.directory.principal("a.sales")
    assert [d.version for d in store.knowledge.versions(sales, "SOP-PACKING")] == [1]
    with pytest.raises(IndexUnavailable, match="embedding model hashing-v2 failed"):
        store.index.sync()
    embedder.broken = False
    assert "A/SOP-PACKING@1" in store.index.sync().documents_added
    found = store.retrieval.retrieve(sales, "每箱不超過幾公斤", as_of=AS_OF)
    assert "SOP-PACKING" in {e.document_id for e in found.evidence}


def test_an_embedding_model_returning_nan_is_a_failure_not_a_vector(store):
    class NanEmbedder(HashingEmbedder):
        def embed(self, texts: list[str]) -> Vectors:  # type: ignore[override]
            return np.full((len(texts), self.dimension), np.nan, dtype=np.float32)

    from services.retrieval.embedders import GuardedEmbedder

    with pytest.raises(IndexUnavailable, match="NaN"):
        GuardedEmbedder(NanEmbedder()).embed_query("交期")
