"""A tamper-evident audit log: each tenant's entries form a hash chain that `memdesk audit verify`
walks; SQLite refuses REPLACE, and on PostgreSQL the application's role cannot alter or drop the
log or its triggers (deploy/postgres-app-role.sql)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner

from services import bootstrap
from services.bootstrap import Services
from services.cli.main import app
from services.core.clock import FakeClock, as_utc
from services.db.engine import Database, make_engine
from services.db.migrate import upgrade
from services.db.models import AuditEntry
from services.records import audit
from services.records.audit import verify_chain
from services.settings import Settings
from tests.support import pg
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.ids import SequentialIds

REPO = Path(__file__).resolve().parents[2]


def verify(database_url: str, tmp_path: Path):
    env = {"MEMDESK_DATABASE_URL": database_url, "MEMDESK_HOME": str(tmp_path / "home")}
    return CliRunner().invoke(app, ["audit", "verify", "--json"], env=env)


def last_entry(services: Services, tenant_id: str = "A") -> AuditEntry:
    with services.db.read() as session:
        row = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.tenant_id == tenant_id)
            .order_by(AuditEntry.seq.desc())
            .limit(1)
        ).one()
        session.expunge(row)
        return row


def test_entries_written_by_the_services_verify(loaded: Services, database_url, tmp_path) -> None:
    report = verify_chain(loaded.db)
    assert report.ok and report.entries > 0 and report.tenants >= 2
    result = verify(database_url, tmp_path)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["ok"] is True


def test_one_units_entries_of_two_tenants_are_stored_as_they_were_chained(loaded: Services):
    """Every entry of a unit is written with its tenant's head in one statement on PostgreSQL
    (the entries travel as JSON): what is stored is what was hashed, whatever the text."""
    clock = FakeClock(datetime(2026, 12, 5, 23, 59, 59, 999_999, tzinfo=UTC))
    details = [
        {"text": '交期「20 天」內 — naïve, "quoted"\n\u2028', "n": n, "ids": ["a", "b"]}
        for n in range(3)
    ]
    with loaded.db.write() as session:
        for tenant_id, wanted in (("B", details[:1]), ("A", details)):
            for n, detail in enumerate(wanted):
                audit.record(
                    session,
                    clock=clock,
                    tenant_id=tenant_id,
                    actor="system:test",
                    action="test.unit",
                    subject_type="test",
                    subject_id=f"{tenant_id}-{n}",
                    before_ref=None if n else "before",
                    detail=detail,
                )
    assert verify_chain(loaded.db).ok
    with loaded.db.read() as session:
        stored = session.execute(
            select(AuditEntry.tenant_id, AuditEntry.at, AuditEntry.before_ref, AuditEntry.detail)
            .where(AuditEntry.action == "test.unit")
            .order_by(AuditEntry.tenant_id, AuditEntry.seq)
        ).all()
    assert [(t, d) for t, _, _, d in stored] == [("A", d) for d in details] + [("B", details[0])]
    assert {as_utc(at) for _, at, _, _ in stored} == {clock.now()}
    assert [b for _, _, b, _ in stored] == ["before", None, None, "before"]


def test_a_forged_insert_with_any_id_and_time_is_reported_as_the_first_broken_link(
    loaded: Services, database_url, tmp_path
) -> None:
    last = last_entry(loaded)
    with loaded.db.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO audit_log (id, at, tenant_id, actor, action, subject_type, "
                "subject_id, detail, seq, prev_hash, entry_hash) VALUES (:id, :at, 'A', "
                "'a.admin', 'approval.decided', 'approval', 'Q42', '{}', :seq, :prev, :hash)"
            ),
            {
                "id": last.id + 1000,
                "at": datetime(2025, 1, 1, tzinfo=UTC),
                "seq": last.seq + 1,
                "prev": last.entry_hash,
                "hash": "sha256:" + "f" * 64,
            },
        )
    result = verify(database_url, tmp_path)
    assert result.exit_code == 1
    (broken,) = json.loads(result.stdout)["broken"]
    assert broken["tenant_id"] == "A" and broken["entry_id"] == last.id + 1000
    assert "without the audit key" in broken["problem"]


def test_an_unchained_insert_is_reported(loaded: Services) -> None:
    with loaded.db.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO audit_log (at, tenant_id, actor, action, subject_type, subject_id, "
                "detail) VALUES (:at, 'B', 'mallory', 'task.updated', 'task', 'B-Q7', '{}')"
            ),
            {"at": datetime(2026, 11, 29, tzinfo=UTC)},
        )
    (broken,) = verify_chain(loaded.db).broken
    assert broken.tenant_id == "B" and broken.problem == "entry is not chained"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("verb", ["REPLACE INTO", "INSERT OR REPLACE INTO", "INSERT INTO"])
def test_sqlite_refuses_to_rewrite_an_entry_through_an_insert(loaded: Services, verb) -> None:
    first = loaded.db.engine.connect()
    try:
        row = first.execute(text("SELECT id, actor FROM audit_log ORDER BY id LIMIT 1")).one()
    finally:
        first.close()
    with pytest.raises(DBAPIError, match="append-only"), loaded.db.engine.begin() as conn:
        conn.execute(
            text(
                f"{verb} audit_log (id, at, tenant_id, actor, action, subject_type, subject_id, "
                "detail) VALUES (:id, :at, 'A', 'mallory', 'x', 'x', 'x', '{}')"
            ),
            {"id": row.id, "at": datetime(2026, 11, 29, tzinfo=UTC)},
        )
    assert verify_chain(loaded.db).ok


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_an_entry_changed_behind_the_triggers_back_is_found_by_verify(loaded: Services) -> None:
    """What an owner or superuser could still do (the app role cannot): the chain shows it."""
    target = last_entry(loaded, "B")
    with loaded.db.engine.begin() as conn:
        conn.execute(text("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change"))
        conn.execute(
            text("UPDATE audit_log SET actor = 'mallory' WHERE id = :id"), {"id": target.id}
        )
        conn.execute(text("ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_change"))
    (broken,) = verify_chain(loaded.db).broken
    assert (broken.tenant_id, broken.entry_id) == ("B", target.id)
    assert "changed" in broken.problem


# ---- PostgreSQL deployment: the application role cannot rewrite history ----------------------


def _grant_statements(role: str) -> list[str]:
    script = (REPO / "deploy" / "postgres-app-role.sql").read_text(encoding="utf-8")
    body = "\n".join(line for line in script.splitlines() if not line.startswith("--"))
    return [s.strip().replace(':"app"', f'"{role}"') for s in body.split(";") if s.strip()]


@pytest.fixture
def app_role_url(database_url: str):
    """A login role set up with deploy/postgres-app-role.sql on this test's database."""
    role = f"memdesk_app_{uuid.uuid4().hex[:8]}"
    name = database_url.rsplit("/", 1)[1]
    admin_dsn = pg.ADMIN_DSN.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')  # type: ignore[arg-type]
        for statement in _grant_statements(role):
            conn.execute(statement)  # type: ignore[arg-type]
    base = database_url.replace("postgresql+psycopg://", "", 1).split("@", 1)[1]
    yield f"postgresql+psycopg://{role}@{base}"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'DROP OWNED BY "{role}"')  # type: ignore[arg-type]
        conn.execute(f'DROP ROLE "{role}"')  # type: ignore[arg-type]


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_app_role_works_but_cannot_alter_or_drop_the_log_or_its_triggers(
    app_role_url: str, tmp_path: Path
) -> None:
    settings = Settings(
        home=tmp_path / "home", database_url=app_role_url, embedding_backend="hashing"
    )
    services = bootstrap.build(settings, clock=FakeClock(), ids=SequentialIds())
    try:
        services.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus_dict()))
        assert verify_chain(services.db).ok
        refused = []
        for statement in (
            "ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change",
            "DROP TRIGGER audit_log_no_change ON audit_log",
            "ALTER TABLE audit_log DISABLE TRIGGER ALL",
            "DROP FUNCTION audit_log_append_only()",
            "ALTER TABLE audit_log ADD COLUMN note text",
            "DROP TABLE audit_log",
            "UPDATE audit_log SET actor = 'mallory'",
            "DELETE FROM audit_log",
            "TRUNCATE audit_log",
            "CREATE TABLE audit_log_copy (id int)",
        ):
            with pytest.raises(DBAPIError) as error, services.db.engine.begin() as conn:
                conn.execute(text(statement))
            assert "must be owner" in str(error.value) or "permission denied" in str(error.value), (
                statement
            )
            refused.append(statement)
        assert len(refused) == 10
        assert verify_chain(services.db).ok
    finally:
        services.close()


def test_entries_from_before_the_chain_are_chained_by_the_migration(
    database_url: str, tmp_path: Path
) -> None:
    engine = make_engine(database_url)
    try:
        if engine.dialect.name == "postgresql":
            with engine.begin() as connection:
                connection.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
        else:
            engine.dispose()
            (tmp_path / "memdesk.db").unlink()
            engine = make_engine(database_url)
        upgrade(engine, "console_0002")
        with engine.begin() as connection:
            for tenant, n in (("A", 3), ("B", 2)):
                for i in range(n):
                    connection.execute(
                        text(
                            "INSERT INTO audit_log (at, tenant_id, actor, action, subject_type, "
                            "subject_id, detail) VALUES (:at, :t, 'a', 'x.y', 'task', :s, :d)"
                        ),
                        {
                            "at": datetime(2026, 1, 1 + i),
                            "t": tenant,
                            "s": f"T{i}",
                            "d": '{"n": 1}',
                        },
                    )
        upgrade(engine)
        report = verify_chain(Database(engine))
        assert report.ok and report.entries == 5 and report.tenants == 2
    finally:
        engine.dispose()
