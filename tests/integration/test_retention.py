"""Retention: completed tasks expire after the tenant's period; holds, open tasks and audit stay."""

from __future__ import annotations

from datetime import timedelta

from services.contracts.task_state import TaskStatus
from services.core.errors import NotFound
from tests.conftest import principal
from tests.support.retention import set_task_retention
from tests.support.snapshot import database_digest

TO_APPROVAL = ["restoring", "retrieving", "analyzing", "reviewing", "awaiting_approval"]


def complete(services, task_id: str) -> None:
    sales = principal(services, "a.sales")
    record = services.tasks.create(sales, task_id=task_id)
    revision = record.state.revision
    for status in [*TO_APPROVAL, "completed"]:
        revision = services.tasks.update(
            sales, task_id, expected_revision=revision, status=TaskStatus(status)
        ).state.revision


def purge(services):
    return services.tasks.purge_expired(actor="system:retention", tenant_id="A")


def exists(services, task_id: str) -> bool:
    try:
        services.tasks.get(principal(services, "a.sales"), task_id)
    except NotFound:
        return False
    return True


def test_completed_task_expires_after_the_tenants_period(loaded, clock):
    set_task_retention(loaded, "A", 7)
    complete(loaded, "DONE")
    record = loaded.tasks.get(principal(loaded, "a.sales"), "DONE")
    assert record.expires_at == record.completed_at + timedelta(days=7)
    clock.advance(days=6, hours=23)
    assert purge(loaded).removed == []
    clock.advance(hours=1)
    assert purge(loaded).removed == ["A/DONE"]
    assert not exists(loaded, "DONE")


def test_without_a_tenant_policy_the_configured_default_applies(loaded, clock):
    complete(loaded, "DONE")
    record = loaded.tasks.get(principal(loaded, "a.sales"), "DONE")
    assert record.expires_at == clock.now() + timedelta(
        days=loaded.settings.completed_task_retention_days
    )


def test_a_shorter_policy_applies_to_tasks_completed_before_it(loaded, clock):
    complete(loaded, "DONE")
    clock.advance(days=10)
    assert purge(loaded).removed == []
    set_task_retention(loaded, "A", 5)
    assert purge(loaded).removed == ["A/DONE"]


def test_legal_hold_blocks_expiry_until_it_is_lifted(loaded, clock):
    admin = principal(loaded, "a.admin")
    set_task_retention(loaded, "A", 1)
    complete(loaded, "HELD")
    loaded.tasks.set_legal_hold(admin, "HELD", hold=True, reason="litigation 2026-17")
    clock.advance(days=400)
    report = purge(loaded)
    assert (report.removed, report.kept_on_hold) == ([], ["A/HELD"])
    assert exists(loaded, "HELD")
    loaded.tasks.set_legal_hold(admin, "HELD", hold=False, reason="case closed")
    assert purge(loaded).removed == ["A/HELD"]


def test_incomplete_tasks_never_expire(loaded, clock):
    set_task_retention(loaded, "A", 0)
    sales = principal(loaded, "a.sales")
    loaded.tasks.create(sales, task_id="OPEN")
    loaded.tasks.update(sales, "OPEN", expected_revision=1, status=TaskStatus.waiting_input)
    clock.advance(days=10_000)
    assert purge(loaded).removed == []
    assert exists(loaded, "OPEN") and exists(loaded, "Q42")


def test_purge_keeps_every_audit_entry_and_adds_one(loaded, clock):
    admin = principal(loaded, "a.admin")
    set_task_retention(loaded, "A", 1)
    complete(loaded, "DONE")
    entries = {e.id for e in loaded.audit.search(admin)}
    assert {e.subject_id for e in loaded.audit.search(admin, subject_id="DONE")}
    clock.advance(days=2)
    purge(loaded)
    after = loaded.audit.search(admin)
    assert entries <= {e.id for e in after}
    assert [e.action for e in after if e.id not in entries] == ["task.purged"]


def test_repeating_completed_does_not_push_the_expiry_out(loaded, clock):
    set_task_retention(loaded, "A", 7)
    complete(loaded, "DONE")
    sales = principal(loaded, "a.sales")
    first = loaded.tasks.get(sales, "DONE")
    clock.advance(days=5)
    loaded.tasks.update(
        sales, "DONE", expected_revision=first.state.revision, status=TaskStatus.completed
    )
    assert loaded.tasks.get(sales, "DONE").expires_at == first.expires_at


def test_dry_run_reports_and_changes_nothing(loaded, clock):
    set_task_retention(loaded, "A", 1)
    complete(loaded, "DONE")
    clock.advance(days=2)
    before = database_digest(loaded.db.engine)
    report = loaded.tasks.purge_expired(actor="system:retention", dry_run=True)
    assert report.removed == ["A/DONE"]
    assert database_digest(loaded.db.engine) == before
