"""The audit log gets an entry for every change and cannot be rewritten, by code or by raw SQL."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from services.bootstrap import Services
from services.contracts.corpus import DocStatus
from services.contracts.task_state import TaskStatus
from services.core.errors import ConfirmedFieldConflict
from services.records.audit import AuditService
from tests.conftest import principal
from tests.support.corpus import corpus_dict, doc, import_bytes
from tests.support.snapshot import database_digest


def create_task(s: Services) -> None:
    s.tasks.create(principal(s, "a.sales"), task_id="Q77")


def update_task(s: Services) -> None:
    s.tasks.update(principal(s, "a.sales"), "Q42", expected_revision=1, next_step="analyze")


def transition_task(s: Services) -> None:
    s.tasks.update(principal(s, "a.sales"), "Q42", expected_revision=1, status=TaskStatus.restoring)


def conflict_on_task(s: Services) -> None:
    with pytest.raises(ConfirmedFieldConflict):
        s.tasks.update(principal(s, "a.sales"), "Q42", expected_revision=1, confirm={"quantity": 9})


def resolve_conflict(s: Services) -> None:
    conflict_on_task(s)
    s.tasks.resolve_conflict(
        principal(s, "a.sales"),
        "Q42",
        expected_revision=2,
        field="quantity",
        keep_confirmed=True,
        reason="customer mail says 1200",
    )


def hold_task(s: Services) -> None:
    s.tasks.set_legal_hold(principal(s, "a.admin"), "Q42", hold=True, reason="dispute")


def lift_hold(s: Services) -> None:
    hold_task(s)
    s.tasks.set_legal_hold(principal(s, "a.admin"), "Q42", hold=False, reason="settled")


def purge_task(s: Services) -> None:
    sales = principal(s, "a.sales")
    revision = 1
    for status in ["restoring", "retrieving", "analyzing", "reviewing", "awaiting_approval"]:
        s.tasks.update(sales, "Q42", expected_revision=revision, status=TaskStatus(status))
        revision += 1
    s.tasks.update(sales, "Q42", expected_revision=revision, status=TaskStatus.completed)
    s.tasks.purge_expired(actor="system:retention", now=s.clock.now() + timedelta(days=400))


def import_corpus(s: Services) -> None:
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-PACK", 1, status="pending_approval", body="包裝規範"))
    import_bytes(s.importer, json.dumps(corpus).encode(), source="more.json", actor="a.admin")


def request_approval(s: Services) -> None:
    s.approvals.request(
        principal(s, "a.sales"), task_id="Q42", decision_version=1, payload={"draft": "x"}
    )


def approve(s: Services) -> None:
    request_approval(s)
    (pending,) = s.approvals.search(principal(s, "a.sales"), task_id="Q42")
    s.approvals.decide(principal(s, "a.sales"), pending.id, approve=True, comment="ok")


def reject(s: Services) -> None:
    request_approval(s)
    (pending,) = s.approvals.search(principal(s, "a.sales"), task_id="Q42")
    s.approvals.decide(principal(s, "a.sales"), pending.id, approve=False, comment="wrong date")


def revoke_document(s: Services) -> None:
    s.knowledge.change_status(
        principal(s, "a.owner"),
        document_id="SOP-LEADTIME",
        version=2,
        target=DocStatus.revoked,
        reason="superseded by a memo",
    )


def approve_document(s: Services) -> None:
    import_corpus(s)
    owner = principal(s, "a.owner")
    (candidate,) = s.candidates.adopt_pending(owner)
    s.candidates.approve(owner, candidate.candidate_id)
    s.publisher.publish(owner, candidate.candidate_id)


# (change, the audit action it must leave, the actor, the subject)
CASES: list[tuple[Callable[[Services], None], str, str, str]] = [
    (create_task, "task.created", "a.sales", "Q77"),
    (update_task, "task.updated", "a.sales", "Q42"),
    (transition_task, "task.transition", "a.sales", "Q42"),
    (conflict_on_task, "task.conflict", "a.sales", "Q42"),
    (resolve_conflict, "task.conflict_resolved", "a.sales", "Q42"),
    (hold_task, "legal_hold.set", "a.admin", "Q42"),
    (lift_hold, "legal_hold.lifted", "a.admin", "Q42"),
    (purge_task, "task.purged", "system:retention", "Q42"),
    (import_corpus, "corpus.imported", "a.admin", "more.json"),
    (request_approval, "approval.requested", "a.sales", "Q42:1:draft"),
    (approve, "approval.approved", "a.sales", "Q42:1:draft"),
    (reject, "approval.rejected", "a.sales", "Q42:1:draft"),
    (revoke_document, "document.revoked", "a.owner", "SOP-LEADTIME@2"),
    (approve_document, "document.approved", "a.owner", "SOP-PACK@1"),
]


@pytest.mark.parametrize(("change", "action", "actor", "subject"), CASES, ids=[c[1] for c in CASES])
def test_every_change_writes_an_audit_entry(loaded, change, action, actor, subject):
    admin = principal(loaded, "a.admin")
    seen = {entry.id for entry in loaded.audit.search(admin)}
    change(loaded)
    new = [entry for entry in loaded.audit.search(admin) if entry.id not in seen]
    matching = [entry for entry in new if entry.action == action]
    assert matching, [entry.action for entry in new]
    entry = matching[0]
    assert (entry.actor, entry.subject_id, entry.tenant_id) == (actor, subject, "A")
    assert entry.at == loaded.clock.now()


def test_the_service_layer_offers_no_way_to_change_the_log():
    public = [name for name in dir(AuditService) if not name.startswith("_")]
    assert public and not [
        name for name in public if re.search(r"update|delete|remove|edit|purge|clear", name)
    ]
    # No code in services/ issues an UPDATE or DELETE against the audit table.
    services_dir = Path(__file__).resolve().parents[2] / "services"
    offenders = [
        str(path)
        for path in services_dir.rglob("*.py")
        if "migrations" not in path.parts
        and re.search(r"(update|delete)\(\s*AuditEntry|audit_log\s+(SET|WHERE)", path.read_text())
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_log SET actor = 'mallory'",
        "DELETE FROM audit_log",
        "DELETE FROM audit_log WHERE action = 'corpus.imported'",
    ],
)
def test_the_database_refuses_to_rewrite_the_log(loaded, statement):
    before = database_digest(loaded.db.engine)["audit_log"]
    assert before[0] > 0
    with pytest.raises(DBAPIError, match="append-only"), loaded.db.engine.begin() as conn:
        conn.execute(text(statement))
    assert database_digest(loaded.db.engine)["audit_log"] == before


def test_an_orm_delete_of_an_entry_is_refused(loaded):
    from services.db.models import AuditEntry

    with pytest.raises(DBAPIError, match="append-only"), loaded.db.write() as session:
        entry = session.query(AuditEntry).first()
        session.delete(entry)


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_postgresql_also_refuses_truncate(loaded):
    # SQLite has no TRUNCATE; its DELETE without WHERE is refused above.
    assert loaded.db.engine.dialect.name == "postgresql"
    with pytest.raises(DBAPIError, match="append-only"), loaded.db.engine.begin() as conn:
        conn.execute(text("TRUNCATE audit_log"))
