"""Legal holds and retention across tasks, documents and a participant store (both databases)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from services.bootstrap import Services
from services.contracts.task_state import TaskStatus
from services.core.clock import FakeClock
from services.core.errors import InvalidInput, NotFound
from services.db.models import AuditEntry
from services.memory.topics import KEY_TASK_DETAILS
from tests.support.corpus import write_corpus
from tests.support.publishing import publishing_corpus, who

TO_DONE = ["restoring", "retrieving", "analyzing", "reviewing", "awaiting_approval", "completed"]


@pytest.fixture
def kept(services: Services, tmp_path: Path) -> Services:
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", publishing_corpus()))
    return services


def remember(services: Services, fact: str, *, ttl_days: int) -> str:
    """A memory in the real Memory Bank (the registered retention participant)."""
    return services.memories.create(
        who(services, "a.sales"),
        scope={"task_id": "Q42"},
        topic=KEY_TASK_DETAILS,
        fact=fact,
        ttl_seconds=ttl_days * 24 * 3600,
    ).memory_id


def complete_task(services: Services, task_id: str) -> None:
    sales = who(services, "a.sales")
    revision = services.tasks.create(sales, task_id=task_id).state.revision
    for status in TO_DONE:
        revision = services.tasks.update(
            sales, task_id, expected_revision=revision, status=TaskStatus(status)
        ).state.revision


def audit_count(services: Services) -> int:
    with services.db.read() as session:
        return int(session.scalar(select(func.count()).select_from(AuditEntry)) or 0)


def purge(services: Services, *, dry_run: bool = False):
    return services.retention.purge_expired(actor="system:retention", dry_run=dry_run)


def test_a_held_task_survives_purge_until_the_hold_is_lifted(
    kept: Services, clock: FakeClock
) -> None:
    admin = who(kept, "a.admin")
    kept.retention.set_policy(admin, record_type="task", days=7)
    complete_task(kept, "DONE")
    hold = kept.retention.set_hold(
        admin, record_type="task", record_id="DONE", reason="litigation 2026-17"
    )
    clock.advance(days=8)
    report = purge(kept)
    assert report.removed["task"] == [] and report.kept_on_hold["task"] == ["A/DONE"]
    assert kept.tasks.get(who(kept, "a.sales"), "DONE").legal_hold
    kept.retention.lift_hold(admin, hold.id, reason="case closed")
    assert purge(kept).removed["task"] == ["A/DONE"]
    with pytest.raises(NotFound):
        kept.tasks.get(who(kept, "a.sales"), "DONE")
    # Incomplete tasks never expire: Q42 is waiting for input.
    assert kept.tasks.get(who(kept, "a.sales"), "Q42").state.task_id == "Q42"
    actions = [e.action for e in kept.audit.search(admin, subject_id="DONE")]
    assert "legal_hold.set" in actions and "legal_hold.lifted" in actions


def test_finished_document_versions_expire_under_policy_unless_held(
    kept: Services, clock: FakeClock
) -> None:
    admin = who(kept, "a.admin")
    kept.retention.set_policy(admin, record_type="document", days=30)
    clock.advance(days=31)
    hold = kept.retention.set_hold(
        admin, record_type="document", record_id="SOP-LEADTIME", reason="audit of pricing"
    )
    audits = audit_count(kept)
    dry = purge(kept, dry_run=True)
    assert dry.kept_on_hold["document"] == ["A/SOP-LEADTIME@1"] and dry.removed["document"] == []
    kept.retention.lift_hold(admin, hold.id, reason="audit done")
    dry = purge(kept, dry_run=True)
    assert dry.removed["document"] == ["A/SOP-LEADTIME@1"]
    versions = [v.version for v in kept.knowledge.versions(who(kept, "a.owner"), "SOP-LEADTIME")]
    assert versions == [1, 2]  # a dry run removes nothing

    report = purge(kept)
    assert report.removed["document"] == ["A/SOP-LEADTIME@1"]
    versions = [v.version for v in kept.knowledge.versions(who(kept, "a.owner"), "SOP-LEADTIME")]
    assert versions == [2]  # the approved version and the draft stay
    assert kept.knowledge.get(who(kept, "a.owner"), "DRAFT-INJECT", 1).status == "draft"
    assert audit_count(kept) > audits  # audit entries are only ever added


def test_memories_under_hold_survive_purge_expired_until_lifted(
    kept: Services, clock: FakeClock
) -> None:
    admin = who(kept, "a.admin")
    first = remember(kept, "客戶要求 SUS304 材質證明", ttl_days=1)
    second = remember(kept, "客戶偏好分批交貨", ttl_days=1)
    hold = kept.retention.set_hold(
        admin, record_type="memory", record_id=second, reason="customer dispute"
    )
    assert kept.memories.get(admin, second).legal_hold  # mirrored onto the memory itself
    clock.advance(days=2)
    dry = purge(kept, dry_run=True)
    assert (dry.removed["memory"], dry.kept_on_hold["memory"]) == ([f"A/{first}"], [f"A/{second}"])
    report = purge(kept)
    assert report.removed["memory"] == [f"A/{first}"]
    assert report.kept_on_hold["memory"] == [f"A/{second}"]
    kept.retention.lift_hold(admin, hold.id, reason="dispute settled")
    assert purge(kept).removed["memory"] == [f"A/{second}"]


def test_a_hold_on_a_memory_of_another_tenant_is_refused(kept: Services) -> None:
    memory_id = remember(kept, "客戶要求 SUS304 材質證明", ttl_days=1)
    with pytest.raises(NotFound):
        kept.retention.set_hold(
            who(kept, "b.owner"), record_type="memory", record_id=memory_id, reason="x"
        )
    assert kept.retention.holds(who(kept, "b.owner")) == []


def test_holds_are_listed_per_tenant_and_a_lift_keeps_the_record(kept: Services) -> None:
    admin = who(kept, "a.admin")
    hold = kept.retention.set_hold(admin, record_type="task", record_id="Q42", reason="subpoena")
    assert [h.id for h in kept.retention.holds(admin)] == [hold.id]
    assert kept.retention.holds(who(kept, "b.owner")) == []
    with pytest.raises(NotFound):
        kept.retention.lift_hold(who(kept, "b.owner"), hold.id, reason="not yours")
    lifted = kept.retention.lift_hold(admin, hold.id, reason="released")
    assert (lifted.active, lifted.lift_reason, lifted.lifted_by) == (False, "released", "a.admin")
    assert kept.retention.holds(admin) == []
    assert [h.id for h in kept.retention.holds(admin, active_only=False)] == [hold.id]
    with pytest.raises(InvalidInput, match="already lifted"):
        kept.retention.lift_hold(admin, hold.id, reason="again")
