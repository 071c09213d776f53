"""Memory generation by Gemini through the real SDK, answered by recorded responses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.llm.ports import AnalysisRejected, TransientFailure
from services.memory.types import ConversationEvent
from services.settings import Settings
from tests.conftest import principal
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.gemini import RecordedGemini
from tests.support.ids import SequentialIds

Q42 = {"task_id": "Q42"}
EVENTS = [
    ConversationEvent(kind="mail", author="customer", text="客戶確認需要特殊檢驗。", event_id="M1"),
    ConversationEvent(
        kind="chat", author="customer", text="包裝請用 VCI 防鏽袋；單價有點高。", event_id="C1"
    ),
]


@pytest.fixture
def model() -> RecordedGemini:
    return RecordedGemini()


@pytest.fixture
def bank(settings: Settings, clock: FakeClock, model: RecordedGemini, tmp_path: Path):
    built = bootstrap.build(settings, clock=clock, ids=SequentialIds(), genai_client=model.client)
    built.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus_dict()))
    yield built
    built.close()


def generate(services: Services, events=EVENTS):
    return services.memories.generate(principal(services, "a.sales"), scope=Q42, events=events)


def test_gemini_memories_are_kept_only_for_enabled_topics(bank, model):
    model.script = ["memory_generate"]
    result = generate(bank)
    assert result.extractor == "gemini:gemini-2.5-flash"
    assert (result.model_calls, result.tokens) == (1, 920 + 88)
    assert [(c.action, c.topic, c.fact) for c in result.changes] == [
        ("created", "key_task_details", "客戶確認需要特殊檢驗"),
        ("created", "customer_preferences", "客戶偏好以 VCI 防鏽袋包裝"),
        ("dropped", "pricing_gossip", "客戶覺得單價偏高"),
    ]
    sales = principal(bank, "a.sales")
    preference = bank.memories.list_memories(sales, scope=Q42, topic="customer_preferences")[0]
    [revision] = bank.memories.revisions(sales, preference.memory_id)
    assert (revision.source.event_id, revision.source.kind) == ("C1", "chat")


def test_the_request_carries_topics_examples_schema_and_delimited_events(bank, model):
    admin = principal(bank, "a.admin")
    bank.memories.config.set_topic(
        admin, label="packaging", description="How the customer wants parts packed."
    )
    bank.memories.config.set_topic(admin, label="customer_profile", enabled=False)
    model.script = ["memory_nothing"]
    assert generate(bank).changes == ()
    [request] = model.requests
    system = request["systemInstruction"]["parts"][0]["text"]
    assert "- packaging: How the customer wants parts packed." in system
    assert "- customer_profile:" not in system
    assert '"text": "謝謝，收到了。"}] -> {"memories": [], "forget": []}' in system
    prompt = request["contents"][0]["parts"][0]["text"]
    assert "<untrusted_data>" in prompt and "包裝請用 VCI 防鏽袋" in prompt
    config = request["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    schema = config.get("responseSchema") or config.get("responseJsonSchema")
    assert set(schema["properties"]) == {"memories", "forget"}


def test_a_gemini_update_and_forget_consolidate_with_revisions(bank, model):
    model.script = ["memory_generate", "memory_update_forget"]
    generate(bank)
    result = generate(bank, [EVENTS[0]])
    assert [(c.action, c.fact, c.previous_fact) for c in result.changes] == [
        ("deleted", "客戶偏好以 VCI 防鏽袋包裝", "客戶偏好以 VCI 防鏽袋包裝"),
        ("updated", "客戶確認需要特殊檢驗與材質證明", "客戶確認需要特殊檢驗"),
    ]
    sales = principal(bank, "a.sales")
    [memory] = bank.memories.list_memories(sales, scope=Q42)
    assert [r.fact for r in bank.memories.revisions(sales, memory.memory_id)] == [
        "客戶確認需要特殊檢驗與材質證明",
        "客戶確認需要特殊檢驗",
    ]


@pytest.mark.parametrize(
    ("recording", "error", "reason"),
    [
        ("memory_invalid_json", AnalysisRejected, "invalid_json"),
        ("memory_event_beyond", AnalysisRejected, "schema_violation"),
        ("error_429", TransientFailure, "model_http_429"),
    ],
)
def test_an_unusable_answer_is_rejected_and_writes_nothing(bank, model, recording, error, reason):
    model.script = [recording]
    with pytest.raises(error) as raised:
        generate(bank)
    assert raised.value.reason == reason
    assert bank.memories.list_memories(principal(bank, "a.sales"), scope=Q42) == []


@pytest.fixture
def offline(settings: Settings, clock: FakeClock) -> Iterator[Services]:
    built = bootstrap.build(settings, clock=clock, ids=SequentialIds())
    yield built
    built.close()


def test_without_a_key_or_client_the_offline_extractor_is_used(offline):
    assert offline.memories.extractor_name == "offline"


def test_model_calls_and_searches_are_audited(bank, model):
    model.script = ["memory_generate", "memory_invalid_json"]
    generated = generate(bank)
    with pytest.raises(AnalysisRejected):
        generate(bank)
    sales = principal(bank, "a.sales")
    bank.memories.search(sales, scope=Q42, query="檢驗")
    admin = principal(bank, "a.admin")
    entries = {e.action: e for e in bank.audit.search(admin) if e.action.startswith("memory.")}
    done = entries["memory.generated"]
    assert done.subject_id == generated.generation_id
    assert (done.detail["model_calls"], done.detail["tokens"]) == (1, 920 + 88)
    failed = entries["memory.generation_failed"]
    assert (failed.detail["reason"], failed.detail["model_calls"]) == ("invalid_json", 1)
    assert entries["memory.searched"].detail["scope"] == "task_id=Q42"
