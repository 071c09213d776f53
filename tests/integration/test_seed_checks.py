"""The seed prototype's 12 checks (article appendix), reproduced against the real services."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from services import bootstrap
from services.contracts.task_state import TaskStatus
from services.core.backoff import retry
from services.core.errors import InvalidInput, NotFound, RetriesExhausted, StaleRevision
from services.settings import Settings
from tests.conftest import principal
from tests.support.corpus import corpus_dict, import_bytes

AS_OF = date(2026, 11, 29)


def refs(services, user_id: str, query: str) -> list[str]:
    """Document@version of every evidence the governed retrieval returns for the user."""
    found = services.retrieval.retrieve(principal(services, user_id), query, k=10, as_of=AS_OF)
    return [f"{e.document_id}@{e.version}" for e in found.evidence]


def test_checkpoint_survives_reopening_the_database(loaded, settings, clock):
    sales = principal(loaded, "a.sales")
    written = loaded.tasks.update(
        sales,
        "Q42",
        expected_revision=1,
        status=TaskStatus.restoring,
        relied_on=[{"evidence_id": "MAIL-42@1:0-10", "content_hash": "sha256:x"}],
    )
    loaded.close()
    reopened = bootstrap.build(settings, clock=clock)
    try:
        restored = reopened.tasks.get(principal(reopened, "a.sales"), "Q42")
        checkpoint = reopened.tasks.checkpoints(principal(reopened, "a.sales"), "Q42")[-1]
    finally:
        reopened.close()
    assert restored == written
    assert restored.state.confirmed == {"material": "SUS304", "quantity": 1200}
    assert checkpoint.state == written.state
    assert checkpoint.relied_on == [{"evidence_id": "MAIL-42@1:0-10", "content_hash": "sha256:x"}]


def test_task_isolation_between_tenants(loaded):
    other = principal(loaded, "b.sales")
    with pytest.raises(NotFound) as hidden:
        loaded.tasks.get(other, "Q42")
    with pytest.raises(NotFound) as missing:
        loaded.tasks.get(other, "Q43")
    assert (str(hidden.value), str(missing.value)) == ("task not found: Q42", "task not found: Q43")


def test_first_writer_wins(loaded):
    first, second = principal(loaded, "a.sales"), principal(loaded, "a.sales2")
    seen_by_both = loaded.tasks.get(first, "Q42").state.revision
    assert loaded.tasks.get(second, "Q42").state.revision == seen_by_both == 1
    won = loaded.tasks.update(
        first, "Q42", expected_revision=seen_by_both, status=TaskStatus.restoring
    )
    assert won.state.revision == 2


def test_stale_writer_rejected(loaded):
    first, second = principal(loaded, "a.sales"), principal(loaded, "a.sales2")
    loaded.tasks.update(first, "Q42", expected_revision=1, status=TaskStatus.restoring)
    with pytest.raises(StaleRevision) as stale:
        loaded.tasks.update(second, "Q42", expected_revision=1, next_step="overwritten")
    assert stale.value.current == 2
    state = loaded.tasks.get(first, "Q42").state
    assert (state.status, state.next_step) == (TaskStatus.restoring, "retrieve")


def test_active_version_only(loaded):
    found = refs(loaded, "a.sales", "標準交期")
    assert "SOP-LEADTIME@2" in found and "SOP-LEADTIME@1" not in found


def test_tenant_filter(loaded):
    assert "B-PRICE@1" not in refs(loaded, "a.sales", "交期")
    assert refs(loaded, "b.sales", "交期") == ["B-PRICE@1"]


def test_unapproved_injection_document_excluded(loaded):
    # The draft is in the store (its owner can open it) but can never be evidence.
    assert loaded.knowledge.get(principal(loaded, "a.owner"), "DRAFT-INJECT", 1).status == "draft"
    for user in ("a.sales", "a.owner"):
        found = refs(loaded, user, "立即寄出報價")
        assert all(not ref.startswith("DRAFT-INJECT@") for ref in found)


@pytest.mark.parametrize("query", ["", "   "])
def test_empty_query(loaded, query):
    with pytest.raises(InvalidInput, match="empty"):
        refs(loaded, "a.sales", query)


def test_no_evidence_for_an_unknown_tenant(loaded):
    corpus = corpus_dict(
        tenants=[{"tenant_id": "C", "name": "Tenant C"}],
        users=[{"user_id": "c.sales", "tenant_id": "C", "roles": ["sales"]}],
        documents=[],
        tasks=[],
    )
    import_bytes(loaded.importer, json.dumps(corpus).encode(), source="c.json", actor="test")
    for query in ("交期", "SUS304", "標準交期"):
        assert refs(loaded, "c.sales", query) == []


def test_bounded_failure(loaded, tmp_path: Path):
    """A store that cannot be reached is tried exactly 3 times, with backoff, then given up."""
    if loaded.db.engine.dialect.name == "sqlite":
        (tmp_path / "not-a-file").mkdir()
        unreachable = f"sqlite:///{tmp_path / 'not-a-file'}"
    else:
        unreachable = "postgresql+psycopg://postgres@127.0.0.1:1/memdesk?connect_timeout=2"
    broken = bootstrap.build(
        Settings(home=tmp_path / "broken", database_url=unreachable), clock=loaded.clock
    )
    sales = principal(loaded, "a.sales")
    attempts: list[int] = []

    def query():
        attempts.append(1)
        return broken.knowledge.eligible(sales, as_of=AS_OF)

    try:
        with pytest.raises(RetriesExhausted) as exhausted:
            retry(
                query, clock=loaded.clock, attempts=3, base_delay=0.5, retry_on=(OperationalError,)
            )
    finally:
        broken.close()
    assert len(attempts) == 3
    assert loaded.clock.sleeps == [0.5, 1.0]
    assert isinstance(exhausted.value.__cause__, OperationalError)
    # The healthy store answers on the first attempt.
    assert retry(lambda: loaded.knowledge.eligible(sales, as_of=AS_OF), clock=loaded.clock)


def test_approval_idempotency(loaded):
    sales = principal(loaded, "a.sales")
    draft = {"text": "標準交期依 SOP-v2 為 15 日"}
    first = loaded.approvals.request(sales, task_id="Q42", decision_version=1, payload=draft)
    second = loaded.approvals.request(sales, task_id="Q42", decision_version=1, payload=draft)
    assert second.id == first.id
    assert len(loaded.approvals.search(sales, task_id="Q42")) == 1


def test_approval_not_auto_granted(loaded):
    sales = principal(loaded, "a.sales")
    loaded.approvals.request(sales, task_id="Q42", decision_version=1, payload={"text": "x"})
    (approval,) = loaded.approvals.search(sales, task_id="Q42")
    assert (approval.status, approval.decided_by) == ("pending", None)
