"""The audit chain is keyed (HMAC under a key held outside the database): an entry appended by
someone with database access but not the key is found, even with a correctly computed plain
hash; chains from before keys verify, and `audit seal` covers them once (SQLite, PostgreSQL)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select, text, update
from typer.testing import CliRunner

from services import bootstrap
from services.bootstrap import Services
from services.cli.main import app
from services.core.clock import FakeClock
from services.db.engine import Database, make_engine
from services.db.migrate import upgrade
from services.db.models import AuditEntry, AuditHead
from services.records.audit_chain import AuditKey, entry_digest, seal_legacy_chains, verify_chain
from services.settings import Settings
from tests.support.ids import SequentialIds

AUDIT_KEY = "the release's audit key, held outside the database"


def head_of(services: Services, tenant_id: str = "A") -> AuditEntry:
    with services.db.read() as session:
        row = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.tenant_id == tenant_id)
            .order_by(AuditEntry.seq.desc())
            .limit(1)
        ).one()
        session.expunge(row)
        return row


def next_id(services: Services) -> int:
    with services.db.read() as session:
        return int(session.scalar(select(func.max(AuditEntry.id))) or 0) + 1


def forge(services: Services, *, key: AuditKey | None) -> int:
    """What someone with write access to the tables does: append an entry after the head with
    a correctly computed hash (plain, or keyed with a key of their own) and move the head."""
    last = head_of(services)
    content = {
        "tenant_id": "A",
        "seq": last.seq + 1,
        "at": datetime(2026, 11, 30, tzinfo=UTC),
        "actor": "a.admin",
        "action": "approval.approved",
        "subject_type": "approval",
        "subject_id": "Q42:9:draft",
        "before_ref": None,
        "after_ref": None,
        "detail": {"comment": "looks fine"},
        "prev_hash": last.entry_hash,
    }
    digest = entry_digest(key=key, **content)
    forged = next_id(services)
    with services.db.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO audit_log (id, at, tenant_id, actor, action, subject_type, "
                "subject_id, detail, seq, prev_hash, entry_hash) VALUES (:id, :at, :tenant_id, "
                ":actor, :action, :subject_type, :subject_id, :detail, :seq, :prev_hash, :hash)"
            ),
            {**content, "id": forged, "detail": json.dumps(content["detail"]), "hash": digest},
        )
        conn.execute(
            update(AuditHead)
            .where(AuditHead.tenant_id == "A")
            .values(seq=content["seq"], entry_hash=digest)
        )
    return forged


def test_entries_are_keyed_and_the_key_lives_outside_the_database(loaded: Services, settings):
    report = verify_chain(loaded.db)
    assert report.ok and report.unkeyed == 0 and report.key_id is not None
    assert head_of(loaded).entry_hash.startswith(f"hmac-sha256:{report.key_id}:")
    key_file = settings.resolved_home / "audit.key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    secret = key_file.read_bytes()
    with loaded.db.read() as session:  # no copy of the key in any audit row
        stored = " ".join(str(row) for row in session.execute(select(AuditEntry.__table__)).all())
    assert secret.hex() not in stored and AuditKey(secret).key_id == report.key_id


@pytest.mark.parametrize("forged_with", ["plain hash", "own key"])
def test_an_entry_appended_without_the_key_is_found(loaded: Services, forged_with):
    key = AuditKey(b"mallory's own guess at a key") if forged_with == "own key" else None
    forged = forge(loaded, key=key)
    (broken,) = verify_chain(loaded.db).broken
    assert (broken.tenant_id, broken.entry_id) == ("A", forged)
    expected = "without the audit key" if key is None else "not this process's key"
    assert expected in broken.problem


def test_a_keyed_hash_copied_onto_changed_content_is_found(loaded: Services):
    """The key id is public; the hash with a real key id over other content does not verify."""
    last = head_of(loaded)
    key_id = last.entry_hash.split(":")[1]
    forged = next_id(loaded)
    with loaded.db.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO audit_log (id, at, tenant_id, actor, action, subject_type, "
                "subject_id, detail, seq, prev_hash, entry_hash) VALUES (:id, :at, 'A', "
                "'a.admin', 'x.y', 'task', 'Q42', '{}', :seq, :prev, :hash)"
            ),
            {
                "id": forged,
                "at": datetime(2026, 11, 30, tzinfo=UTC),
                "seq": last.seq + 1,
                "prev": last.entry_hash,
                "hash": f"hmac-sha256:{key_id}:" + "0" * 64,
            },
        )
    (broken,) = verify_chain(loaded.db).broken
    assert broken.entry_id == forged and "forged without the key" in broken.problem


def test_a_process_with_another_key_says_so_instead_of_calling_it_forged(
    loaded: Services, settings, tmp_path
):
    other = Settings(
        home=tmp_path / "elsewhere",
        database_url=settings.database_url,
        embedding_backend="hashing",
        audit_key="a different key shared by nobody",  # type: ignore[arg-type]
    )
    elsewhere = bootstrap.build(other, clock=FakeClock(), ids=SequentialIds())
    try:
        broken = verify_chain(elsewhere.db).broken
        assert broken and all("every process sharing the database" in b.problem for b in broken)
    finally:
        elsewhere.close()


def legacy_store(database_url: str, tmp_path: Path) -> Database:
    """A store as it was before keyed hashes: migrated to security_0001, entries chained with
    plain SHA-256 by that migration."""
    engine = make_engine(database_url)
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
                        "subject_id, detail) VALUES (:at, :t, 'a', 'x.y', 'task', :s, '{}')"
                    ),
                    {"at": datetime(2026, 1, 1 + i), "t": tenant, "s": f"T{i}"},
                )
    upgrade(engine, "security_0001")
    engine.dispose()
    return Database(make_engine(database_url))


def test_an_old_chain_verifies_is_sealed_once_and_then_stays_keyed(
    database_url: str, tmp_path: Path
):
    legacy_store(database_url, tmp_path).dispose()
    settings = Settings(
        home=tmp_path / "home",
        database_url=database_url,
        audit_key=AUDIT_KEY,  # type: ignore[arg-type]
    )
    services = bootstrap.build(settings, clock=FakeClock(), ids=SequentialIds())
    try:
        upgrade(services.db.engine)  # the release's migrations
        unsealed = verify_chain(services.db)
        assert {b.tenant_id for b in unsealed.broken} == {"A", "B"}
        assert all("never sealed" in b.problem for b in unsealed.broken)
        assert unsealed.unkeyed == 5  # the plain hashes themselves still verify
        runner = CliRunner()
        env = {
            "MEMDESK_HOME": str(settings.home),
            "MEMDESK_DATABASE_URL": database_url,
            "MEMDESK_AUDIT_KEY": AUDIT_KEY,
        }
        sealed = runner.invoke(app, ["audit", "seal", "--json"], env=env)
        assert sealed.exit_code == 0, sealed.output
        assert json.loads(sealed.stdout)["sealed"] == {"A": 3, "B": 2}
        again = runner.invoke(app, ["audit", "seal", "--json"], env=env)
        assert json.loads(again.stdout)["sealed"] == {}  # once
        verified = runner.invoke(app, ["audit", "verify", "--json"], env=env)
        assert verified.exit_code == 0, verified.output
        report = json.loads(verified.stdout)
        assert report["ok"] and report["unkeyed"] == 5 and report["entries"] == 7
        # After the seal, a plain-hash append is a forgery like any other.
        forged = forge(services, key=None)
        (broken,) = verify_chain(services.db).broken
        assert broken.entry_id == forged and "without the audit key" in broken.problem
    finally:
        services.close()


def test_seal_leaves_a_broken_chain_alone(database_url: str, tmp_path: Path):
    db = legacy_store(database_url, tmp_path)
    with db.engine.begin() as conn:  # an old chain someone already extended by hand
        conn.execute(
            text(
                "INSERT INTO audit_log (at, tenant_id, actor, action, subject_type, subject_id, "
                "detail) VALUES (:at, 'B', 'mallory', 'x.y', 'task', 'T9', '{}')"
            ),
            {"at": datetime(2026, 2, 1, tzinfo=UTC)},
        )
    db.dispose()
    services = bootstrap.build(
        Settings(home=tmp_path / "home", database_url=database_url),
        clock=FakeClock(),
        ids=SequentialIds(),
    )
    try:
        upgrade(services.db.engine)
        report = seal_legacy_chains(services.db, clock=FakeClock(), actor="system:audit")
        assert list(report.sealed) == ["A"]
        assert [b.tenant_id for b in report.refused] == ["B"]
        assert report.refused[0].problem == "entry is not chained"
    finally:
        services.close()
