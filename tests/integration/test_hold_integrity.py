"""One truth for legal holds: whichever command sets or lifts a hold, the hold table and the
record's own flag agree, and no purge ever removes a record under an active hold — also when the
hold and the purge race on PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.core.errors import NotFound
from services.db.models import TaskRow
from services.db.models_memory import MemoryRow
from services.memory.topics import KEY_TASK_DETAILS
from services.settings import Settings
from tests.support.corpus import write_corpus
from tests.support.ids import SequentialIds
from tests.support.publishing import publishing_corpus, who


@pytest.fixture
def kept(services: Services, tmp_path: Path) -> Services:
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", publishing_corpus()))
    return services


def remember(services: Services, *, ttl_days: int) -> str:
    return services.memories.create(
        who(services, "a.sales"),
        scope={"task_id": "Q42"},
        topic=KEY_TASK_DETAILS,
        fact="客戶希望 20 天內交貨",
        ttl_seconds=ttl_days * 24 * 3600,
    ).memory_id


def memory_exists(services: Services, memory_id: str) -> bool:
    """Still stored (an expired memory is not served, but a held one must stay)."""
    with services.db.read() as session:
        return session.get(MemoryRow, memory_id) is not None


def test_lifting_a_memory_hold_in_the_memory_bank_lifts_the_central_hold(
    kept: Services, clock: FakeClock
) -> None:
    admin = who(kept, "a.admin")
    memory_id = remember(kept, ttl_days=1)
    hold = kept.retention.set_hold(
        admin, record_type="memory", record_id=memory_id, reason="litigation 2026-17"
    )
    kept.memories.set_legal_hold(admin, memory_id, hold=False, reason="case closed")
    # One operation whichever command lifts it: the central hold is lifted too, on record.
    assert kept.retention.holds(admin) == []
    (lifted,) = kept.retention.holds(admin, active_only=False)
    assert lifted.id == hold.id and lifted.lift_reason == "case closed"
    clock.advance(days=2)
    report = kept.retention.purge_expired(actor="system:retention")
    assert report.removed["memory"] == [f"A/{memory_id}"]


def test_a_memory_held_in_the_memory_bank_is_a_central_hold_until_lifted_centrally(
    kept: Services, clock: FakeClock
) -> None:
    admin = who(kept, "a.admin")
    memory_id = remember(kept, ttl_days=1)
    kept.memories.set_legal_hold(admin, memory_id, hold=True, reason="litigation 2026-17")
    (hold,) = kept.retention.holds(admin)
    assert (hold.record_type, hold.record_id) == ("memory", memory_id)
    clock.advance(days=2)
    assert kept.retention.purge_expired(actor="system:retention").kept_on_hold["memory"] == [
        f"A/{memory_id}"
    ]
    kept.retention.lift_hold(admin, hold.id, reason="case closed")
    with kept.db.read() as session:
        assert session.get(MemoryRow, memory_id).legal_hold is False
    assert kept.retention.purge_expired(actor="system:retention").removed["memory"] == [
        f"A/{memory_id}"
    ]
    assert not memory_exists(kept, memory_id)


def test_a_task_lifted_through_the_task_service_lifts_every_central_hold(
    kept: Services,
) -> None:
    admin = who(kept, "a.admin")
    kept.retention.set_hold(admin, record_type="task", record_id="Q42", reason="dispute 1")
    kept.tasks.set_legal_hold(admin, "Q42", hold=True, reason="dispute 2")
    assert len(kept.retention.holds(admin)) == 2
    kept.tasks.set_legal_hold(admin, "Q42", hold=False, reason="settled")
    assert kept.retention.holds(admin) == []
    assert not kept.tasks.get(admin, "Q42").legal_hold


def test_a_purge_asks_the_hold_table_not_only_the_records_flag(
    kept: Services, clock: FakeClock
) -> None:
    admin = who(kept, "a.admin")
    memory_id = remember(kept, ttl_days=1)
    kept.retention.set_hold(admin, record_type="memory", record_id=memory_id, reason="dispute")
    with kept.db.write() as session:  # a flag out of step with the table must not decide
        session.execute(
            update(MemoryRow).where(MemoryRow.memory_id == memory_id).values(legal_hold=False)
        )
    clock.advance(days=2)
    report = kept.retention.purge_expired(actor="system:retention")
    assert report.kept_on_hold["memory"] == [f"A/{memory_id}"]
    assert memory_exists(kept, memory_id)


# ---- the race: holds set while purge-expired runs in another connection (PostgreSQL) ---------

TASKS = 600


def expired_tasks(services: Services, count: int) -> list[str]:
    """`count` completed tasks of tenant A whose retention ended a day ago."""
    now = services.clock.now()
    ids = [f"OLD-{i:04d}" for i in range(count)]
    with services.db.write() as session:
        session.add_all(
            TaskRow(
                tenant_id="A",
                task_id=task_id,
                revision=7,
                status="completed",
                created_by="a.sales",
                created_at=now - timedelta(days=100),
                updated_at=now - timedelta(days=91),
                completed_at=now - timedelta(days=91),
                expires_at=now - timedelta(days=1),
            )
            for task_id in ids
        )
    return ids


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_hold_that_returned_success_always_outlives_a_concurrent_purge(
    kept: Services, settings: Settings, clock: FakeClock
) -> None:
    admin = who(kept, "a.admin")
    ids = expired_tasks(kept, TASKS)
    purger = bootstrap.build(settings, clock=clock, ids=SequentialIds())
    outcome: dict[str, object] = {}

    def purge() -> None:
        try:
            outcome["report"] = purger.retention.purge_expired(actor="system:retention")
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=purge)
    held, refused = [], []
    thread.start()
    try:
        # Newest first, while the purge works through them oldest first.
        for task_id in reversed(ids):
            try:
                kept.retention.set_hold(
                    admin, record_type="task", record_id=task_id, reason="litigation"
                )
            except NotFound:
                refused.append(task_id)  # purged first: the hold says so instead of succeeding
            else:
                held.append(task_id)
            if not thread.is_alive() and len(held) + len(refused) > 50:
                break
    finally:
        thread.join(timeout=120)
        purger.close()
    assert "error" not in outcome, outcome.get("error")
    with kept.db.read() as session:
        remaining = set(session.scalars(select(TaskRow.task_id).where(TaskRow.tenant_id == "A")))
    lost = [task_id for task_id in held if task_id not in remaining]
    assert not lost, f"{len(lost)} tasks whose hold returned success were purged: {lost[:5]}"
    active = {h.record_id for h in kept.retention.holds(admin)}
    assert active <= remaining, "an active hold points at a missing task"
    assert all(task_id not in remaining for task_id in refused)
