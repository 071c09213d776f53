"""A Chinese tenant whose task names its open items in English field names (dirty_hold_time,
residue_acceptance_limit): the run searches in the documents' own language and words — the
task's phrase naming the item, or the embedding's pick of its phrases — and drafts from the
Chinese SOP instead of stopping for lack of evidence."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from services import bootstrap
from services.core.clock import FakeClock
from services.settings import Settings
from tests.support.ids import SequentialIds

SOP = (
    "文件编号：SOP-CV-01\n1. 可接受标准\n1.1 活性成分残留限度（MACO）不超过10 ppm。\n"
    "2. 保持时间\n2.1 脏设备保持时间（DHT）：自生产结束至开始清洁，最长48小时。\n"
    "3. 记录\n清洁记录保存5年。"
)
CORPUS = {
    "schema_version": "corpus@1",
    "tenants": [{"tenant_id": "H", "name": "华屹"}],
    "users": [
        {"user_id": "h.qa", "tenant_id": "H", "roles": ["engineer"], "grants": []},
        {"user_id": "h.owner", "tenant_id": "H", "roles": ["knowledge_owner"], "grants": []},
    ],
    "documents": [
        {
            "document_id": "SOP-CV-01",
            "version": 1,
            "tenant_id": "H",
            "doc_type": "sop",
            "knowledge_class": "fact",
            "status": "approved",
            "valid_from": "2026-01-01",
            "valid_to": None,
            "acl": ["tenant"],
            "language": "zh-Hans",
            "title": "清洁验证管理规程",
            "body": SOP,
            "customer_id": None,
            "approved_by": "h.owner",
        }
    ],
    "tasks": [
        {
            "schema_version": "task-state@1",
            "tenant_id": "H",
            "task_id": "CV-1",
            "revision": 1,
            "status": "waiting_input",
            "confirmed": {"equipment": "压片机"},
            "pending": ["dirty_hold_time", "residue_acceptance_limit"],
            "next_step": "retrieve",
            "evidence_ids": ["SOP-CV-01"],
        }
    ],
}


@pytest.fixture
def huayi(tmp_path: Path):
    path = tmp_path / "huayi.json"
    path.write_text(json.dumps(CORPUS, ensure_ascii=False), encoding="utf-8")
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


def test_english_field_names_are_searched_in_the_chinese_documents_words(huayi):
    qa = huayi.directory.principal("h.qa")
    result = huayi.resumer.resume(
        qa,
        "CV-1",
        supplement="请把脏设备保持时间和残留限度定下来，继续出验证方案。",
        as_of=date(2026, 11, 29),
    )
    assert result.run.status == "succeeded", result.run.error
    assert result.decision["status"] == "ready_for_review", result.decision
    cited = {eid for claim in result.decision["claims"] for eid in claim["evidence_ids"]}
    texts = " ".join(claim["text"] for claim in result.decision["claims"])
    assert "最长48小时" in texts and "10 ppm" in texts
    assert all(eid.startswith("SOP-CV-01@1:") for eid in cited)
    events = huayi.runs.events(qa, result.run.run_id)
    queries = [event.payload["query"] for event in events if event.kind == "retrieval"]
    # the name finds only evidence written in none of its words: the SOP's own line naming
    # DHT is searched next, and stands for dirty_hold_time
    assert queries[:2] == ["dirty hold time", "2.1 脏设备保持时间（DHT）：自生产结束至开始清洁"]
    [pool] = [event.payload for event in events if event.kind == "evidence"]
    assert pool["needs"][0]["query"] == queries[1]
