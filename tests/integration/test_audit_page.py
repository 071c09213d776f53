"""The audit page's service: filters, paging and counting in SQL, CSV export, tenant scope."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from services.bootstrap import Services
from services.core.errors import NotAuthorized
from services.records import audit
from services.records.audit import CSV_COLUMNS, AuditQuery
from tests.conftest import principal
from tests.support.corpus import corpus_dict, write_corpus

B_ADMIN = {
    "user_id": "b.admin",
    "tenant_id": "B",
    "display_name": "B Admin",
    "roles": ["admin"],
    "grants": [],
}


@pytest.fixture
def logged(services: Services, tmp_path) -> Services:
    """Two tenants, each with a few audited changes on different days."""
    corpus = corpus_dict()
    corpus["users"].append(B_ADMIN)
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus))
    a_sales, b_sales = principal(services, "a.sales"), principal(services, "b.sales")
    for number in range(1, 8):
        services.clock.advance(days=1)  # type: ignore[attr-defined]
        services.tasks.create(a_sales, task_id=f"Q{100 + number}")
    services.tasks.create(b_sales, task_id="Q42")  # tenant B's own Q42
    services.tasks.create(b_sales, task_id="B-ONLY")
    return services


def test_a_page_is_newest_first_and_counts_every_match(logged):
    admin = principal(logged, "a.admin")
    first = logged.audit.page(admin, AuditQuery(actor="a.sales", action="task.created"), limit=3)
    assert first.total == 7
    assert [e.subject_id for e in first.items] == ["Q107", "Q106", "Q105"]


def test_pages_cover_every_match_exactly_once(logged):
    admin = principal(logged, "a.admin")
    seen: list[int] = []
    for offset in range(0, 10, 3):
        seen += [e.id for e in logged.audit.page(admin, AuditQuery(), limit=3, offset=offset).items]
    everything = logged.audit.page(admin, AuditQuery(), limit=100)
    assert seen == [e.id for e in everything.items][: len(seen)]
    assert len(seen) == len(set(seen)) == min(everything.total, 12)


@pytest.mark.parametrize(
    ("query", "subjects"),
    [
        (
            AuditQuery(actor="a.sales", action="task.created", target="Q10"),
            {f"Q10{n}" for n in range(1, 8)},
        ),
        (AuditQuery(target="Q103"), {"Q103"}),
        (AuditQuery(target="Q1%"), set()),  # LIKE wildcards in the filter are literal text
        (AuditQuery(target="Q_03"), set()),
        (AuditQuery(actor="a.engineer"), set()),
        (AuditQuery(target="B-ONLY"), set()),  # tenant B's entry is not tenant A's to see
    ],
)
def test_filters_narrow_the_log(logged, query, subjects):
    page = logged.audit.page(principal(logged, "a.admin"), query, limit=100)
    assert {e.subject_id for e in page.items} == subjects
    assert page.total == len(page.items)


def test_the_date_range_includes_since_and_excludes_until(logged):
    admin = principal(logged, "a.admin")
    created = logged.audit.page(admin, AuditQuery(actor="a.sales"), limit=100).items
    at = {e.subject_id: e.at for e in created}
    window = AuditQuery(action="task.created", since=at["Q102"], until=at["Q105"])
    page = logged.audit.page(admin, window, limit=100)
    assert [e.subject_id for e in page.items] == ["Q104", "Q103", "Q102"]
    later = logged.audit.page(admin, AuditQuery(since=at["Q107"] + timedelta(seconds=1)))
    assert later.total == 0


def test_each_tenant_sees_only_its_own_log(logged):
    a_entries = logged.audit.page(principal(logged, "a.admin"), AuditQuery(), limit=500).items
    b_entries = logged.audit.page(principal(logged, "b.admin"), AuditQuery(), limit=500).items
    assert {e.tenant_id for e in a_entries} == {"A"}
    assert {e.tenant_id for e in b_entries} == {"B"}
    assert {"Q42", "B-ONLY"} <= {e.subject_id for e in b_entries}
    assert "b.sales" not in logged.audit.actors(principal(logged, "a.admin"))


@pytest.mark.parametrize("user_id", ["a.sales", "a.engineer"])
def test_only_admins_and_knowledge_owners_read_the_log(logged, user_id):
    reader = principal(logged, user_id)
    with pytest.raises(NotAuthorized):
        logged.audit.page(reader, AuditQuery())
    with pytest.raises(NotAuthorized):
        logged.audit.export_csv(reader, AuditQuery())
    with pytest.raises(NotAuthorized):
        logged.audit.actors(reader)


def test_a_knowledge_owner_reads_the_log(logged):
    assert logged.audit.page(principal(logged, "a.owner"), AuditQuery()).total > 0


def test_the_csv_export_holds_the_filtered_entries_and_is_itself_audited(logged):
    admin = principal(logged, "a.admin")
    query = AuditQuery(actor="a.sales", action="task.created")
    export = logged.audit.export_csv(admin, query)
    rows = list(csv.DictReader(io.StringIO(export.content)))
    expected = logged.audit.page(admin, query, limit=100).items
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [row["subject_id"] for row in rows] == [e.subject_id for e in expected]
    assert {row["tenant_id"] for row in rows} == {"A"}
    assert (export.rows, export.truncated) == (7, False)
    assert export.filename.endswith(".csv") and "-A-" in export.filename
    (exported,) = logged.audit.page(admin, AuditQuery(action="audit.exported")).items
    assert exported.actor == "a.admin"
    assert exported.detail["filters"] == {"actor": "a.sales", "action": "task.created"}
    assert exported.detail["rows"] == 7


def test_a_capped_export_says_it_was_truncated(logged):
    export = logged.audit.export_csv(principal(logged, "a.admin"), AuditQuery(), max_rows=2)
    assert (export.rows, export.truncated) == (2, True)
    assert len(list(csv.reader(io.StringIO(export.content)))) == 3


def test_exported_cells_never_start_a_spreadsheet_formula(logged):
    with logged.db.write() as session:
        audit.record(
            session,
            clock=logged.clock,
            tenant_id="A",
            actor="=cmd|' /C calc'!A0",
            action="task.updated",
            subject_type="task",
            subject_id="@SUM(1+1)",
        )
    export = logged.audit.export_csv(
        principal(logged, "a.admin"), AuditQuery(action="task.updated")
    )
    (row,) = list(csv.DictReader(io.StringIO(export.content)))
    assert row["actor"] == "'=cmd|' /C calc'!A0"
    assert row["subject_id"] == "'@SUM(1+1)"
