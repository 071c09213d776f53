"""The Gemini Analysis agent through the real google-genai SDK, answered by recorded responses
over an injected httpx transport: each recording ends the run in the right state for the
right reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from services import bootstrap
from services.agents.runs import RunView
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.settings import Settings
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.gemini import RecordedGemini, request_input
from tests.support.ids import SequentialIds

SUPPLEMENT = "客戶確認需要特殊檢驗，請接著處理。"


@dataclass
class GeminiRun:
    services: Services
    run: RunView
    model: RecordedGemini
    clock: FakeClock

    @property
    def sales(self):
        return self.services.directory.principal("a.sales")

    def task(self):
        return self.services.tasks.get(self.sales, "Q42").state

    def approvals(self):
        return self.services.approvals.search(self.sales, task_id="Q42")

    def events(self, kind: str):
        return [e for e in self.services.runs.events(self.sales, self.run.run_id) if e.kind == kind]


@pytest.fixture
def resume_with(settings: Settings, clock: FakeClock, tmp_path: Path) -> Iterator:
    built: list[Services] = []

    def resume(*recordings: str, model_review: bool = False) -> GeminiRun:
        model = RecordedGemini(*recordings)
        services = bootstrap.build(
            settings.model_copy(update={"gemini_model_review": model_review}),
            clock=clock,
            ids=SequentialIds(),
            genai_client=model.client,
        )
        built.append(services)
        services.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus_dict()))
        sales = services.directory.principal("a.sales")
        queued = services.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
        return GeminiRun(services, services.worker.drain(queued.run_id), model, clock)

    yield resume
    for services in built:
        services.close()


def test_a_good_answer_becomes_a_draft_awaiting_approval(resume_with):
    result = resume_with("good")
    assert result.run.status == "succeeded"
    assert result.task().status == "awaiting_approval"
    assert (result.run.prompt_id, result.run.prompt_version) == ("enterprise-memory", "1.0.0")
    assert result.run.model == "gemini-2.5-flash"
    assert (result.run.model_calls, result.run.tokens_in, result.run.tokens_out) == (1, 1184, 96)
    assert result.run.cost_usd > 0
    claims = result.run.decision["claims"]
    assert claims[0]["text"] == "標準交期依 SOP-LEADTIME v2 為 15 日"
    assert claims[0]["evidence_ids"][0].startswith("SOP-LEADTIME@2:")
    [draft] = result.approvals()
    assert (draft.kind, draft.status, draft.decided_by) == ("draft", "pending", None)


def test_the_request_carries_the_registered_prompt_and_delimited_data(resume_with):
    result = resume_with("good")
    [request] = result.model.requests
    config = request["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert set(config["responseSchema"]["required"]) >= {"task_id", "claims", "status"}
    assert config["maxOutputTokens"] == result.services.settings.gemini_max_output_tokens
    assert "Analysis Agent" in request["systemInstruction"]["parts"][0]["text"]
    text = request["contents"][0]["parts"][0]["text"]
    block = text.split("<untrusted_data>", 1)[1].split("</untrusted_data>", 1)[0]
    assert "<" not in block and ">" not in block  # data cannot close its own block
    data = json.loads(block)
    assert data["schema_version"] == "memory-input@1"
    assert data["task"]["confirmed"] == {
        "material": "SUS304",
        "quantity": 1200,
        "special_inspection": True,
    }
    assert "tenant_id" not in data["task"]


@pytest.mark.parametrize(
    ("recording", "reason"),
    [
        ("invalid_json", "invalid_json"),
        ("max_tokens", "truncated"),
    ],
)
def test_an_unusable_answer_goes_to_human_review_unrepaired(resume_with, recording, reason):
    result = resume_with(recording)
    assert result.run.status == "failed"
    assert reason in result.run.error
    assert result.run.decision is None
    state = result.task()
    assert state.status == "blocked"
    assert state.next_step.startswith("human review")
    assert result.approvals() == []
    [call] = result.events("model_call")
    assert call.payload["status"] == "rejected" and call.payload["reason"] == reason


@pytest.mark.parametrize(
    ("recording", "evidence_id"),
    [
        ("cites_unretrieved", "SOP-LEADTIME@1:0-11"),
        ("cites_other_tenant", "B-PRICE@1:0-19"),
    ],
)
def test_citing_evidence_this_run_did_not_retrieve_fails_review(
    resume_with, recording, evidence_id
):
    result = resume_with(recording)
    assert result.run.status == "failed"
    reasons = result.run.review["reasons"]
    assert f"{evidence_id} was not retrieved in this run" in reasons
    assert any(r.startswith(f"{evidence_id} is not readable evidence now") for r in reasons)
    assert result.task().status == "blocked"
    assert result.approvals() == []
    assert result.run.decision["claims"][0]["evidence_ids"] == [evidence_id]  # kept as given


def test_rate_limit_and_overload_are_retried_with_backoff(resume_with):
    result = resume_with("error_429", "error_503", "good")
    assert result.run.status == "succeeded"
    assert result.run.attempts == 3
    assert result.clock.sleeps == [2.0, 4.0]
    retries = result.events("retry_scheduled")
    assert [e.payload["delay_s"] for e in retries] == [2.0, 4.0]
    assert retries[0].payload["reason"].startswith("model_http_429")
    assert retries[1].payload["reason"].startswith("model_http_503")
    assert result.task().status == "awaiting_approval"
    assert result.run.model_calls == 3


def test_three_failures_dead_letter_the_run_for_a_person(resume_with):
    result = resume_with("error_503", "error_429", "error_503")
    assert result.run.status == "dead_letter"
    assert result.run.attempts == 3
    assert "model_http_503" in result.run.error
    state = result.task()
    assert state.status == "failed"
    assert state.next_step.startswith("human takeover")
    assert len(result.events("dead_lettered")) == 1
    assert result.model.script == []  # never a fourth call
    assert result.approvals() == []


def test_the_optional_model_review_can_send_a_passing_draft_to_a_person(resume_with):
    flagged = resume_with("good", "review_flags_claim", model_review=True)
    assert flagged.run.status == "failed"
    assert any(r.startswith("model review: claim 2") for r in flagged.run.review["reasons"])
    assert flagged.task().status == "blocked"
    assert flagged.run.model_calls == 2


def test_a_clean_model_review_lets_the_draft_through(resume_with):
    result = resume_with("good", "review_ok", model_review=True)
    assert result.run.status == "succeeded"
    assert result.run.review["model_review"] == []
    assert result.run.model_calls == 2 and result.run.tokens_in == 1184 + 640


def test_the_model_never_sees_what_the_principal_may_not(resume_with):
    result = resume_with("good")
    data = request_input_from(result)
    refs = {(e["document_id"], e["version"]) for e in data["evidence"]}
    assert ("SOP-LEADTIME", 1) not in refs
    assert not {doc for doc, _ in refs} & {"B-PRICE", "DRAFT-INJECT"}


def request_input_from(result: GeminiRun) -> dict:
    class _Request:
        content = json.dumps(result.model.requests[0]).encode()

    return request_input(_Request())  # type: ignore[arg-type]


def test_structured_output_may_cite_only_the_spans_it_was_given(resume_with):
    result = resume_with("good")
    [request] = result.model.requests
    given = [item["evidence_id"] for item in request_input_of(request)["evidence"]]
    # the claims' evidence ids are an enum of exactly the spans in the memory input
    assert given and sorted(given) in enums(request["generationConfig"])
    assert result.run.status == "succeeded"


def enums(node) -> list[list[str]]:
    """Every enum in a response schema, sorted."""
    if isinstance(node, dict):
        found = [sorted(node["enum"])] if isinstance(node.get("enum"), list) else []
        return found + [e for value in node.values() for e in enums(value)]
    if isinstance(node, list):
        return [e for value in node for e in enums(value)]
    return []


def request_input_of(body: dict) -> dict:
    text = body["contents"][0]["parts"][0]["text"]
    return json.loads(text.split("<untrusted_data>\n", 1)[1].split("\n</untrusted_data>", 1)[0])
