"""What a generation costs, counted (never timed): embedding model calls and where they happen.

Under the scope's lock every other generation of the scope waits (on PostgreSQL, so does every
writer of the tenant at its audit head), so the model is asked before the write transaction:
in one batch for everything a generation will compare, also for memories another worker wrote.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock, as_utc
from services.core.errors import InvalidInput
from services.db.models import AuditEntry
from services.db.models_memory import MemoryRevisionRow
from services.memory.bank import _histories
from services.memory.offers import Offer
from services.memory.types import ConversationEvent, canonical_scope
from services.memory.writes import MemoryWriter
from services.records.audit_chain import verify_chain
from services.retrieval.embedders import HashingEmbedder, Vectors
from services.settings import Settings
from tests.conftest import principal
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.ids import SequentialIds

Q42 = {"task_id": "Q42"}
ACME = {"customer_id": "C-ACME"}


class Watched(HashingEmbedder):
    """The model, noting each call and whether a write transaction was open."""

    def __init__(self) -> None:
        super().__init__()
        self.writing = False
        self.calls: list[tuple[bool, int]] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append((self.writing, len(texts)))
        return super().embed(texts)

    def embed_query(self, text: str) -> Vectors:
        self.calls.append((self.writing, 1))
        return super().embed_query(text)


def _watched(settings: Settings, clock: FakeClock, model: Watched) -> Services:
    built = bootstrap.build(settings, clock=clock, ids=SequentialIds(), embedder=model)
    write = built.db.write

    @contextmanager
    def watched_write() -> Iterator[Session]:
        with write() as session:
            model.writing = True
            try:
                yield session
            finally:
                model.writing = False

    built.db.write = watched_write  # type: ignore[method-assign]
    return built


@pytest.fixture
def watched(settings: Settings, clock: FakeClock, tmp_path: Path) -> Iterator[Services]:
    model = Watched()
    built = _watched(settings, clock, model)
    built.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus_dict()))
    built.memories_model = model  # type: ignore[attr-defined]
    yield built
    built.close()


def mail(text: str, event_id: str) -> tuple[ConversationEvent, ...]:
    return (ConversationEvent(kind="mail", author="customer", text=text, event_id=event_id),)


def offered(text: str, event_id: str) -> list[Offer]:
    return [Offer(scope=s, events=mail(text, event_id), task_id="Q42") for s in (Q42, ACME)]


def test_a_runs_generation_asks_the_model_nothing_inside_the_write_transaction(watched):
    model: Watched = watched.memories_model
    sales = principal(watched, "a.sales")
    first = watched.memories.generate_offered(
        sales, run_id="RUN-1", fresh=offered("數量 1,200 件，交期希望 20 天內。", "MAIL-1")
    )
    assert [o.result.changes[0].action for o in first if o.result] == ["created", "created"]
    model.calls.clear()
    second = watched.memories.generate_offered(
        sales, run_id="RUN-2", fresh=offered("數量改為 1,500 件，交期希望 25 天內。", "MAIL-2")
    )
    assert [c.action for o in second if o.result for c in o.result.changes] == ["updated"] * 4
    assert model.calls and not [c for c in model.calls if c[0]]
    # The same mail for two scopes: its texts reach the model once, in few calls.
    assert len(model.calls) <= 2


def test_memories_another_worker_wrote_are_not_embedded_again_under_the_lock(
    watched, settings: Settings, clock: FakeClock
):
    sales = principal(watched, "a.sales")
    watched.memories.generate_offered(
        sales, run_id="RUN-1", fresh=offered("數量 1,200 件，交期希望 20 天內。", "MAIL-1")
    )
    other_model = Watched()  # another worker process: its own, empty cache
    other = _watched(settings, clock, other_model)
    try:
        outcomes = other.memories.generate_offered(
            principal(other, "a.sales"),
            run_id="RUN-2",
            fresh=offered("數量改為 1,500 件。", "MAIL-2"),
        )
    finally:
        other.close()
    assert [c.action for o in outcomes if o.result for c in o.result.changes] == ["updated"] * 2
    assert other_model.calls and not [c for c in other_model.calls if c[0]]


def test_a_scopes_histories_in_one_query_match_one_query_per_memory(watched):
    sales = principal(watched, "a.sales")
    texts = [
        "數量 1,200 件，交期希望 20 天內。",
        "數量改為 1,500 件，交期希望 25 天內。",
        "數量改為 1,800 件。",
        "請忘記交期的要求。",
        "材質為 SUS304。",
    ]
    for n, text in enumerate(texts):
        watched.memories.generate(
            sales, scope=Q42, events=list(mail(text, f"MAIL-{n}")), acl=("tenant",)
        )
    with watched.db.read() as session:
        ids = sorted(set(session.scalars(select(MemoryRevisionRow.memory_id))))
        assert len(ids) == 3
        for per_candidate in (0, 1, 2, 5):
            expected = {
                memory_id: list(
                    session.scalars(
                        select(MemoryRevisionRow.fact)
                        .where(
                            MemoryRevisionRow.memory_id == memory_id,
                            MemoryRevisionRow.action != "deleted",
                        )
                        .order_by(MemoryRevisionRow.revision.desc())
                        .limit(per_candidate)
                    )
                )
                for memory_id in ids
            }
            found = _histories(session, ids, per_candidate)
            assert {k: found.get(k, []) for k in ids} == expected


def generate_noting_statements(services: Services, run_id: str) -> tuple[list[Any], list[str]]:
    """One run's generation of the same mail, with every SQL statement it sent (one line each)."""
    statements: list[str] = []

    def noted(conn, cursor, statement, parameters, context, executemany):
        statements.append(" ".join(statement.split()))

    event.listen(services.db.engine, "before_cursor_execute", noted)
    try:
        outcomes = services.memories.generate_offered(
            principal(services, "a.sales"),
            run_id=run_id,
            fresh=offered("數量 1,200 件，交期希望 20 天內。", "MAIL-1"),
        )
    finally:
        event.remove(services.db.engine, "before_cursor_execute", noted)
    return outcomes, statements


def test_a_runs_generations_take_the_tenants_audit_head_once_after_every_memory_write(watched):
    outcomes, sent = generate_noting_statements(watched, "RUN-1")
    statements = [s[:40] for s in sent]
    assert [o.result is not None for o in outcomes] == [True, True]
    heads = [i for i, s in enumerate(sent) if "audit_heads" in s]  # the lock, the update
    writes = [i for i, s in enumerate(statements) if s.startswith("INSERT INTO memor")]
    assert len(heads) == 2 and writes and max(writes) < min(heads)
    assert not verify_chain(watched.db).broken


def test_an_offers_new_memories_and_their_revisions_take_one_insert_each(watched):
    outcomes, sent = generate_noting_statements(watched, "RUN-1")
    created = [
        sum(1 for c in o.result.changes if c.action == "created")
        for o in outcomes
        if o.result is not None
    ]
    assert created and max(created) >= 2  # an offer that writes several memories
    statements = [s[:40] for s in sent]
    memories = [i for i, s in enumerate(statements) if s.startswith("INSERT INTO memories ")]
    revisions = [i for i, s in enumerate(statements) if s.startswith("INSERT INTO memory_rev")]
    assert len(memories) == len(created)  # one INSERT of an offer's new memories
    if watched.db.engine.dialect.name == "postgresql":  # SQLite fetches each new id alone
        assert len(revisions) == len(created)
    assert revisions and min(revisions) > min(memories)  # a memory before its revision
    with watched.db.read() as session:
        assert session.scalar(select(func.count()).select_from(MemoryRevisionRow)) == sum(created)


def test_a_units_audit_entries_and_the_heads_move_are_one_statement_on_postgresql(watched):
    _, sent = generate_noting_statements(watched, "RUN-1")
    appended = [s for s in sent if "INSERT INTO audit_log" in s]
    if watched.db.engine.dialect.name == "postgresql":
        assert len(appended) == 1 and appended[0].startswith("WITH")
        assert "UPDATE audit_heads" in appended[0] and "json_to_recordset" in appended[0]
    else:  # SQLite has no data-modifying WITH: the entries in one executemany, then the head
        assert len(appended) == 1 and appended[0].startswith("INSERT INTO audit_log")
    assert not verify_chain(watched.db).broken


def test_a_runs_offers_are_recorded_in_one_statement_and_locked_in_another(watched):
    outcomes, statements = generate_noting_statements(watched, "RUN-1")
    assert [o.result is not None for o in outcomes] == [True, True]  # two scopes, two offers
    inserts = [s for s in statements if s.startswith("INSERT INTO memory_offers")]
    locks = [s for s in statements if s.startswith("SELECT") and "FROM memory_offers" in s]
    assert len(inserts) == 1 and "ON CONFLICT" in inserts[0]
    assert len([s for s in locks if "FOR UPDATE" in s or "memory_offers.id IN" in s]) == 1
    again, _ = generate_noting_statements(watched, "RUN-2")
    assert again == []  # offered before: nothing recorded or generated twice


def test_a_failed_generation_leaves_no_audit_entry_and_the_others_keep_theirs(watched, monkeypatch):
    sales = principal(watched, "a.sales")
    apply = MemoryWriter.apply

    def refuse_the_customer(self, session, principal, plan, *, target, **kw):
        if target.scope_key == canonical_scope(ACME):
            raise InvalidInput("refused for the test")
        return apply(self, session, principal, plan, target=target, **kw)

    monkeypatch.setattr(MemoryWriter, "apply", refuse_the_customer)
    outcomes = watched.memories.generate_offered(
        sales, run_id="RUN-1", fresh=offered("數量 1,200 件，交期希望 20 天內。", "MAIL-1")
    )
    assert [(o.scope, o.result is not None) for o in outcomes] == [
        (canonical_scope(Q42), True),
        (canonical_scope(ACME), False),
    ]
    with watched.db.read() as session:
        entries = session.execute(
            select(AuditEntry.action, AuditEntry.detail, AuditEntry.at).where(
                AuditEntry.action.like("memory.%")
            )
        ).all()
    assert [a for a, _, _ in entries] == ["memory.created", "memory.created", "memory.generated"]
    assert {d["scope"] for _, d, _ in entries} == {canonical_scope(Q42)}
    assert {as_utc(at) for _, _, at in entries} == {watched.clock.now()}
    assert not verify_chain(watched.db).broken
