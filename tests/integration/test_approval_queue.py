"""The approval queue lists only what a person can decide now (found by the soak: items of a
task resumed without a new draft stayed in the queue and every decision was refused)."""

from __future__ import annotations

from services.contracts.task_state import TaskStatus
from tests.support.retrieval import fake_services, fake_store
from tests.support.scenario import load_scenario, resume_q42

__all__ = ["fake_services", "fake_store"]


def test_items_of_a_task_that_moved_on_leave_the_queue(fake_services, tmp_path):
    store = load_scenario(fake_services, tmp_path)
    assert resume_q42(store).status == "succeeded"
    sales = store.directory.principal("a.sales")
    [item] = store.approval_flow.queue(sales)
    assert item.task_id == "Q42"
    state = store.tasks.get(sales, "Q42").state
    store.tasks.update(
        sales,
        "Q42",
        expected_revision=state.revision,
        status=TaskStatus.waiting_input,
        next_step="customer changed the drawing",
    )
    assert store.approval_flow.queue(sales) == []
    items = store.approval_flow.current(sales, "Q42")
    assert items and all(i.status == "pending" for i in items)  # kept, just not decidable now
