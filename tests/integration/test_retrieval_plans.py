"""SQL eligibility and re-verification on SQLite read what they need: the eligible versions
from the covering index, a hit's document by its key (not every approved version of the
tenant, bodies and all), the tenant's chunk list from its index alone. PostgreSQL plans from
the statistics its autovacuum keeps."""

from __future__ import annotations

import random
from datetime import date

import pytest
from sqlalchemy import event

from services.bootstrap import Services
from services.db.engine import refresh_statistics
from services.lab import bench_retrieval
from services.retrieval import eligibility
from tests.support.retrieval import fake_services, fake_store  # noqa: F401  (fixtures)


def plans(services: Services, run, *, table: str = "document_versions") -> list[str]:
    """SQLite's query plan of every query of `table` that `run` sends."""
    sent: list[tuple[str, object]] = []

    def capture(_conn, _cursor, statement, parameters, _context, _many):
        if statement.lstrip().startswith(f"SELECT {table}"):
            sent.append((statement, parameters))

    event.listen(services.db.engine, "before_cursor_execute", capture)
    try:
        run()
    finally:
        event.remove(services.db.engine, "before_cursor_execute", capture)
    raw = services.db.engine.raw_connection()
    try:
        cursor = raw.cursor()
        return [
            " | ".join(row[3] for row in cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params))
            for sql, params in sent
        ]
    finally:
        raw.close()


@pytest.fixture
def tenant(fake_services: Services) -> Services:  # noqa: F811
    """One tenant with ~12k chunks' worth of document versions (SQL only: plans, not vectors)."""
    corpus = bench_retrieval._synthetic_corpus(random.Random(1), chunks=12_000, tenants=1)
    bench_retrieval._insert(fake_services, corpus, tenants=1)
    return fake_services


def test_an_index_sync_refreshes_the_planner_statistics(tenant: Services):
    tenant.index.sync()
    with tenant.db.engine.connect() as connection:
        analysed = {t for (t,) in connection.exec_driver_sql("SELECT tbl FROM sqlite_stat1")}
    assert {"document_versions", "document_acl"} <= analysed


def test_eligibility_reads_the_index_only_and_verification_reads_by_key(tenant: Services):
    refresh_statistics(tenant.db.engine)
    sales = tenant.directory.principal("t000.sales")
    as_of = date(2026, 11, 29)
    with tenant.db.read() as session:
        listed = plans(tenant, lambda: eligibility.eligible_documents(session, sales, as_of))
        ids = sorted(eligibility.eligible_documents(session, sales, as_of))[:20]
        verified = plans(
            tenant,
            lambda: eligibility.current_versions(session, sales, as_of=as_of, document_ids=ids),
        )
    assert listed and all("COVERING INDEX ix_document_versions_eligible" in p for p in listed)
    assert verified and all("sqlite_autoindex_document_versions_1" in p for p in verified)


def test_the_chunk_list_is_read_from_its_index_alone(tenant: Services):
    tenant.index.sync()
    active = tenant.index.active()
    assert active is not None and active.chunk_count > 10_000
    with tenant.db.read() as session:
        listed = plans(
            tenant,
            lambda: eligibility.load_chunk_table(session, active.index_version, "T000", 1),
            table="index_chunks",
        )
    assert listed and all("COVERING INDEX ix_index_chunks_doc" in p for p in listed)
