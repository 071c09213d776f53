"""Nothing is keyed to the demo's wording: an English-only tenant with its own documents, fields
and supplement resumes the same way (facts quoted, engineering list found, old version unused)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from services import bootstrap
from services.core.clock import FakeClock
from services.settings import Settings
from tests.support.ids import SequentialIds


def document(document_id: str, body: str, **fields) -> dict:
    return {
        "document_id": document_id,
        "version": 1,
        "tenant_id": "Z",
        "doc_type": "sop",
        "knowledge_class": "fact",
        "status": "approved",
        "valid_from": "2026-01-01",
        "valid_to": None,
        "acl": ["tenant"],
        "language": "en",
        "title": document_id,
        "body": body,
        "customer_id": None,
        "approved_by": "z.owner",
        **fields,
    }


CORPUS = {
    "schema_version": "corpus@1",
    "tenants": [{"tenant_id": "Z", "name": "Zeta Machining"}],
    "users": [
        {"user_id": "z.sales", "tenant_id": "Z", "roles": ["sales"], "grants": []},
        {"user_id": "z.owner", "tenant_id": "Z", "roles": ["knowledge_owner"], "grants": []},
    ],
    "documents": [
        document(
            "DELIVERY-RULES",
            "Delivery terms for machined parts.\nStandard lead time for "
            "AL6082 machined brackets is 20 working days from the confirmed order.\n"
            "Coating adds 5 working days, confirmed by the coating shop.",
        ),
        document(
            "DELIVERY-RULES-2025",
            "Standard lead time for AL6082 brackets is 12 working days.",
            status="superseded",
            valid_from="2025-01-01",
            valid_to="2026-01-01",
        ),
        document(
            "WITNESS-TESTS",
            "Witness inspection procedure.\nWhen a customer asks for "
            "special inspection or a witnessed test, engineering must confirm the following "
            "before we quote:\n1. Witness date and the inspector's organisation.\n2. Test "
            "pieces, sampling plan and acceptance level.\n3. Report format and language.\n"
            "Sales must not promise a date before engineering replies.",
        ),
        document(
            "MAIL-Z1",
            "Please quote 300 AL6082 brackets and tell us your lead time. We may "
            "need a witnessed inspection, to be confirmed.",
            doc_type="mail",
            knowledge_class="history",
        ),
    ],
    "tasks": [
        {
            "schema_version": "task-state@1",
            "tenant_id": "Z",
            "task_id": "Z-7",
            "revision": 1,
            "status": "waiting_input",
            "confirmed": {"material": "AL6082", "quantity": 300},
            "pending": ["lead_time", "special_inspection"],
            "next_step": "retrieve",
            "evidence_ids": ["MAIL-Z1"],
        }
    ],
}


@pytest.fixture
def zeta(tmp_path: Path):
    path = tmp_path / "zeta.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    services = bootstrap.build(
        Settings(home=tmp_path / "home", embedding_backend="use", analyzer="offline"),
        clock=FakeClock(datetime(2026, 11, 29, 9, tzinfo=UTC)),
        ids=SequentialIds(),
    )
    bootstrap.initialise(services)
    services.importer.import_file(path)
    services.index.sync()
    yield services
    services.close()


def test_an_unseen_english_tenant_resumes_to_a_cited_draft(zeta):
    sales = zeta.directory.principal("z.sales")
    result = zeta.resumer.resume(
        sales,
        "Z-7",
        supplement="The customer confirms special inspection with a witness is "
        "required. Please continue.",
        as_of=date(2026, 11, 29),
    )
    assert result.run.status == "succeeded", result.run.error
    assert result.state.status == "awaiting_approval"
    assert result.state.confirmed == {
        "material": "AL6082",
        "quantity": 300,
        "special_inspection": True,
    }
    claims = result.decision["claims"]
    texts = " ".join(claim["text"] for claim in claims)
    assert "20 working days" in texts and "12 working days" not in texts
    assert [c["text"] for c in claims if c["text"].startswith("Engineering to confirm")] == [
        "Engineering to confirm: 1. Witness date and the inspector's organisation.",
        "Engineering to confirm: 2. Test pieces, sampling plan and acceptance level.",
        "Engineering to confirm: 3. Report format and language.",
    ]
    used = {e.document_id for e in result.evidence}
    assert "DELIVERY-RULES-2025" not in used
    engineer_items = [
        a for a in zeta.approval_flow.current(sales, "Z-7") if a.kind == "engineering"
    ]
    assert len(engineer_items) == 3
