"""Memory TTLs on the injected clock: default and granular TTL, revision TTL, purge, legal hold."""

from __future__ import annotations

from datetime import timedelta

import pytest

from services.core.errors import LegalHold, NotFound
from services.memory.types import ConversationEvent, MemoryPolicy
from tests.conftest import principal

Q42 = {"task_id": "Q42"}
DAY = 24 * 3600


def set_policy(services, **fields) -> None:
    admin = principal(services, "a.admin")
    services.memories.config.set_policy(admin, MemoryPolicy(**fields))


def generate(services, text: str):
    return services.memories.generate(
        principal(services, "a.sales"),
        scope=Q42,
        events=[ConversationEvent(kind="chat", author="customer", text=text)],
    )


def visible(services) -> list[str]:
    sales = principal(services, "a.sales")
    listed = [m.fact for m in services.memories.list_memories(sales, scope=Q42)]
    searched = {h.memory.fact for h in services.memories.search(sales, scope=Q42, query="交期")}
    assert searched <= set(listed)  # search never finds what listing hides
    return listed


def purge(services):
    return services.memories.purge_expired(actor="system:retention")


def test_without_a_ttl_memories_do_not_expire(loaded, clock):
    memory_id = generate(loaded, "交期希望 20 天內。").changes[0].memory_id
    clock.advance(days=3650)
    assert visible(loaded) == ["交期希望 20 天內"]
    assert purge(loaded).removed == ()
    assert loaded.memories.get(principal(loaded, "a.sales"), memory_id).expire_at is None


def test_default_ttl_applies_to_every_write_and_expired_memories_are_not_retrievable(loaded, clock):
    set_policy(loaded, default_ttl_seconds=7 * DAY)
    sales = principal(loaded, "a.sales")
    memory_id = generate(loaded, "交期希望 20 天內。").changes[0].memory_id
    assert memory_id is not None
    assert loaded.memories.get(sales, memory_id).expire_at == clock.now() + timedelta(days=7)
    clock.advance(days=5)
    generate(loaded, "交期希望 25 天內。")  # an update renews the expiry
    assert loaded.memories.get(sales, memory_id).expire_at == clock.now() + timedelta(days=7)
    clock.advance(days=7)
    assert visible(loaded) == []
    with pytest.raises(NotFound):
        loaded.memories.get(sales, memory_id)
    # Expired but not yet purged: a new fact starts a new memory, it does not revive the old one.
    assert generate(loaded, "交期希望 30 天內。").changes[0].action == "created"
    report = purge(loaded)
    assert report.removed == (f"A/{memory_id}",)
    assert report.revisions_removed == 2


@pytest.mark.parametrize(
    ("granular", "expect_created", "expect_after_update"),
    [
        # generate_created 2 days; generate_updated unset: an update leaves the expiry alone.
        ({"generate_created_ttl_seconds": 2 * DAY}, 2, 2),
        # generate_updated 10 days: the update (one day later) moves it to day 1 + 10.
        (
            {"generate_created_ttl_seconds": 2 * DAY, "generate_updated_ttl_seconds": 10 * DAY},
            2,
            11,
        ),
        # only create_ttl: generated memories get no expiry at all.
        ({"create_ttl_seconds": DAY}, None, None),
    ],
)
def test_granular_ttl_follows_the_operation(
    loaded, clock, granular, expect_created, expect_after_update
):
    start = clock.now()
    set_policy(loaded, granular=True, default_ttl_seconds=99 * DAY, **granular)
    sales = principal(loaded, "a.sales")
    memory_id = generate(loaded, "交期希望 20 天內。").changes[0].memory_id
    assert memory_id is not None

    def expiry_days():
        expire_at = loaded.memories.get(sales, memory_id).expire_at
        return None if expire_at is None else (expire_at - start) / timedelta(days=1)

    assert expiry_days() == expect_created
    clock.advance(days=1)
    assert generate(loaded, "交期希望 25 天內。").changes[0].action == "updated"
    assert expiry_days() == expect_after_update


def test_create_ttl_and_an_explicit_ttl_for_memories_written_by_people(loaded, clock):
    set_policy(loaded, granular=True, create_ttl_seconds=3 * DAY)
    sales = principal(loaded, "a.sales")
    made = loaded.memories.create(sales, scope=Q42, topic="key_task_details", fact="急件")
    assert made.expire_at == clock.now() + timedelta(days=3)
    explicit = loaded.memories.create(
        sales, scope=Q42, topic="key_task_details", fact="需附材證", ttl_seconds=60
    )
    assert explicit.expire_at == clock.now() + timedelta(seconds=60)


def test_revisions_expire_on_their_own_ttl_and_a_deleted_memory_goes_with_its_last(loaded, clock):
    set_policy(loaded, revision_ttl_seconds=30 * DAY)
    sales = principal(loaded, "a.sales")
    memory_id = generate(loaded, "交期希望 20 天內。").changes[0].memory_id
    assert memory_id is not None
    clock.advance(days=20)
    generate(loaded, "交期希望 25 天內。")
    clock.advance(days=11)  # revision 1 is 31 days old, revision 2 eleven
    assert [r.revision for r in loaded.memories.revisions(sales, memory_id)] == [2]
    report = purge(loaded)
    assert (report.removed, report.revisions_removed) == ((), 1)
    assert visible(loaded) == ["交期希望 25 天內"]

    loaded.memories.delete(sales, memory_id, reason="withdrawn")
    clock.advance(days=31)
    report = purge(loaded)
    assert report.removed == (f"A/{memory_id}",)
    with pytest.raises(NotFound):
        loaded.memories.get(sales, memory_id)


def test_legal_hold_blocks_purge_and_delete_until_lifted(loaded, clock):
    set_policy(loaded, default_ttl_seconds=DAY)
    admin = principal(loaded, "a.admin")
    sales = principal(loaded, "a.sales")
    memory_id = generate(loaded, "交期希望 20 天內。").changes[0].memory_id
    assert memory_id is not None
    loaded.memories.set_legal_hold(admin, memory_id, hold=True, reason="litigation 2026-17")
    with pytest.raises(LegalHold):
        loaded.memories.delete(sales, memory_id, reason="cleanup")
    assert generate(loaded, "忘記交期的要求。").changes[0].reason == "under legal hold: kept"

    clock.advance(days=400)
    report = purge(loaded)
    assert (report.removed, report.kept_on_hold) == ((), (f"A/{memory_id}",))
    assert purge(loaded).kept_on_hold == (f"A/{memory_id}",)  # held revisions stay as well

    loaded.memories.set_legal_hold(admin, memory_id, hold=False, reason="case closed")
    dry = loaded.memories.purge_expired(actor="system:retention", dry_run=True)
    assert dry.removed == (f"A/{memory_id}",)
    assert purge(loaded).removed == (f"A/{memory_id}",)
    actions = [e.action for e in loaded.audit.search(admin, subject_id=memory_id)]
    assert "memory.purged" in actions and "legal_hold.set" in actions
