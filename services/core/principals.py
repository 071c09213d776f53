"""Who is acting: the principal derived from the login, and the ACL rules of docs/product.md §1."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

ACL_PATTERN = re.compile(r"^(tenant|role:[A-Za-z0-9_.\-]+|user:[^\s]+|customer:[^\s]+)$")


class Principal(BaseModel):
    """The acting person. Always built from the database for a logged-in identity."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    tenant_id: str
    roles: tuple[str, ...] = ()
    grants: tuple[str, ...] = ()
    display_name: str = ""

    def has_role(self, *roles: str) -> bool:
        return any(role in self.roles for role in roles)

    @property
    def acl_tags(self) -> tuple[str, ...]:
        """Every ACL entry this principal matches: the positive allow-list used in queries."""
        tags = ["tenant", f"user:{self.user_id}"]
        tags += [f"role:{role}" for role in self.roles]
        tags += [grant for grant in self.grants if grant.startswith("customer:")]
        return tuple(dict.fromkeys(tags))

    def can_read(self, *, tenant_id: str, acl: Iterable[str]) -> bool:
        if tenant_id != self.tenant_id:
            return False
        tags = set(self.acl_tags)
        return any(entry in tags for entry in acl)


def is_valid_acl_entry(entry: str) -> bool:
    return bool(ACL_PATTERN.match(entry))
