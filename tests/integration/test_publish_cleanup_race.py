"""A failed publication's cleanup racing the `publish` that takes it over (two service stacks on
one SQLite store and one vector store, as two processes would have them).

The failed attempt removes the chunks it staged; the other call re-stages the same chunk ids.
The removal's SQL rows and its vectors must go as one step under the version's lock: were the
vectors deleted after the rows' transaction committed, a re-stage landing in between would
switch the version in with SQL rows whose vectors are then deleted — a serving version that the
SQL coverage check counts as complete and that search can no longer find. The interleaving is
forced: the other call runs to its end inside the failed attempt's vector delete.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import select

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock, UuidIds
from services.db.models import IndexChunk
from services.settings import Settings
from tests.support.corpus import write_corpus
from tests.support.publishing import (
    eligible_versions,
    propose_leadtime,
    publishing_corpus,
    served_versions,
    who,
)
from tests.support.vectors import InMemoryVectorStore


class CrashAfterVerify(Exception):
    """The first attempt dies after verifying its staged chunks, before the switch."""


def vectors_missing(services: Services, store: InMemoryVectorStore) -> list[str]:
    """Chunk rows of the active index whose vector the store does not hold."""
    active = services.index.active()
    assert active is not None
    with services.db.read() as session:
        ids = session.scalars(
            select(IndexChunk.chunk_id).where(IndexChunk.index_version == active.index_version)
        ).all()
    held = store.data.get(active.collection, {})
    return sorted(chunk_id for chunk_id in ids if chunk_id not in held)


@pytest.fixture
def stacks(tmp_path: Path):
    """Two stacks over one store; the second gives up on a locked database quickly (it is the
    other process, and it must not wait forever for the first inside this one thread)."""
    store = InMemoryVectorStore()
    base = Settings(home=tmp_path / "home", embedding_backend="hashing")
    first = bootstrap.build(base, clock=FakeClock(), ids=UuidIds(), vector_store=store)
    bootstrap.initialise(first)
    first.importer.import_file(write_corpus(tmp_path / "c.json", publishing_corpus()))
    first.index.sync()
    impatient = base.model_copy(update={"sqlite_busy_timeout_ms": 200})
    second = bootstrap.build(impatient, clock=FakeClock(), ids=UuidIds(), vector_store=store)
    yield first, second, store
    first.close()
    second.close()


def test_a_takeover_during_cleanup_never_serves_a_version_without_its_vectors(stacks):
    first, second, store = stacks
    candidate = propose_leadtime(first, body="新版：標準交期 18 日；特殊檢驗另評估")
    first.candidates.approve(who(first, "a.owner"), candidate.candidate_id, comment="ok")
    outcome: dict[str, object] = {}

    def takeover() -> None:
        try:
            outcome["second"] = second.publisher.publish(
                who(second, "a.owner"), candidate.candidate_id
            )
        except Exception as exc:  # a database the first holds: the second could not get in
            outcome["second"] = exc

    delete = store.delete
    armed = [True]

    def delete_during_takeover(collection: str, *, ids) -> None:
        if armed[0]:  # the first attempt's cleanup removes the chunks it staged
            armed[0] = False
            other = threading.Thread(target=takeover)
            other.start()
            other.join()
        delete(collection, ids=ids)

    def crash(step: str) -> None:
        if step == "verified":
            raise CrashAfterVerify("the process died after verifying")

    store.delete = delete_during_takeover  # type: ignore[method-assign]
    first.publisher.on_step = crash
    with pytest.raises(CrashAfterVerify):
        first.publisher.publish(who(first, "a.owner"), candidate.candidate_id)
    store.delete = delete  # type: ignore[method-assign]
    first.publisher.on_step = None
    assert "second" in outcome  # the takeover really ran inside the cleanup
    # Whoever won, what serves is searchable: every chunk SQL lists has its vector.
    assert vectors_missing(first, store) == []
    served = eligible_versions(first)
    assert served_versions(first) == served
    # And the publication can still be finished.
    done = second.publisher.publish(who(second, "a.owner"), candidate.candidate_id)
    assert done.publication.status == "published"
    assert eligible_versions(first) == {done.publication.version}
    assert vectors_missing(first, store) == []
    assert served_versions(first) == {done.publication.version}
