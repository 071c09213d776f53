"""Consolidation decided by Gemini (recorded responses), re-checked under the scope lock."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.llm.ports import AnalysisRejected, TransientFailure
from services.memory.bank import MemoryBank
from services.memory.config import ConfigDefaults
from services.memory.consolidate import Candidate, Plan, SimilarityConsolidator
from services.memory.extract_offline import OfflineExtractor
from services.memory.types import ConversationEvent, Extraction
from services.settings import Settings
from tests.conftest import principal
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.gemini import RecordedGemini, recording
from tests.support.ids import SequentialIds

Q42 = {"task_id": "Q42"}
_MEMORY = re.compile(r"\{\{memory:([^}]+)\}\}")


class RecordedMemoryGemini(RecordedGemini):
    """Recordings name memories as `{{memory:TEXT}}`: the memory offered in the request whose
    latest revision contains TEXT (memory ids depend on the run)."""

    def handler(self, request: httpx.Request) -> httpx.Response:
        if not self.script:
            raise AssertionError("the model was called more often than recorded")
        status, body = recording(self.script.pop(0))
        sent = json.loads(request.content)
        self.requests.append(sent)
        if "{{memory:" in body:
            offered = data_of(sent)["memories"]

            def memory_id(match: re.Match[str]) -> str:
                for memory in offered:
                    if match.group(1) in memory["revisions"][0]:
                        return str(memory["memory_id"])
                raise AssertionError(f"no offered memory mentions {match.group(1)!r}")

            body = _MEMORY.sub(memory_id, body)
        return httpx.Response(
            status, content=body.encode("utf-8"), headers={"content-type": "application/json"}
        )


def data_of(request: dict[str, Any]) -> dict[str, Any]:
    text = request["contents"][0]["parts"][0]["text"]
    return dict(json.loads(text.split("<untrusted_data>\n", 1)[1].split("\n</untrusted_data>")[0]))


@pytest.fixture
def model() -> RecordedMemoryGemini:
    return RecordedMemoryGemini()


@pytest.fixture
def bank(
    settings: Settings, clock: FakeClock, model: RecordedMemoryGemini, tmp_path: Path
) -> Iterator[Services]:
    configured = settings.model_copy(update={"memory_consolidator": "gemini"})
    built = bootstrap.build(configured, clock=clock, ids=SequentialIds(), genai_client=model.client)
    built.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus_dict()))
    yield built
    built.close()


def generate(services: Services, *texts: str):
    return services.memories.generate(
        principal(services, "a.sales"),
        scope=Q42,
        events=[ConversationEvent(kind="mail", author="customer", text=t) for t in texts],
    )


FIRST = ("客戶確認需要特殊檢驗。", "包裝請用 VCI 防鏽袋；單價有點高。")  # what memory_generate read


def remembered(services: Services) -> list[str]:
    return sorted(
        m.fact for m in services.memories.list_memories(principal(services, "a.sales"), scope=Q42)
    )


def test_the_model_updates_and_skips_against_the_offered_memories(bank, model):
    model.script = ["memory_generate"]
    generate(bank, *FIRST)  # nothing to compare with yet: no consolidation call
    assert len(model.requests) == 1

    model.script = ["memory_consolidate_extract", "memory_consolidate_plan"]
    result = generate(bank, "另外需要附材質證明，包裝照舊用 VCI 防鏽袋。")
    assert [(c.action, c.fact, c.previous_fact) for c in result.changes] == [
        ("updated", "客戶確認需要特殊檢驗，並需附材質證明", "客戶確認需要特殊檢驗"),
        ("unchanged", "客戶偏好以 VCI 防鏽袋包裝", "客戶偏好以 VCI 防鏽袋包裝"),
    ]
    assert (result.model_calls, result.tokens) == (2, 880 + 70 + 640 + 90)
    offered = data_of(model.requests[-1])
    assert [len(m["revisions"]) for m in offered["memories"]] == [1, 1]
    assert [f["fact"] for f in offered["new_facts"]] == [
        "另需附材質證明",
        "客戶偏好以 VCI 防鏽袋包裝",
    ]
    assert remembered(bank) == ["客戶偏好以 VCI 防鏽袋包裝", "客戶確認需要特殊檢驗，並需附材質證明"]


def test_a_forget_deletes_what_the_model_names_and_it_sees_n_revisions(bank, model):
    model.script = ["memory_generate", "memory_consolidate_extract", "memory_consolidate_plan"]
    generate(bank, *FIRST)
    generate(bank, "另外需要附材質證明，包裝照舊用 VCI 防鏽袋。")
    admin = principal(bank, "a.admin")
    bank.memories.config.save_customization(
        admin,
        enable_third_person_memories=False,
        revisions_per_candidate_count=2,
        disable_memory_revisions=False,
    )
    model.script = ["memory_forget_extract", "memory_forget_plan"]
    result = generate(bank, "請忘記包裝方式的偏好。")
    assert [(c.action, c.fact) for c in result.changes] == [
        ("deleted", "客戶偏好以 VCI 防鏽袋包裝")
    ]
    offered = {m["topic"]: m["revisions"] for m in data_of(model.requests[-1])["memories"]}
    assert offered["key_task_details"] == [
        "客戶確認需要特殊檢驗，並需附材質證明",
        "客戶確認需要特殊檢驗",
    ]
    assert remembered(bank) == ["客戶確認需要特殊檢驗，並需附材質證明"]


def test_an_answer_naming_a_memory_it_was_not_given_is_rejected(bank, model):
    model.script = [
        "memory_generate",
        "memory_consolidate_extract",
        "memory_consolidate_unknown_id",
    ]
    generate(bank, *FIRST)
    with pytest.raises(AnalysisRejected) as raised:
        generate(bank, "另外需要附材質證明，包裝照舊用 VCI 防鏽袋。")
    assert raised.value.reason == "schema_violation"
    assert "mem-not-offered" in str(raised.value)
    assert remembered(bank) == ["客戶偏好以 VCI 防鏽袋包裝", "客戶確認需要特殊檢驗"]
    failures = bank.audit.search(principal(bank, "a.admin"), action="memory.generation_failed")
    assert [f.detail["reason"] for f in failures] == ["schema_violation"]


class ChangesTheScopeMeanwhile:
    """A remote consolidator during whose call a person deletes one of the candidates."""

    name = "meddling"
    remote = True

    def __init__(self) -> None:
        self.bank: MemoryBank | None = None
        self.sales: Any = None

    def decide(
        self, extraction: Extraction, candidates: Sequence[Candidate], *, embed, threshold
    ) -> tuple[Plan, int, int]:
        assert self.bank is not None
        victim = candidates[0].memory_id
        assert victim is not None
        self.bank.delete(self.sales, victim, reason="a person, meanwhile")
        plan, _, _ = SimilarityConsolidator().decide(
            extraction, candidates, embed=embed, threshold=threshold
        )
        return plan, 1, 10


def test_candidates_changed_during_the_model_call_refuse_the_plan(loaded):
    meddling = ChangesTheScopeMeanwhile()
    memories = MemoryBank(
        db=loaded.db,
        clock=loaded.clock,
        ids=loaded.ids,
        embedder=loaded.index.embedder,
        extractor=OfflineExtractor(),
        config=loaded.memories.config,
        defaults=ConfigDefaults(),
        consolidator=meddling,
    )
    sales = principal(loaded, "a.sales")
    meddling.bank, meddling.sales = memories, sales

    def say(text: str):
        return memories.generate(sales, scope=Q42, events=[ConversationEvent(text=text)])

    say("交期希望 20 天內。")
    with pytest.raises(TransientFailure) as raised:
        say("交期希望 25 天內。")
    assert raised.value.reason == "memory_scope_changed"
    assert memories.list_memories(sales, scope=Q42) == []  # only the person's delete happened
