"""Database layer: migrations reach head on both backends; SQLite runs WAL + IMMEDIATE writes."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from services.db.engine import Database, make_engine
from services.db.migrate import alembic_config, current_revision, upgrade
from services.db.models import Base


def test_migrations_reach_head_and_create_every_table(database_url):
    engine = make_engine(database_url)
    try:
        head = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
        assert current_revision(engine) == head
        assert set(Base.metadata.tables) <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_sqlite_runs_in_wal_with_a_busy_timeout(sqlite_url):
    engine = make_engine(sqlite_url, busy_timeout_ms=4321)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 4321
            assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
    finally:
        engine.dispose()


def test_sqlite_write_units_take_the_write_lock_up_front(sqlite_url):
    """A unit of work holds the write lock from its first statement, even before writing, so
    two writers never deadlock upgrading read locks; readers are not blocked."""
    database = Database(make_engine(sqlite_url))
    path = sqlite_url.removeprefix("sqlite:///")
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with database.write() as session:
            session.execute(text("SELECT 1"))
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            assert other.execute("SELECT count(*) FROM tenants").fetchone() == (0,)
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
    finally:
        other.close()
        database.dispose()


def test_sqlite_read_units_do_not_take_the_write_lock(sqlite_url):
    database = Database(make_engine(sqlite_url))
    path = sqlite_url.removeprefix("sqlite:///")
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with database.read() as session:
            session.execute(text("SELECT count(*) FROM tenants"))
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
    finally:
        other.close()
        database.dispose()


def test_the_migrated_schema_has_exactly_the_models_columns(database_url):
    engine = make_engine(database_url)
    try:
        inspector = inspect(engine)
        drift = {
            name: {c["name"] for c in inspector.get_columns(name)} ^ set(table.columns.keys())
            for name, table in Base.metadata.tables.items()
        }
    finally:
        engine.dispose()
    assert {name: cols for name, cols in drift.items() if cols} == {}


def test_users_hold_no_password_column(database_url):
    """Passwords live in local_credentials only; the foundation's unused column is dropped."""
    engine = make_engine(database_url)
    try:
        columns = {c["name"] for c in inspect(engine).get_columns("users")}
    finally:
        engine.dispose()
    assert "password_hash" not in columns
    assert "password_hash" not in Base.metadata.tables["users"].columns


def test_dropping_the_password_column_keeps_users_and_their_credentials(
    database_url: str, tmp_path
) -> None:
    """An existing store upgraded: recreating `users` (SQLite batch mode) would cascade-delete
    every local credential through their foreign key."""
    engine = make_engine(database_url)
    try:
        if engine.dialect.name == "postgresql":
            with engine.begin() as connection:
                connection.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
        else:
            engine.dispose()
            (tmp_path / "memdesk.db").unlink()
            engine = make_engine(database_url)
        upgrade(engine, "knowledge_0001")
        with engine.begin() as connection:
            connection.execute(
                text("INSERT INTO tenants (tenant_id, name, created_at) VALUES ('A', 'A', :at)"),
                {"at": datetime(2026, 11, 29)},
            )
            connection.execute(
                text(
                    "INSERT INTO users (user_id, tenant_id, display_name, roles, grants, "
                    "password_hash, active, created_at) VALUES ('a.sales', 'A', 'S', '[]', '[]', "
                    "NULL, :yes, :at)"
                ),
                {"yes": True, "at": datetime(2026, 11, 29)},
            )
            connection.execute(
                text(
                    "INSERT INTO local_credentials (user_id, password_hash, failed_attempts, "
                    "changed_by, changed_at) VALUES ('a.sales', 'h', 0, 'x', :at)"
                ),
                {"at": datetime(2026, 11, 29)},
            )
        upgrade(engine)
        with engine.connect() as connection:
            assert connection.scalar(text("SELECT count(*) FROM users")) == 1
            assert connection.scalar(text("SELECT password_hash FROM local_credentials")) == "h"
    finally:
        engine.dispose()


def test_reads_see_committed_rows_and_a_snapshot_read_sees_one_moment(database_url):
    """On PostgreSQL a plain read runs without BEGIN/COMMIT (READ COMMITTED reads each
    statement's own snapshot anyway); `read(snapshot=True)` sees the database as of its first
    statement on both backends, which a streamed walk over many rows needs."""
    database = Database(make_engine(database_url))
    count = text("SELECT count(*) FROM tenants")
    add = text(
        "INSERT INTO tenants (tenant_id, name, created_at) VALUES (:tenant_id, :tenant_id, :at)"
    )
    try:
        with database.read() as session:
            before = session.execute(count).scalar()
            if database.engine.dialect.name == "postgresql":
                dbapi = session.connection().connection.dbapi_connection
                assert dbapi.autocommit  # no transaction was begun for the read
            with database.write() as writer:
                writer.execute(add, {"tenant_id": "later", "at": datetime(2026, 1, 1)})
            if database.engine.dialect.name == "postgresql":
                assert session.execute(count).scalar() == before + 1
        with database.read(snapshot=True) as session:
            first = session.execute(count).scalar()
            with database.write() as writer:
                writer.execute(add, {"tenant_id": "later-still", "at": datetime(2026, 1, 1)})
            assert session.execute(count).scalar() == first
        with database.read() as session:
            assert session.execute(count).scalar() == first + 1
    finally:
        database.dispose()
