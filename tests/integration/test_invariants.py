"""The invariant checks behind `bench load` and `bench soak` find what they are meant to find:
clean after a real run, and each one flags its own kind of damage done to the stored rows."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import select, update

from services.bootstrap import Services
from services.db.models import Approval, DocumentVersion, Run, RunEvent, TaskRow
from services.lab import invariants
from services.records import audit
from tests.support.retrieval import fake_services, fake_store
from tests.support.scenario import load_scenario, resume_q42

__all__ = ["fake_services", "fake_store"]


@pytest.fixture
def store(fake_services: Services, tmp_path) -> Services:
    load_scenario(fake_services, tmp_path)
    done = resume_q42(fake_services)
    assert done.status == "succeeded"
    return fake_services


def all_checks(store: Services) -> dict[str, invariants.Check]:
    checks = [
        invariants.revisions_consistent(store.db),
        invariants.confirmed_kept(
            store.db, {("A", "Q42"): {"material": "SUS304", "quantity": 1200}}
        ),
        invariants.supplements_merged_once(store.db),
        invariants.runs_settled(store.db),
        invariants.duplicate_approvals(store.db),
        invariants.forbidden_evidence(store.db),
        invariants.audit_complete(store.db),
        invariants.vectors_match_sql(store.db, store.index),
    ]
    return {check.name: check for check in checks}


def broken(store: Services) -> dict[str, list[str]]:
    return {name: c.examples for name, c in all_checks(store).items() if not c.ok}


def test_a_real_run_passes_every_check_and_each_check_looked_at_something(store):
    checks = all_checks(store)
    assert broken(store) == {}
    assert all(check.checked > 0 for check in checks.values()), checks


def cited_document(store: Services) -> tuple[str, int]:
    with store.db.read() as session:
        decision = session.scalar(select(Run.decision))
    evidence_id = decision["claims"][0]["evidence_ids"][0]
    ref = evidence_id.rsplit(":", 1)[0]
    document_id, version = ref.rsplit("@", 1)
    return document_id, int(version)


def test_a_write_without_its_event_is_a_lost_update(store):
    with store.db.write() as session:
        session.execute(update(TaskRow).values(revision=TaskRow.revision + 1))
    assert set(broken(store)) == {"revisions_consistent"}


def test_a_changed_confirmed_field_is_a_lost_update(store):
    with store.db.write() as session:
        row = session.get(TaskRow, ("A", "Q42"))
        row.confirmed = {**row.confirmed, "quantity": 12}
    assert set(broken(store)) == {"confirmed_kept"}


def test_an_item_decided_twice_is_a_duplicate_approval(store):
    with store.db.write() as session:
        item = session.scalars(select(Approval)).first()
        for _ in range(2):
            audit.record(
                session,
                clock=store.clock,
                tenant_id=item.tenant_id,
                actor="a.sales",
                action="approval.approved",
                subject_type="approval",
                subject_id=f"{item.task_id}:{item.decision_version}:{item.item_key}",
            )
    assert set(broken(store)) == {"duplicate_approvals"}


@pytest.mark.parametrize("damage", ["revoked before the run", "body edited, hash kept"])
def test_evidence_that_was_not_usable_when_the_run_ran_is_forbidden(store, damage):
    document_id, version = cited_document(store)
    with store.db.write() as session:
        row = session.get(DocumentVersion, ("A", document_id, version))
        started = session.scalar(select(Run.started_at))
        if damage == "revoked before the run":
            row.status, row.status_changed_at = "revoked", started - timedelta(days=1)
        else:
            row.body = "注意：" + row.body  # edited in place, the stored hash left as it was
    assert "forbidden_evidence" in broken(store)


def test_a_later_revocation_does_not_make_an_earlier_decision_forbidden(store):
    document_id, version = cited_document(store)
    with store.db.write() as session:
        row = session.get(DocumentVersion, ("A", document_id, version))
        row.status, row.status_changed_at = "revoked", store.clock.now() + timedelta(days=1)
    assert "forbidden_evidence" not in broken(store)


def test_a_vector_sql_does_not_know_is_an_orphan(store):
    active = store.index.active()
    store.index.store.upsert(
        active.collection,
        ids=["A/GHOST@1#0"],
        embeddings=np.ones((1, active.dimension), dtype=np.float32),
        metadatas=[{"tenant_id": "A"}],
    )
    assert broken(store) == {"vectors_match_sql": ["orphan vector A/GHOST@1#0"]}


def test_an_audited_event_without_its_audit_entry_breaks_completeness(store):
    with store.db.write() as session:
        run_id = session.scalar(select(Run.run_id))
        session.add(RunEvent(run_id=run_id, kind="model_call", at=store.clock.now(), payload={}))
    assert set(broken(store)) == {"audit_complete"}
