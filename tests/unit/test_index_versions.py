"""Index versions: build, verify, switch atomically; a crash at any step leaves one serving."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select

from services.bootstrap import Services
from services.core.errors import IndexUnavailable
from services.db.models import IndexChunk, IndexPointer, IndexVersion
from services.retrieval.index import REBUILD_STEPS
from tests.support.corpus import corpus_dict, doc
from tests.support.retrieval import AS_OF, fake_services, fake_store, load, who
from tests.support.vectors import InMemoryVectorStore

__all__ = ["fake_services", "fake_store"]


class Crash(Exception):
    pass


def leadtime_answer(services: Services) -> list[str]:
    result = services.retrieval.retrieve(who(services, "a.sales"), "標準交期是幾天", as_of=AS_OF)
    return [e.ref for e in result.evidence]


def sql_chunks(services: Services, version: str) -> int:
    with services.db.read() as session:
        return int(
            session.scalar(
                select(func.count())
                .select_from(IndexChunk)
                .where(IndexChunk.index_version == version)
            )
            or 0
        )


def test_import_builds_the_first_version_and_points_at_it(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    active = fake_services.index.active()
    assert active is not None and active.status == "active"
    assert "hashing-v2-256" in active.collection and active.index_version in active.collection
    assert fake_store.count(active.collection) == sql_chunks(fake_services, active.index_version)
    # only approved versions are searchable at all: drafts and superseded ones are not indexed
    with fake_services.db.read() as session:
        indexed = set(session.scalars(select(IndexChunk.document_id).distinct()))
    assert "DRAFT-INJECT" not in indexed
    assert leadtime_answer(fake_services)[0] == "SOP-LEADTIME@2"


def test_rebuild_switches_to_a_new_version_and_drops_the_old_one(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    old = fake_services.index.active()
    assert old is not None
    new = fake_services.index.rebuild()
    assert new.index_version != old.index_version
    assert old.collection not in fake_store.data
    assert sql_chunks(fake_services, old.index_version) == 0
    with fake_services.db.read() as session:
        assert session.get(IndexVersion, old.index_version).status == "retired"  # type: ignore[union-attr]
    assert leadtime_answer(fake_services)[0] == "SOP-LEADTIME@2"


@pytest.mark.parametrize("step", REBUILD_STEPS)
def test_a_crash_between_any_two_steps_leaves_a_correct_version_serving(
    step: str, fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    before = fake_services.index.active()
    assert before is not None
    expected = leadtime_answer(fake_services)

    def crash(name: str) -> None:
        if name == step:
            raise Crash(name)

    fake_services.index.on_step = crash
    with pytest.raises(Crash):
        fake_services.index.rebuild()
    fake_services.index.on_step = None

    serving = fake_services.index.active()
    assert serving is not None
    if REBUILD_STEPS.index(step) < REBUILD_STEPS.index("switched"):
        assert serving.index_version == before.index_version  # the old version still serves
        assert set(fake_store.data) == {before.collection}  # the failed build left nothing
        with fake_services.db.read() as session:
            failed = session.scalars(
                select(IndexVersion).where(IndexVersion.status == "failed")
            ).all()
        assert [f.index_version for f in failed] != []
    else:
        assert serving.index_version != before.index_version  # the switch had committed
    assert leadtime_answer(fake_services) == expected
    # and the next rebuild cleans up whatever the crash left behind
    fake_services.index.rebuild()
    assert set(fake_store.data) == {fake_services.index.active().collection}  # type: ignore[union-attr]


def test_an_unreachable_index_is_retried_three_times_then_reported(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    fake_services.retrieval.caches.clear()
    # A process with no block of the tenant on disk either has to read the store.
    shutil.rmtree(fake_services.settings.resolved_home / "retrieval-blocks")
    fake_store.down = True
    calls_before = len(fake_store.calls)
    with pytest.raises(IndexUnavailable, match="3 times"):
        leadtime_answer(fake_services)
    assert len(fake_store.calls) - calls_before == 3
    assert fake_services.clock.sleeps[-2:] == [0.2, 0.4]  # type: ignore[attr-defined]


def test_a_first_query_answers_from_the_persisted_block_without_reading_the_store(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    expected = leadtime_answer(fake_services)
    fake_services.retrieval.caches.clear()  # as a new process starts
    fake_store.down = True
    calls_before = len(fake_store.calls)
    assert leadtime_answer(fake_services) == expected != []
    assert fake_store.calls[calls_before:] == []


def test_a_failed_write_leaves_nothing_partially_written(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    active = fake_services.index.active()
    assert active is not None
    store_before = fake_store.snapshot()
    rows_before = sql_chunks(fake_services, active.index_version)
    fake_services.index.writer._batch = 1  # one chunk per batch: the failure hits mid-write
    fake_store.break_after("upsert", 1)
    long_body = "。".join(f"第{i}條：新增規定內容說明{i}" for i in range(60))
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-NEW", 1, body=long_body))
    load(fake_services, tmp_path, corpus)  # the import commits; the index sync is deferred
    with pytest.raises(IndexUnavailable):
        fake_services.index.sync()
    assert fake_store.snapshot() == store_before
    assert sql_chunks(fake_services, active.index_version) == rows_before
    fake_store.successes_left.clear()
    fake_services.index.sync()  # once the index is back, the lag is caught up
    refs = [
        e.ref
        for e in fake_services.retrieval.retrieve(
            who(fake_services, "a.sales"), "新增規定內容說明", as_of=AS_OF
        ).evidence
    ]
    assert "SOP-NEW@1" in refs


def test_a_failed_rebuild_write_marks_the_version_failed_and_keeps_the_old_one(
    fake_services: Services, fake_store: InMemoryVectorStore, tmp_path: Path
) -> None:
    load(fake_services, tmp_path)
    before = fake_services.index.active()
    fake_services.index.writer._batch = 1
    fake_store.break_after("upsert", 2)
    with pytest.raises(IndexUnavailable):
        fake_services.index.rebuild()
    assert fake_services.index.active() == before
    with fake_services.db.read() as session:
        pointer = session.get(IndexPointer, fake_services.index.space)
        assert pointer is not None and pointer.index_version == before.index_version  # type: ignore[union-attr]
