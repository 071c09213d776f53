"""Task state service on SQLite and PostgreSQL: restore, compare-and-set, lifecycle, conflicts."""

import pytest

from services.contracts.task_state import TaskStatus
from services.core.errors import ConfirmedFieldConflict, IllegalTransition, NotFound, StaleRevision
from tests.conftest import principal


def test_task_is_restored_by_tenant_and_id(loaded):
    record = loaded.tasks.get(principal(loaded, "a.sales"), "Q42")
    assert record.state.confirmed == {"material": "SUS304", "quantity": 1200}
    assert record.state.pending == ["special_inspection"]
    assert record.state.revision == 1


def test_other_tenant_sees_not_found(loaded):
    with pytest.raises(NotFound) as missing:
        loaded.tasks.get(principal(loaded, "b.sales"), "Q42")
    with pytest.raises(NotFound) as absent:
        loaded.tasks.get(principal(loaded, "b.sales"), "NO-SUCH-TASK")
    assert str(missing.value).replace("Q42", "X") == str(absent.value).replace("NO-SUCH-TASK", "X")


def test_first_writer_moves_revision_and_stale_writer_is_rejected(loaded):
    sales = principal(loaded, "a.sales")
    first = loaded.tasks.update(sales, "Q42", expected_revision=1, status=TaskStatus.restoring)
    assert first.state.revision == 2
    with pytest.raises(StaleRevision) as stale:
        loaded.tasks.update(sales, "Q42", expected_revision=1, next_step="overwritten")
    assert stale.value.current == 2
    assert loaded.tasks.get(sales, "Q42").state.next_step == "retrieve"


def test_illegal_transition_is_refused(loaded):
    sales = principal(loaded, "a.sales")
    with pytest.raises(IllegalTransition):
        loaded.tasks.update(sales, "Q42", expected_revision=1, status=TaskStatus.completed)
    assert loaded.tasks.get(sales, "Q42").state.revision == 1


def test_confirmed_field_is_never_overwritten(loaded):
    sales = principal(loaded, "a.sales")
    with pytest.raises(ConfirmedFieldConflict):
        loaded.tasks.update(sales, "Q42", expected_revision=1, confirm={"quantity": 1500})
    record = loaded.tasks.get(sales, "Q42")
    assert record.state.confirmed["quantity"] == 1200
    assert [c.field for c in record.conflicts] == ["quantity"]
    assert record.conflicts[0].proposed == 1500


def test_every_change_leaves_an_event_and_a_checkpoint(loaded):
    sales = principal(loaded, "a.sales")
    loaded.tasks.update(sales, "Q42", expected_revision=1, status=TaskStatus.restoring)
    loaded.tasks.update(sales, "Q42", expected_revision=2, status=TaskStatus.retrieving)
    events = loaded.tasks.events(sales, "Q42")
    checkpoints = loaded.tasks.checkpoints(sales, "Q42")
    assert [e.revision for e in events] == [1, 2, 3]
    assert [c.state.status for c in checkpoints][-1] == TaskStatus.retrieving
