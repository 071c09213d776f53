"""Identity lookups: the principal for a user id, read from the database on every request."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from services.db.engine import Database
from services.db.models import Tenant, User
from services.errors import NotFound
from services.principals import Principal


class TenantInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    name: str
    completed_task_retention_days: int | None


class Directory:
    """Resolves identities. It never trusts a tenant id from a prompt, URL or widget."""

    def __init__(self, *, db: Database) -> None:
        self._db = db

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


def _principal(user: User) -> Principal:
    return Principal(
        user_id=user.user_id,
        tenant_id=user.tenant_id,
        roles=tuple(user.roles),
        grants=tuple(user.grants),
        display_name=user.display_name,
    )
