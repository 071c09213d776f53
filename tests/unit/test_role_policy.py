"""The one role table (services/core/policy.py): every permission names real roles, the console
offers each page to exactly the roles of its permission, and `require` refuses the others."""

from __future__ import annotations

import pytest

from app_pages import _registry
from services.core.errors import NotAuthorized
from services.core.policy import POLICY, ROLES, Permission, allows, require, roles_with
from services.core.principals import Principal


def person(*roles: str) -> Principal:
    return Principal(user_id="u", tenant_id="A", roles=roles)


def test_every_permission_has_a_row_naming_known_roles():
    assert set(POLICY) == set(Permission)
    assert all(POLICY[p] and POLICY[p] <= set(ROLES) for p in Permission)


@pytest.mark.parametrize("entry", _registry.PAGES, ids=lambda e: e.name)
def test_a_page_is_offered_to_the_roles_of_its_permission(entry):
    assert entry.permission is not None
    for role in ROLES:
        offered = entry in _registry.entries_for(person(role))
        assert offered == (role in roles_with(entry.permission))


@pytest.mark.parametrize("permission", list(Permission))
def test_require_refuses_every_role_outside_the_row(permission):
    for role in ROLES:
        if role in POLICY[permission]:
            require(person(role), permission, "no")
            assert allows(person(role), permission)
        else:
            with pytest.raises(NotAuthorized, match="no"):
                require(person(role), permission, "no")
