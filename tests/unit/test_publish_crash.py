"""A crash between any two publishing steps leaves exactly one version serving: the old or the new.

Two kinds of crash: an exception the publisher sees (it cleans up what it staged), and a hard
stop it does not (the process dies: nothing cleans up, the next attempt resumes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from services.bootstrap import Services
from services.core.errors import InvalidInput
from services.publishing.publisher import STEPS
from tests.support.corpus import write_corpus
from tests.support.publishing import (
    approved_leadtime,
    eligible_versions,
    propose_leadtime,
    publishing_corpus,
    served_versions,
    who,
)
from tests.support.retrieval import fake_services, fake_store
from tests.support.vectors import InMemoryVectorStore

__all__ = ["fake_services", "fake_store"]


class Crash(Exception):
    pass


class HardStop(BaseException):
    """Stands in for the process dying: `except Exception` handlers do not run."""


@pytest.fixture
def owner_services(fake_services: Services, tmp_path: Path) -> Services:
    fake_services.importer.import_file(write_corpus(tmp_path / "c.json", publishing_corpus()))
    return fake_services


def crash_at(step: str, kind: type[BaseException]):
    def on_step(name: str) -> None:
        if name == step:
            raise kind(f"crash after {name}")

    return on_step


@pytest.mark.parametrize("kind", [Crash, HardStop])
@pytest.mark.parametrize("step", STEPS)
def test_a_crash_after_any_step_leaves_old_or_new_serving_never_both_or_neither(
    owner_services: Services, step: str, kind: type[BaseException]
) -> None:
    s = owner_services
    candidate = approved_leadtime(s)
    s.publisher.on_step = crash_at(step, kind)
    with pytest.raises(kind):
        s.publisher.publish(who(s, "a.owner"), candidate.candidate_id)

    switched = STEPS.index(step) >= STEPS.index("switched")
    expected = {3} if switched else {2}
    assert served_versions(s) == expected
    assert eligible_versions(s) == expected
    [publication] = s.publisher.publications(who(s, "a.owner"))
    if kind is Crash and not switched:
        assert publication.status == "failed" and "crash after" in (publication.error or "")

    # The next attempt finishes the job with the same version number.
    s.publisher.on_step = None
    result = s.publisher.publish(who(s, "a.owner"), candidate.candidate_id)
    assert result.document.ref == "SOP-LEADTIME@3"
    assert result.publication.status == "published"
    assert served_versions(s) == eligible_versions(s) == {3}
    versions = [v.version for v in s.knowledge.versions(who(s, "a.owner"), "SOP-LEADTIME")]
    assert versions == [1, 2, 3]


@pytest.mark.parametrize("step", STEPS[:3])
def test_an_abandoned_attempt_leaves_no_staged_chunks(
    owner_services: Services, fake_store: InMemoryVectorStore, step: str
) -> None:
    candidate = approved_leadtime(owner_services)
    owner_services.publisher.on_step = crash_at(step, Crash)
    with pytest.raises(Crash):
        owner_services.publisher.publish(who(owner_services, "a.owner"), candidate.candidate_id)
    staged = [
        record_id
        for records in fake_store.data.values()
        for record_id in records
        if record_id.startswith("A/SOP-LEADTIME@3#")
    ]
    assert staged == []


def test_an_index_failure_while_staging_keeps_v2_serving(
    owner_services: Services, fake_store: InMemoryVectorStore
) -> None:
    candidate = approved_leadtime(owner_services)
    fake_store.down = True
    with pytest.raises(Exception, match="connection refused"):
        owner_services.publisher.publish(who(owner_services, "a.owner"), candidate.candidate_id)
    fake_store.down = False
    assert served_versions(owner_services) == {2}
    result = owner_services.publisher.publish(
        who(owner_services, "a.owner"), candidate.candidate_id
    )
    assert result.document.version == 3 and served_versions(owner_services) == {3}


def test_cleanup_after_the_switch_removes_the_superseded_chunks(
    owner_services: Services, fake_store: InMemoryVectorStore
) -> None:
    candidate = approved_leadtime(owner_services)
    owner_services.publisher.publish(who(owner_services, "a.owner"), candidate.candidate_id)
    ids = [r for records in fake_store.data.values() for r in records]
    assert any(r.startswith("A/SOP-LEADTIME@3#") for r in ids)
    assert not any(r.startswith("A/SOP-LEADTIME@2#") for r in ids)


def test_a_second_candidate_for_the_same_document_never_overwrites_the_first(
    owner_services: Services,
) -> None:
    s = owner_services
    owner, owner2 = who(s, "a.owner"), who(s, "a.owner2")
    first = approved_leadtime(s)
    second = propose_leadtime(s, body="新版：標準交期 20 日")
    s.candidates.approve(owner2, second.candidate_id)
    s.publisher.on_step = crash_at("verified", HardStop)
    with pytest.raises(HardStop):
        s.publisher.publish(owner, first.candidate_id)
    s.publisher.on_step = None
    with pytest.raises(InvalidInput, match=f"being published from candidate {first.candidate_id}"):
        s.publisher.publish(owner2, second.candidate_id)
    assert s.publisher.publish(owner, first.candidate_id).document.version == 3
    with pytest.raises(InvalidInput, match="changed since"):
        s.publisher.publish(owner2, second.candidate_id)
    assert served_versions(s) == {3}
    assert "18 日" in s.knowledge.get(owner, "SOP-LEADTIME").body


def test_a_revocation_during_a_publication_stops_it_at_the_switch(
    owner_services: Services,
) -> None:
    s = owner_services
    owner = who(s, "a.owner")
    candidate = approved_leadtime(s)

    def revoke_meanwhile(step: str) -> None:
        if step == "verified":
            s.publisher.revoke(owner, "SOP-LEADTIME", version=2, reason="recalled")

    s.publisher.on_step = revoke_meanwhile
    with pytest.raises(InvalidInput, match="changed while publishing"):
        s.publisher.publish(owner, candidate.candidate_id)
    statuses = {v.version: v.status for v in s.knowledge.versions(owner, "SOP-LEADTIME")}
    assert statuses == {1: "superseded", 2: "revoked", 3: "rejected"}
    assert served_versions(s) == set()
    [publication] = s.publisher.publications(owner)
    assert publication.status == "failed"
