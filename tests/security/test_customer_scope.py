"""Customer scope covers tasks: a task with a customer is visible and decidable only with that
customer's grant (knowledge owners and admins see every customer's). Each row aims a call of the
isolation table at task Q44 of customer C-KRAFT, made by a sales user of the same tenant who holds
other customers' grants but not C-KRAFT's: the answer is exactly the one for a task that exists
nowhere. `owner` is a user with the grant, for whom the same call finds the record."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from services.core.errors import MemdeskError, NotFound
from services.core.principals import Principal
from tests.security.conftest import AS_OF, MISSING, Targets, World
from tests.security.test_tenant_isolation import CASES, Case, outcome

OUTSIDER = "a.sales"  # customer:C-ACME and others, not C-KRAFT
GRANTED = "a.sales2"  # customer:C-KRAFT


@dataclass(frozen=True)
class Scoped:
    world: World
    real: Targets  # Q44's keys where a case names a task, run or approval


@pytest.fixture(scope="module")
def kraft(world: World) -> Scoped:
    """Q44 (customer C-KRAFT) resumed by a.sales2, so it has a run and approval items."""
    services = world.services
    sales2 = world.principal(GRANTED)
    runs = services.runs.search(sales2, task_id="Q44")
    if not runs:
        services.resumer.resume(sales2, "Q44", supplement="請接著處理。", as_of=AS_OF)
        runs = services.runs.search(sales2, task_id="Q44")
    approvals = services.approvals.search(sales2, task_id="Q44")
    if not approvals:  # whatever the analysis concluded, Q44 has an item to decide
        approvals = [
            services.approvals.request(
                sales2,
                task_id="Q44",
                decision_version=1,
                payload={"text": "出口包裝依 PN-2208-A 規格（審核用）"},
            )
        ]
    real = replace(
        world.real,
        task="Q44",
        active_task="Q50",  # customer C-KRAFT as well; an owner's enqueue leaves a queued run
        run=runs[0].run_id,
        approval=approvals[0].id,
        decision_version=approvals[0].decision_version,
    )
    return Scoped(world=world, real=real)


ROWS = [
    "tasks.get",
    "tasks.search",
    "tasks.status_counts",
    "tasks.events",
    "tasks.checkpoints",
    "tasks.update",
    "tasks.resolve_conflict",
    "runs.enqueue",
    "runs.get",
    "runs.search",
    "runs.events",
    "runs.evidence",
    "approvals.get",
    "approvals.search",
    "approvals.decide",
    "approval_flow.current",
    "approval_flow.queue",
    "approval_flow.decide",
    "desk.task_view",
    "desk.approval_queue",
    "desk.changes_since",
    "desk.decide",
]


def _as(world: World, user_id: str) -> Principal:
    return world.principal(user_id)


@pytest.mark.parametrize("name", ROWS)
def test_a_task_of_a_customer_without_the_grant_looks_like_a_missing_one(
    kraft: Scoped, name: str
) -> None:
    case: Case = CASES[name]
    outsider = _as(kraft.world, OUTSIDER)
    assert "customer:C-KRAFT" not in outsider.grants
    aimed = outcome(kraft.world, case, outsider, kraft.real)
    missing = outcome(kraft.world, case, outsider, MISSING)
    assert aimed == missing, f"{name}: {aimed} != {missing}"
    assert "C-KRAFT" not in str(aimed) and "PN-2208-A" not in str(aimed)


@pytest.mark.parametrize("name", [n for n in ROWS if CASES[n].owner])
@pytest.mark.parametrize("user_id", [GRANTED, "a.admin"])
def test_the_customers_grant_or_an_admin_finds_it(kraft: Scoped, name: str, user_id: str) -> None:
    case = CASES[name]
    principal = _as(kraft.world, user_id)
    try:
        case.call(kraft.world.services, principal, kraft.real)
    except NotFound as exc:
        pytest.fail(f"{name} as {user_id}: {exc}")
    except MemdeskError:
        pass  # refused for another reason (a role, a stale revision): it was found


def test_listings_show_the_task_only_to_those_with_the_grant(kraft: Scoped) -> None:
    tasks = kraft.world.services.tasks
    seen = {
        user: [t.state.task_id for t in tasks.search(_as(kraft.world, user), limit=200).items]
        for user in (OUTSIDER, GRANTED, "a.admin")
    }
    assert "Q44" not in seen[OUTSIDER] and "Q43" in seen[OUTSIDER]
    assert "Q44" in seen[GRANTED] and "Q43" not in seen[GRANTED]
    assert {"Q43", "Q44"} <= set(seen["a.admin"])
