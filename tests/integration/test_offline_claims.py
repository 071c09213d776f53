"""The offline analyzer on the demo corpus: a task asking about SUS316L surface treatment and
lead time gets claims from the spans that answer them (the passivation SOP, the standard
lead-time SOP), nothing listed as missing, and no span stated twice."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from tests.conftest import principal
from tests.support.corpus import write_corpus

DEMO_CORPUS = Path(__file__).resolve().parents[2] / "data" / "demo-corpus.json"
TASK = {
    "schema_version": "task-state@1",
    "tenant_id": "A",
    "task_id": "Q-S316",
    "revision": 1,
    "status": "waiting_input",
    "confirmed": {"material": "SUS316L", "quantity": 400},
    "pending": ["surface_treatment", "lead_time"],
    "next_step": "retrieve",
    "evidence_ids": [],
}


def test_every_answered_item_is_claimed_from_its_spans(services, tmp_path):
    corpus = json.loads(DEMO_CORPUS.read_text(encoding="utf-8"))
    corpus["tasks"].append(TASK)
    services.importer.import_file(write_corpus(tmp_path / "demo.json", corpus))
    services.index.sync()
    sales = principal(services, "a.sales")
    result = services.resumer.resume(
        sales,
        "Q-S316",
        supplement="客戶詢問 SUS316L 零件的表面處理方式與交期，請接著處理。",
        as_of=date(2026, 11, 29),
    )
    decision = result.decision
    assert decision is not None and result.run.status == "succeeded", result.run.error
    assert decision["status"] == "ready_for_review", decision
    assert decision["missing_fields"] == []
    cited = [eid for claim in decision["claims"] for eid in claim["evidence_ids"]]
    assert any(eid.startswith("SOP-PASSIVATION@1:") for eid in cited), decision["claims"]
    assert any(eid.startswith("SOP-LEADTIME@2:") for eid in cited), decision["claims"]
    assert len(cited) == len(set(cited))
    texts = [claim["text"] for claim in decision["claims"]]
    assert len(texts) == len(set(texts))
