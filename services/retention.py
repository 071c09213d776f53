"""Tenant retention policy for completed tasks (expiry itself runs in TaskService.purge_expired)."""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from services import audit
from services.clock import Clock, as_utc
from services.contracts.task_state import TaskStatus
from services.db.engine import Database
from services.db.models import TaskRow, Tenant
from services.errors import InvalidInput, NotAuthorized, NotFound
from services.principals import Principal

MAX_RETENTION_DAYS = 36_500


class RetentionPolicy(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    completed_task_days: int
    is_default: bool


class RetentionService:
    def __init__(self, *, db: Database, clock: Clock, default_days: int) -> None:
        self._db = db
        self._clock = clock
        self._default_days = default_days

    def policy(self, principal: Principal) -> RetentionPolicy:
        with self._db.read() as session:
            tenant = session.get(Tenant, principal.tenant_id)
            if tenant is None:
                raise NotFound("tenant", principal.tenant_id)
            days = tenant.completed_task_retention_days
            return RetentionPolicy(
                tenant_id=tenant.tenant_id,
                completed_task_days=self._default_days if days is None else days,
                is_default=days is None,
            )

    def set_policy(
        self, principal: Principal, *, completed_task_days: int | None, reason: str
    ) -> RetentionPolicy:
        """Set (or with None, clear) the tenant's retention; already completed tasks get the new
        expiry too, so shortening a policy is not silently ignored for old tasks."""
        if not principal.has_role("admin"):
            raise NotAuthorized("only an admin may change the retention policy")
        if not reason.strip():
            raise InvalidInput("a reason is required to change the retention policy")
        if completed_task_days is not None and not 0 <= completed_task_days <= MAX_RETENTION_DAYS:
            raise InvalidInput(
                f"completed_task_days must be between 0 and {MAX_RETENTION_DAYS}, "
                f"got {completed_task_days}"
            )
        with self._db.write() as session:
            tenant = session.get(Tenant, principal.tenant_id)
            if tenant is None:
                raise NotFound("tenant", principal.tenant_id)
            before = tenant.completed_task_retention_days
            tenant.completed_task_retention_days = completed_task_days
            days = self._default_days if completed_task_days is None else completed_task_days
            completed = session.scalars(
                select(TaskRow).where(
                    TaskRow.tenant_id == tenant.tenant_id,
                    TaskRow.status == TaskStatus.completed.value,
                    TaskRow.completed_at.is_not(None),
                )
            )
            for row in completed:
                if row.completed_at is not None:
                    row.expires_at = as_utc(row.completed_at) + timedelta(days=days)
            audit.record(
                session,
                clock=self._clock,
                tenant_id=tenant.tenant_id,
                actor=principal.user_id,
                action="retention.policy_changed",
                subject_type="tenant",
                subject_id=tenant.tenant_id,
                before_ref=None if before is None else f"{before}d",
                after_ref=None if completed_task_days is None else f"{completed_task_days}d",
                detail={"reason": reason},
            )
        return self.policy(principal)
