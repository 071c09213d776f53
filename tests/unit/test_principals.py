"""ACL matching of docs/product.md §1: tenant first, then any one matching entry."""

import pytest

from services.core.principals import Principal, is_valid_acl_entry

SALES = Principal(user_id="a.sales", tenant_id="A", roles=("sales",), grants=("customer:C-ACME",))


@pytest.mark.parametrize(
    ("tenant", "acl", "readable"),
    [
        ("A", ["tenant"], True),
        ("B", ["tenant"], False),
        ("A", ["role:sales"], True),
        ("A", ["role:engineer"], False),
        ("A", ["user:a.sales"], True),
        ("A", ["user:a.other"], False),
        ("A", ["customer:C-ACME"], True),
        ("A", ["customer:C-OTHER"], False),
        ("A", ["role:engineer", "customer:C-ACME"], True),
        ("A", [], False),
    ],
)
def test_document_is_readable_when_tenant_and_one_entry_match(tenant, acl, readable):
    assert SALES.can_read(tenant_id=tenant, acl=acl) is readable


@pytest.mark.parametrize(
    ("entry", "valid"),
    [
        ("tenant", True),
        ("role:sales", True),
        ("user:a.sales", True),
        ("customer:C-1", True),
        ("everyone", False),
        ("role:", False),
        ("tenant:A", False),
        ("", False),
    ],
)
def test_acl_entries_are_checked(entry, valid):
    assert is_valid_acl_entry(entry) is valid
