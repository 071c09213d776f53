"""An admin manages their own tenant's users: roles, customer grants, active flag, all audited."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.bootstrap import Services
from services.core.errors import InvalidInput, NotAuthorized, NotFound
from services.records.audit import AuditQuery
from tests.conftest import principal


def entries(services: Services, action: str):
    return services.audit.page(principal(services, "a.admin"), AuditQuery(action=action)).items


def test_the_admin_lists_only_their_tenants_users(loaded):
    users = loaded.directory.users(principal(loaded, "a.admin"))
    assert [u.user_id for u in users] == ["a.admin", "a.engineer", "a.owner", "a.sales", "a.sales2"]
    assert {u.tenant_id for u in users} == {"A"}


def test_a_role_change_takes_effect_on_the_next_lookup_and_is_audited(loaded):
    admin = principal(loaded, "a.admin")
    view = loaded.directory.set_roles(admin, "a.sales2", ["sales", "engineer"])
    assert view.roles == ("sales", "engineer")
    assert principal(loaded, "a.sales2").has_role("engineer")
    (entry,) = entries(loaded, "user.roles_changed")
    assert (entry.actor, entry.subject_id) == ("a.admin", "a.sales2")
    assert (entry.before_ref, entry.after_ref) == ("roles=sales", "roles=sales,engineer")
    assert entry.detail["before"] == ["sales"]


def test_setting_the_same_roles_changes_nothing_and_logs_nothing(loaded):
    loaded.directory.set_roles(principal(loaded, "a.admin"), "a.sales", ["sales"])
    assert entries(loaded, "user.roles_changed") == []


# Validation cases share one store (each fixture costs a migrated database and an import).
def test_unknown_or_no_roles_are_refused(loaded):
    for roles in ([], ["superuser"], ["sales", "root"]):
        with pytest.raises(InvalidInput):
            loaded.directory.set_roles(principal(loaded, "a.admin"), "a.sales", roles)
    assert principal(loaded, "a.sales").roles == ("sales",)


def test_an_admin_cannot_demote_or_deactivate_themselves(loaded):
    admin = principal(loaded, "a.admin")
    with pytest.raises(NotAuthorized):
        loaded.directory.set_roles(admin, "a.admin", ["sales"])
    with pytest.raises(NotAuthorized):
        loaded.directory.set_active(admin, "a.admin", False)
    assert principal(loaded, "a.admin").roles == ("admin",)


def test_only_admins_manage_users(loaded):
    for user_id in ("a.sales", "a.owner", "a.engineer"):
        refuses_every_change(loaded, user_id)


def refuses_every_change(loaded, user_id: str) -> None:
    acting = principal(loaded, user_id)
    before = {u: principal(loaded, u) for u in ("a.sales", "a.sales2", user_id)}
    calls = [
        lambda: loaded.directory.users(acting),
        lambda: loaded.directory.set_roles(acting, user_id, ["admin"]),
        lambda: loaded.directory.add_grant(acting, user_id, "customer:C-ACME"),
        lambda: loaded.directory.remove_grant(acting, "a.sales", "customer:C-ACME"),
        lambda: loaded.directory.set_active(acting, "a.sales2", False),
        lambda: loaded.directory.customers(acting),
    ]
    for call in calls:
        with pytest.raises(NotAuthorized):
            call()
    assert {u: principal(loaded, u) for u in before} == before


def test_another_tenants_user_looks_exactly_like_a_missing_one(loaded):
    for user_id in ("b.sales", "nobody"):
        is_missing_for_the_admin(loaded, user_id)
    assert principal(loaded, "b.sales").roles == ("sales",)


def is_missing_for_the_admin(loaded, user_id: str) -> None:
    admin = principal(loaded, "a.admin")
    calls = [
        lambda: loaded.directory.user(admin, user_id),
        lambda: loaded.directory.set_roles(admin, user_id, ["admin"]),
        lambda: loaded.directory.add_grant(admin, user_id, "customer:C-ACME"),
        lambda: loaded.directory.remove_grant(admin, user_id, "customer:C-BETA"),
        lambda: loaded.directory.set_active(admin, user_id, False),
    ]
    for call in calls:
        with pytest.raises(NotFound) as caught:
            call()
        assert str(caught.value) == f"user not found: {user_id}"


def test_a_grant_opens_the_customers_documents_and_removing_it_closes_them(loaded):
    admin = principal(loaded, "a.admin")
    with pytest.raises(NotFound):
        loaded.knowledge.get(principal(loaded, "a.sales2"), "CONTRACT-ACME")
    loaded.directory.add_grant(admin, "a.sales2", "customer:C-ACME")
    assert loaded.knowledge.get(principal(loaded, "a.sales2"), "CONTRACT-ACME").version == 1
    loaded.directory.remove_grant(admin, "a.sales2", "customer:C-ACME")
    with pytest.raises(NotFound):
        loaded.knowledge.get(principal(loaded, "a.sales2"), "CONTRACT-ACME")
    added, removed = entries(loaded, "user.grant_added"), entries(loaded, "user.grant_removed")
    assert [(e.subject_id, e.after_ref) for e in added] == [("a.sales2", "grants=customer:C-ACME")]
    assert [(e.subject_id, e.before_ref) for e in removed] == [
        ("a.sales2", "grants=customer:C-ACME")
    ]


def test_repeating_a_grant_or_removing_a_missing_one_logs_nothing(loaded):
    admin = principal(loaded, "a.admin")
    loaded.directory.add_grant(admin, "a.sales", "customer:C-ACME")
    loaded.directory.remove_grant(admin, "a.sales2", "customer:C-ACME")
    assert entries(loaded, "user.grant_added") == entries(loaded, "user.grant_removed") == []
    assert principal(loaded, "a.sales").grants == ("customer:C-ACME",)


def test_only_customer_grants_can_be_given(loaded):
    for grant in ("role:admin", "tenant", "user:a.admin", "customer:", "customer:a b", "C-ACME"):
        with pytest.raises(InvalidInput):
            loaded.directory.add_grant(principal(loaded, "a.admin"), "a.sales2", grant)
    assert principal(loaded, "a.sales2").grants == ()


def test_a_deactivated_user_has_no_principal_until_reactivated(loaded):
    admin = principal(loaded, "a.admin")
    assert loaded.directory.set_active(admin, "a.sales2", False).active is False
    with pytest.raises(NotFound):
        principal(loaded, "a.sales2")
    loaded.directory.set_active(admin, "a.sales2", True)
    assert principal(loaded, "a.sales2").user_id == "a.sales2"
    assert [e.action for e in entries(loaded, "user.deactivated")] == ["user.deactivated"]
    assert [e.action for e in entries(loaded, "user.activated")] == ["user.activated"]


def test_customers_offered_for_grants_come_from_the_tenants_documents(loaded):
    assert loaded.directory.customers(principal(loaded, "a.admin")) == ["C-ACME"]


def test_two_admins_adding_grants_at_once_lose_neither(loaded):
    # Each change locks the user row (FOR UPDATE on PostgreSQL; SQLite writes one at a time),
    # so the second admin's change applies to the first's result instead of overwriting it.
    admin = principal(loaded, "a.admin")
    wanted = [f"customer:C-{n:02d}" for n in range(12)]
    barrier = threading.Barrier(2)

    def add(grants: list[str]) -> None:
        barrier.wait()
        for grant in grants:
            loaded.directory.add_grant(admin, "a.sales2", grant)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(add, wanted[0::2]), pool.submit(add, wanted[1::2])]:
            future.result()
    assert sorted(principal(loaded, "a.sales2").grants) == wanted
    assert len(entries(loaded, "user.grant_added")) == len(wanted)
