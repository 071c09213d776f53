"""PostgreSQL connections: no ping per checkout, an idle connection is pinged and replaced when
the server closed it, statements are prepared on the server."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import Engine, text

from services.db.engine import PINGS, Database, make_engine
from tests.support import pg


@pytest.fixture
def pg_url(pg_template: str) -> Iterator[str]:
    name = pg.create_database(template=pg_template)
    yield pg.url_for(name)
    pg.drop_database(name)


def pings(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.connection._connection_record.info.get(PINGS, 0))  # type: ignore[union-attr]


def backend_pid(database: Database) -> int:
    with database.read() as session:
        return int(session.execute(text("SELECT pg_backend_pid()")).scalar_one())


@pytest.mark.postgres
def test_a_connection_back_from_use_is_handed_out_without_a_ping(pg_url):
    engine = make_engine(pg_url, idle_ping_seconds=3600)
    database = Database(engine)
    try:
        for _ in range(5):
            with database.write() as session:
                session.execute(text("SELECT 1"))
        assert pings(engine) == 0
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_an_idle_connection_the_server_closed_is_replaced_before_use(pg_url):
    # idle_ping_seconds=0: every checkout counts as idle, as one would after a quiet spell.
    engine = make_engine(pg_url, idle_ping_seconds=0)
    database = Database(engine)
    try:
        first = backend_pid(database)
        with psycopg.connect(pg.ADMIN_DSN, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        # No error reaches the caller: the ping finds the dead connection and the pool opens
        # a new one.
        assert backend_pid(database) != first
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_repeated_statements_are_prepared_on_the_server(pg_url):
    engine = make_engine(pg_url, idle_ping_seconds=3600)
    database = Database(engine)
    try:
        for _ in range(3):
            with database.read() as session:
                session.execute(
                    text("SELECT count(*) FROM tenants WHERE tenant_id = :t"), {"t": "A"}
                )
        with database.read() as session:
            prepared = session.execute(
                text("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE :s"),
                {"s": "%FROM tenants WHERE tenant_id%"},
            ).scalar_one()
        assert prepared == 1
    finally:
        engine.dispose()
