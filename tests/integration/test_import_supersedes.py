"""An import hands over between versions exactly as publishing does: a newer approved version
supersedes the older one (validity closed at its valid_from), a lower new version is refused,
and imported completed tasks are under retention like any other."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.bootstrap import Services
from services.cli.main import app
from services.core.clock import FakeClock
from services.core.errors import InvalidInput
from tests.conftest import principal
from tests.support.corpus import corpus_dict, doc, import_bytes, write_corpus

TODAY = date(2026, 11, 29)  # the FakeClock's day


def import_docs(services: Services, *documents: dict) -> None:
    raw = json.dumps(corpus_dict(documents=list(documents)), ensure_ascii=False).encode()
    import_bytes(services.importer, raw, source="next.json", actor="test")


def statuses(services: Services, document_id: str) -> dict[int, tuple[str, date | None]]:
    owner = principal(services, "a.owner")
    return {
        v.version: (v.status, v.valid_to) for v in services.knowledge.versions(owner, document_id)
    }


def test_an_imported_newer_approved_version_supersedes_the_older_one(loaded: Services) -> None:
    import_docs(
        loaded,
        doc(
            "SOP-LEADTIME",
            3,
            valid_from="2026-11-01",
            acl=["role:knowledge_owner"],
            body="新版：標準交期 18 日（僅知識負責人可讀）",
        ),
    )
    assert statuses(loaded, "SOP-LEADTIME")[2] == ("superseded", date(2026, 11, 1))
    assert statuses(loaded, "SOP-LEADTIME")[3] == ("approved", None)
    # The sales user may not read v3, and is not served v2 as current instead.
    sales = principal(loaded, "a.sales")
    assert [
        d.ref
        for d in loaded.knowledge.eligible(sales, as_of=TODAY)
        if d.document_id == "SOP-LEADTIME"
    ] == []
    actions = [e.action for e in loaded.audit.search(principal(loaded, "a.admin"))]
    assert "document.superseded" in actions


def test_an_imported_scheduled_version_takes_over_on_its_day(loaded: Services) -> None:
    import_docs(loaded, doc("SOP-LEADTIME", 3, valid_from="2027-01-01", body="2027 起交期 18 日"))
    # v2 keeps serving until v3 applies; the two never apply on the same day.
    assert statuses(loaded, "SOP-LEADTIME")[2] == ("approved", date(2027, 1, 1))
    sales = principal(loaded, "a.sales")

    def refs(day: date) -> list[str]:
        eligible = loaded.knowledge.eligible(sales, as_of=day)
        return [d.ref for d in eligible if d.document_id == "SOP-LEADTIME"]

    assert refs(TODAY) == ["SOP-LEADTIME@2"]
    assert refs(date(2027, 1, 2)) == ["SOP-LEADTIME@3"]


def test_a_new_version_below_the_stored_one_is_refused_with_exit_2(
    loaded: Services, database_url: str, tmp_path: Path
) -> None:
    import_docs(loaded, doc("SOP-ZINC", 5, body="鍍鋅層 8 µm"))
    path = write_corpus(
        tmp_path / "older.json", corpus_dict(documents=[doc("SOP-ZINC", 3, body="鍍鋅層 5 µm")])
    )
    env = {"MEMDESK_DATABASE_URL": database_url, "MEMDESK_HOME": str(tmp_path / "home")}
    result = CliRunner().invoke(app, ["import", str(path)], env=env)
    assert result.exit_code == 2, result.output
    assert "documents[0] (SOP-ZINC@3).version" in result.stderr
    assert "version 5" in result.stderr
    with pytest.raises(InvalidInput):
        import_docs(loaded, doc("SOP-ZINC", 4, body="鍍鋅層 6 µm"))


def test_an_imported_completed_task_expires_under_the_tenants_retention(
    loaded: Services, clock: FakeClock
) -> None:
    corpus = corpus_dict(documents=[])
    corpus["tasks"].append(
        {
            **corpus["tasks"][0],
            "task_id": "Q-OLD",
            "status": "completed",
            "updated_at": "2026-01-10T08:00:00+00:00",
        }
    )
    import_bytes(loaded.importer, json.dumps(corpus).encode(), source="tasks.json", actor="test")
    admin = principal(loaded, "a.admin")
    record = loaded.tasks.get(admin, "Q-OLD")
    assert record.completed_at is not None and record.expires_at is not None
    assert (record.expires_at - record.completed_at).days == 90
    report = loaded.retention.purge_expired(actor="system:retention")
    assert "A/Q-OLD" in report.removed["task"]
