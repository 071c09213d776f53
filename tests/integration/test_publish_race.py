"""Two `memdesk publish` of one candidate at once (PostgreSQL, a `chroma run` server, two service
stacks as two processes would have): the new version serves with all of its chunks, the old one is
superseded, and the call that lost sees the publication taken over or finished (exit 2)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import func, select

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock, UuidIds
from services.core.errors import InvalidInput
from services.db.models import IndexChunk
from services.publishing.publisher import PublicationMoved
from services.retrieval.records import chunk_records, to_indexed
from services.settings import Settings
from tests.support.corpus import write_corpus
from tests.support.publishing import (
    eligible_versions,
    propose_leadtime,
    publishing_corpus,
    served_versions,
    who,
)
from tests.support.retrieval import chroma_server

__all__ = ["chroma_server"]


def chunks_per_version(services: Services) -> dict[int, int]:
    active = services.index.active()
    assert active is not None
    with services.db.read() as session:
        rows = session.execute(
            select(IndexChunk.version, func.count())
            .where(
                IndexChunk.index_version == active.index_version,
                IndexChunk.tenant_id == "A",
                IndexChunk.document_id == "SOP-LEADTIME",
            )
            .group_by(IndexChunk.version)
        ).all()
    return {version: count for version, count in rows}


def expected_chunks(services: Services, version: int) -> int:
    with services.db.read() as session:
        from services.db.models import DocumentVersion

        row = session.get(DocumentVersion, ("A", "SOP-LEADTIME", version))
        assert row is not None
        return len(chunk_records(to_indexed(row)))


def race(stacks: list[Services], candidate_id: str) -> list[object]:
    """Both stacks publish the candidate at the same moment; what each returned or raised."""
    outcomes: list[object] = [None, None]
    barrier = threading.Barrier(2)

    def publish(i: int) -> None:
        barrier.wait()
        try:
            outcomes[i] = stacks[i].publisher.publish(who(stacks[i], "a.owner"), candidate_id)
        except Exception as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=publish, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return outcomes


@pytest.mark.postgres
@pytest.mark.chroma_server
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_two_publishes_of_one_candidate_leave_exactly_the_new_version_indexed(
    database_url: str, chroma_server: str, tmp_path: Path
) -> None:
    settings = Settings(
        home=tmp_path / "home",
        database_url=database_url,
        chroma_url=chroma_server,
        embedding_backend="hashing",
    )
    clock = FakeClock()
    stacks = [bootstrap.build(settings, clock=clock, ids=UuidIds()) for _ in range(2)]
    first = stacks[0]
    try:
        first.importer.import_file(write_corpus(tmp_path / "c.json", publishing_corpus()))
        first.index.sync()
        for round_, body in enumerate(("標準交期 18 日", "標準交期 20 日", "標準交期 16 日"), 3):
            candidate = propose_leadtime(first, body=f"新版：{body}；特殊檢驗另評估")
            first.candidates.approve(who(first, "a.owner"), candidate.candidate_id, comment="ok")
            outcomes = race(stacks, candidate.candidate_id)
            failures = [o for o in outcomes if isinstance(o, Exception)]
            assert len(failures) < 2, failures
            for failure in failures:  # the loser: exit 2 with a clear message, nothing raw
                assert isinstance(failure, PublicationMoved), repr(failure)
                assert isinstance(failure, InvalidInput)
                assert "another `publish`" in str(failure)
            assert eligible_versions(first) == {round_}
            assert chunks_per_version(first) == {round_: expected_chunks(first, round_)}
            assert served_versions(first) == {round_}
            assert first.index.health().model_dump()  # health reads without error
    finally:
        for stack in stacks:
            stack.close()
