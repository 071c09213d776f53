"""The database failing under a run or an import: a PostgreSQL connection killed mid-transaction,
a read-only SQLite file, a full SQLite database. Each ends in a retry or a clear error, and
never in a half-written record."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, func, select, text

from services import bootstrap
from services.bootstrap import Services
from services.contracts.task_state import TaskStatus
from services.core.clock import FakeClock
from services.core.errors import StorageRefused
from services.db.models import AuditEntry, DocumentVersion, TaskCheckpoint, TaskEvent
from services.settings import Settings
from tests.support import pg
from tests.support.corpus import corpus_dict, doc, write_corpus
from tests.support.ids import SequentialIds
from tests.support.scenario import resume_q42, scenario_corpus
from tests.support.vectors import InMemoryVectorStore

ROOT = Path(__file__).resolve().parents[2]


def build(settings: Settings) -> Services:
    return bootstrap.build(
        settings, clock=FakeClock(), ids=SequentialIds(), vector_store=InMemoryVectorStore()
    )


def revisions_are_whole(services: Services, task_id: str) -> int:
    """Each revision up to the current one has exactly one event and one checkpoint."""
    state = services.tasks.get(services.directory.principal("a.sales"), task_id).state
    with services.db.read() as session:
        for table in (TaskEvent, TaskCheckpoint):
            seen = Counter(
                session.scalars(
                    select(table.revision).where(table.tenant_id == "A", table.task_id == task_id)
                )
            )
            assert sorted(seen) == list(range(1, state.revision + 1)), table.__name__
            assert set(seen.values()) == {1}, table.__name__
    return state.revision


# ---- PostgreSQL: the connection is killed in the middle of a transaction --------------------
@pytest.fixture
def pg_services(tmp_path: Path, pg_template: str) -> Iterator[Services]:
    name = pg.create_database(template=pg_template)
    built = build(
        Settings(home=tmp_path / "home", database_url=pg.url_for(name), embedding_backend="hashing")
    )
    built.importer.import_file(write_corpus(tmp_path / "scenario.json", scenario_corpus()))
    yield built
    built.close()
    pg.drop_database(name)


class BackendKiller:
    """Terminates the session's own backend (pg_terminate_backend from another connection)
    just before its n-th statement that starts with `prefix` goes to the server."""

    def __init__(self, engine: Any, *, prefix: str, nth: int) -> None:
        self.prefix, self.nth, self.seen, self.killed = prefix.upper(), nth, 0, 0
        event.listen(engine, "before_cursor_execute", self._before)

    def _before(self, conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not statement.lstrip().upper().startswith(self.prefix):
            return
        self.seen += 1
        if self.seen != self.nth:
            return
        pid = conn.connection.dbapi_connection.info.backend_pid
        with psycopg.connect(pg.ADMIN_DSN, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        self.killed += 1


@pytest.mark.postgres
def test_a_connection_dropped_mid_transaction_is_retried_and_nothing_is_half_written(
    pg_services,
):
    # The second checkpoint of the run belongs to the move into `retrieving`: its UPDATE of the
    # task row has already gone through in the same transaction when the connection dies.
    killer = BackendKiller(pg_services.db.engine, prefix="INSERT INTO task_checkpoints", nth=2)
    done = resume_q42(pg_services)
    assert killer.killed == 1
    assert done.status == "succeeded" and done.attempts == 2
    sales = pg_services.directory.principal("a.sales")
    retries = [e.payload for e in pg_services.runs.events(sales, done.run_id)]
    assert any("database_unavailable" in str(p.get("reason")) for p in retries)
    assert pg_services.tasks.get(sales, "Q42").state.status == TaskStatus.awaiting_approval
    revisions_are_whole(pg_services, "Q42")


# ---- SQLite: a read-only file and a full database --------------------------------------------
@pytest.fixture
def sqlite_settings(tmp_path: Path) -> Settings:
    settings = Settings(home=tmp_path / "home", embedding_backend="hashing", analyzer="offline")
    built = build(settings)
    bootstrap.initialise(built)
    built.importer.import_file(write_corpus(tmp_path / "scenario.json", scenario_corpus()))
    built.close()  # the last connection checkpoints the WAL into the main file
    return settings


def snapshot(services: Services) -> tuple[int, int, int]:
    with services.db.read() as session:
        return (
            int(session.scalar(select(func.count()).select_from(DocumentVersion)) or 0),
            int(session.scalar(select(func.count()).select_from(AuditEntry)) or 0),
            int(session.scalar(select(func.max(TaskEvent.id))) or 0),
        )


def integrity(services: Services) -> str:
    with services.db.engine.connect() as conn:
        return str(conn.execute(text("PRAGMA integrity_check")).scalar())


def new_document_corpus(tmp_path: Path, body: str = "新的包裝規定：每箱不超過二十公斤。") -> Path:
    corpus = corpus_dict()
    corpus["documents"].append(doc("SOP-PACKING", 1, valid_from="2026-01-01", body=body))
    return write_corpus(tmp_path / "more.json", corpus)


def chattr(flag: str, *paths: Path) -> None:
    subprocess.run(["chattr", flag, *map(str, paths)], check=True)


def memdesk(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMDESK_HOME": str(settings.home), "MEMDESK_EMBEDDING_BACKEND": "hashing"}
    env.pop("MEMDESK_DATABASE_URL", None)
    return subprocess.run(
        [str(Path(sys.executable).parent / "memdesk"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


def test_a_read_only_database_file_is_refused_clearly_and_left_intact(sqlite_settings, tmp_path):
    db_file = sqlite_settings.resolved_home / "memdesk.db"
    assert list(db_file.parent.glob("memdesk.db-*")) == []  # everything is in the main file
    extra = new_document_corpus(tmp_path)
    chattr("+i", db_file)  # immutable: even root cannot write it
    try:
        store = build(sqlite_settings)
        try:
            before = snapshot(store)  # reading still works
            with pytest.raises(StorageRefused, match="the database is read-only: nothing"):
                store.importer.import_file(extra)
            sales = store.directory.principal("a.sales")
            with pytest.raises(StorageRefused, match="read-only"):
                resume_q42(store)
            assert store.tasks.get(sales, "Q42").state.revision == 1
        finally:
            store.close()
        refused = memdesk(sqlite_settings, "import", str(extra))
        assert refused.returncode == 2  # an operator fixes it: bad input, not a failure
        assert refused.stderr.startswith("error: the database is read-only: nothing was written")
        assert "INSERT" not in refused.stderr  # a clear message, not a SQL dump
    finally:
        chattr("-i", db_file)
    store = build(sqlite_settings)
    try:
        assert integrity(store) == "ok"
        assert snapshot(store) == before
        assert store.importer.import_file(extra).changed  # writable again: works as before
    finally:
        store.close()


def test_a_full_database_is_refused_clearly_and_the_failed_import_leaves_nothing(
    sqlite_settings, tmp_path
):
    store = build(sqlite_settings)
    try:
        with store.db.engine.connect() as conn:
            pages = int(conn.execute(text("PRAGMA page_count")).scalar() or 0)

        def cap(dbapi_connection: Any, _record: Any) -> None:  # the disk has no room left
            dbapi_connection.execute(f"PRAGMA max_page_count={pages}")

        event.listen(store.db.engine, "connect", cap)
        store.db.engine.dispose()
        before = snapshot(store)
        big = new_document_corpus(tmp_path, body="包裝規定。" * 40_000)
        with pytest.raises(StorageRefused, match="the database is full"):
            store.importer.import_file(big)
        assert snapshot(store) == before
        assert integrity(store) == "ok"
        event.remove(store.db.engine, "connect", cap)
        store.db.engine.dispose()
        assert store.importer.import_file(big).changed
        assert snapshot(store)[0] == before[0] + 1
    finally:
        store.close()
