"""Database layer: migrations reach head on both backends; SQLite runs WAL + IMMEDIATE writes."""

from __future__ import annotations

import sqlite3

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from services.db.engine import Database, make_engine
from services.db.migrate import alembic_config, current_revision
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
