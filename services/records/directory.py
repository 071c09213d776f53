"""Identity lookups (the principal for a user id, read from the database on every request) and
the admin's management of their tenant's users: roles, customer grants, active flag."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select
from sqlalchemy.orm import Session

from services.contracts.ids import require_grant
from services.core.clock import Clock
from services.core.errors import InvalidInput, NotAuthorized, NotFound
from services.core.policy import ROLES, Permission, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import DocumentVersion, Tenant, User
from services.records import audit


class TenantInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    name: str
    completed_task_retention_days: int | None


class UserView(BaseModel):
    """A user as the admin page shows it."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    tenant_id: str
    display_name: str
    email: str | None
    roles: tuple[str, ...]
    grants: tuple[str, ...]
    active: bool


class Directory:
    """Resolves identities. It never trusts a tenant id from a prompt, URL or widget."""

    def __init__(self, *, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    def principal(self, user_id: str) -> Principal:
        with self._db.read() as session:
            user = session.get(User, user_id)
            if user is None or not user.active:
                raise NotFound("user", user_id)
            return _principal(user)

    def principal_for_email(self, email: str) -> Principal:
        with self._db.read() as session:
            user = session.scalar(select(User).where(User.email == email.lower()))
            if user is None or not user.active:
                raise NotFound("user", email)
            return _principal(user)

    def tenant(self, principal: Principal) -> TenantInfo:
        with self._db.read() as session:
            tenant = session.get(Tenant, principal.tenant_id)
            if tenant is None:
                raise NotFound("tenant", principal.tenant_id)
            return TenantInfo(
                tenant_id=tenant.tenant_id,
                name=tenant.name,
                completed_task_retention_days=tenant.completed_task_retention_days,
            )

    # --- the admin's view of their own tenant -------------------------------------------------

    def users(self, principal: Principal) -> list[UserView]:
        _require_admin(principal)
        query = select(User).where(User.tenant_id == principal.tenant_id).order_by(User.user_id)
        with self._db.read() as session:
            return [_user_view(user) for user in session.scalars(query)]

    def user(self, principal: Principal, user_id: str) -> UserView:
        _require_admin(principal)
        with self._db.read() as session:
            return _user_view(_tenant_user(session, principal, user_id))

    def customers(self, principal: Principal) -> list[str]:
        """Customer ids that occur on the tenant's documents: the grants worth offering."""
        _require_admin(principal)
        query = (
            select(DocumentVersion.customer_id)
            .where(
                DocumentVersion.tenant_id == principal.tenant_id,
                DocumentVersion.customer_id.is_not(None),
            )
            .distinct()
            .order_by(DocumentVersion.customer_id)
        )
        with self._db.read() as session:
            return [str(customer) for customer in session.scalars(query)]

    def set_roles(self, principal: Principal, user_id: str, roles: list[str]) -> UserView:
        """Replace a user's roles. An admin cannot take the admin role from themselves."""
        wanted = tuple(dict.fromkeys(roles))
        unknown = sorted(set(wanted) - set(ROLES))
        if unknown or not wanted:
            raise InvalidInput(f"roles must be one or more of {list(ROLES)}, got {list(roles)}")
        if user_id == principal.user_id and "admin" not in wanted:
            raise NotAuthorized("an admin cannot remove their own admin role")

        def change(user: User) -> tuple[str, list[str], list[str]] | None:
            before = list(user.roles)
            if set(before) == set(wanted):
                return None
            user.roles = list(wanted)
            return "user.roles_changed", before, list(wanted)

        return self._change(principal, user_id, change, field="roles")

    def add_grant(self, principal: Principal, user_id: str, grant: str) -> UserView:
        grant = require_grant(grant.strip())

        def change(user: User) -> tuple[str, list[str], list[str]] | None:
            before = list(user.grants)
            if grant in before:
                return None
            user.grants = [*before, grant]
            return "user.grant_added", before, list(user.grants)

        return self._change(principal, user_id, change, field="grants")

    def remove_grant(self, principal: Principal, user_id: str, grant: str) -> UserView:
        def change(user: User) -> tuple[str, list[str], list[str]] | None:
            before = list(user.grants)
            if grant not in before:
                return None
            user.grants = [existing for existing in before if existing != grant]
            return "user.grant_removed", before, list(user.grants)

        return self._change(principal, user_id, change, field="grants")

    def set_active(self, principal: Principal, user_id: str, active: bool) -> UserView:
        """Deactivate (or reactivate) a user; a deactivated user can no longer log in."""
        if user_id == principal.user_id and not active:
            raise NotAuthorized("an admin cannot deactivate themselves")

        def change(user: User) -> tuple[str, list[str], list[str]] | None:
            if user.active == active:
                return None
            user.active = active
            action = "user.activated" if active else "user.deactivated"
            return action, [str(not active).lower()], [str(active).lower()]

        return self._change(principal, user_id, change, field="active")

    def _change(
        self,
        principal: Principal,
        user_id: str,
        change: Callable[[User], tuple[str, list[str], list[str]] | None],
        *,
        field: str,
    ) -> UserView:
        """Apply one change to a user of the admin's tenant and audit it (no change, no entry)."""
        _require_admin(principal)
        with self._db.write() as session:
            user = _tenant_user(session, principal, user_id, lock=True)
            outcome = change(user)
            if outcome is not None:
                action, before, after = outcome
                audit.record(
                    session,
                    clock=self._clock,
                    tenant_id=principal.tenant_id,
                    actor=principal.user_id,
                    action=action,
                    subject_type="user",
                    subject_id=user.user_id,
                    before_ref=_ref(field, before),
                    after_ref=_ref(field, after),
                    detail={"field": field, "before": before, "after": after},
                )
            return _user_view(user)


def _require_admin(principal: Principal) -> None:
    require(principal, Permission.ADMINISTER, "managing users is for admins")


def _tenant_user(
    session: Session, principal: Principal, user_id: str, *, lock: bool = False
) -> User:
    """The user if it belongs to the principal's tenant; any other user looks missing."""
    query = select(User).where(User.user_id == user_id, User.tenant_id == principal.tenant_id)
    if lock:
        # Two admins editing one user: the second waits and applies its change to the first's.
        query = query.with_for_update()
    user = session.scalar(query)
    if user is None:
        raise NotFound("user", user_id)
    return user


def _ref(field: str, values: list[str]) -> str:
    return f"{field}={','.join(values)}"[:300]


def _user_view(user: User) -> UserView:
    return UserView(
        user_id=user.user_id,
        tenant_id=user.tenant_id,
        display_name=user.display_name,
        email=user.email,
        roles=tuple(user.roles),
        grants=tuple(user.grants),
        active=user.active,
    )


def _principal(user: User) -> Principal:
    return Principal(
        user_id=user.user_id,
        tenant_id=user.tenant_id,
        roles=tuple(user.roles),
        grants=tuple(user.grants),
        display_name=user.display_name,
    )
