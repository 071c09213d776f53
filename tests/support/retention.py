"""Tenant retention configuration for tests, stored the way the admin's policy change stores it."""

from __future__ import annotations

from services.bootstrap import Services
from services.db.models import Tenant


def set_task_retention(services: Services, tenant_id: str, days: int | None) -> None:
    """The tenant's completed-task period, and the tasks' expiry re-derived in the same unit."""
    with services.db.write() as session:
        tenant = session.get(Tenant, tenant_id)
        assert tenant is not None, tenant_id
        tenant.completed_task_retention_days = days
        services.tasks.reschedule_expiry(session, tenant_id=tenant_id)
