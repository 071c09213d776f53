"""`memdesk retrieve` and `memdesk resume` with MEMDESK_GEMINI_API_KEY set: Gemini reads the
spans and drafts, every call answered by a recorded response through the real SDK (the one
client factory, services.llm.gemini.build_client, hands out a client on a recorded transport).
The review gate is the same: a claim citing a span that was never retrieved — so never given to
the reader or the drafter — and does not resolve is refused, and the task waits for a person."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from services import bootstrap
from services.cli.main import app
from services.llm import gemini
from services.settings import Settings
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.gemini import RecordedGemini

READER = "gemini:gemini-2.5-flash span-reader@1.0.0"
SUPPLEMENT = "客戶確認需要特殊檢驗，請接著處理。"
READING_TOKENS = 1036 + 88  # tests/fixtures/gemini/reading_leadtime_answers.json
RETRIEVE_KEYS = {"status", "evidence", "conflicts", "missing", "reader", "model_calls", "tokens"}


@pytest.fixture
def memdesk(
    tmp_path: Path, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Result]:
    """`memdesk ARGS` in-process, with a Gemini key, every model call answered by `model`."""
    env = {
        "MEMDESK_HOME": str(tmp_path / "home"),
        "MEMDESK_DATABASE_URL": sqlite_url,
        "MEMDESK_EMBEDDING_BACKEND": "hashing",
        "MEMDESK_GEMINI_API_KEY": "test-key",
        "MEMDESK_ANALYZER": None,  # auto: Gemini, since a key is set
        "MEMDESK_SPAN_READER": None,  # auto: Gemini, since a key is set
        "MEMDESK_MEMORY_EXTRACTOR": "offline",  # the Memory Bank's model calls are not shown here
    }
    corpus = write_corpus(tmp_path / "corpus.json", corpus_dict())

    def run(model: RecordedGemini, *args: str) -> Result:
        monkeypatch.setattr(gemini, "build_client", lambda **_: model.client)
        imported = CliRunner().invoke(app, ["import", str(corpus)], env=env)
        assert imported.exit_code == 0, imported.output
        return CliRunner().invoke(app, list(args), env=env)

    return run


@pytest.fixture
def store(tmp_path: Path, sqlite_url: str) -> Iterator[bootstrap.Services]:
    """The same store, opened offline, to read what the CLI left behind."""
    settings = Settings(
        home=tmp_path / "home", database_url=sqlite_url, embedding_backend="hashing"
    )
    services = bootstrap.build(settings.model_copy(update={"analyzer": "offline"}))
    yield services
    services.close()


def test_retrieve_json_shows_who_read_the_spans_and_keeps_every_key(memdesk) -> None:
    model = RecordedGemini("reading_leadtime_answers")
    done = memdesk(
        model, "retrieve", "--as", "a.sales", "幾天可以出貨", "--as-of", "2026-11-29", "--json"
    )
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert set(payload) == RETRIEVE_KEYS
    assert payload["status"] == "ok"
    assert (payload["reader"], payload["model_calls"], payload["tokens"]) == (
        READER,
        1,
        READING_TOKENS,
    )
    sent = {s["evidence_id"] for s in json.loads(_data(model.requests[0]))["spans"]}
    assert {e["evidence_id"] for e in payload["evidence"]} == sent


def test_retrieve_json_says_when_the_reader_fell_back(memdesk) -> None:
    done = memdesk(
        RecordedGemini("error_429"),
        "retrieve",
        "--as",
        "a.sales",
        "幾天可以出貨",
        "--as-of",
        "2026-11-29",
        "--json",
    )
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert payload["status"] == "insufficient_evidence"  # the offline judgement
    assert payload["reader"].startswith("offline (gemini:gemini-2.5-flash unavailable: ")
    assert payload["model_calls"] == 1


def resume(memdesk, model: RecordedGemini) -> dict:
    done = memdesk(
        model,
        "resume",
        "--as",
        "a.sales",
        "Q42",
        "--supplement",
        SUPPLEMENT,
        "--as-of",
        "2026-11-29",
        "--json",
    )
    assert done.exit_code == 0, done.output
    return dict(json.loads(done.stdout))


def test_resume_reads_and_drafts_through_gemini_and_counts_every_call(memdesk, store) -> None:
    model = RecordedGemini("good", reading="reading_leadtime_answers")
    resumed = resume(memdesk, model)
    assert resumed["state"]["status"] == "awaiting_approval"
    assert resumed["run"]["review_passed"] is True
    readings = len(model.reading_requests)
    assert readings >= 1 and len(model.requests) == 1  # one reading per query, one draft
    run = resumed["run"]
    assert run["model_calls"] == readings + 1
    assert run["tokens_in"] + run["tokens_out"] == readings * READING_TOKENS + 1184 + 96
    sales = store.directory.principal("a.sales")
    events = [e for e in store.runs.events(sales, resumed["run_id"]) if e.kind == "retrieval"]
    read = [e for e in events if e.payload["reader"] == READER]
    assert len(read) == readings and all(e.payload["model_calls"] == 1 for e in read)
    kinds = {e.kind for e in store.runs.events(sales, resumed["run_id"])}
    assert "memory_generation_failed" not in kinds  # no model call went unanswered


def test_review_still_refuses_a_claim_citing_a_span_nobody_was_given(memdesk) -> None:
    model = RecordedGemini("cites_unretrieved", reading="reading_leadtime_answers")
    resumed = resume(memdesk, model)
    cited = "SOP-LEADTIME@1:0-11"  # the superseded version: never retrieved, does not resolve
    assert resumed["state"]["status"] == "blocked"
    reasons = resumed["run"]["review_reasons"]
    assert f"{cited} was not retrieved in this run" in reasons
    assert any(r.startswith(f"{cited} is not readable evidence now") for r in reasons)
    read = {s["evidence_id"] for r in model.reading_requests for s in _spans(r)}
    drafted = {e["evidence_id"] for e in json.loads(_data(model.requests[0]))["evidence"]}
    assert model.reading_requests and cited not in read | drafted


def _data(request: dict) -> str:
    text = request["contents"][0]["parts"][0]["text"]
    return str(text.split("<untrusted_data>\n", 1)[1].split("\n</untrusted_data>", 1)[0])


def _spans(request: dict) -> list[dict]:
    return list(json.loads(_data(request))["spans"])


def test_eval_counts_the_readings_of_retrieval_cases(memdesk, tmp_path: Path) -> None:
    golden = tmp_path / "golden.json"
    cases = [
        {"case_id": f"lead-time-{n}", "kind": "retrieval", "user_id": "a.sales", "query": query}
        for n, query in enumerate(["幾天可以出貨", "標準交期是幾天"])
    ]
    golden.write_text(
        json.dumps(
            {
                "schema_version": "golden@1",
                "dataset_id": "reading@1",
                "as_of": "2026-11-29",
                "cases": [{**case, "relevant": ["SOP-LEADTIME@2"]} for case in cases],
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    model = RecordedGemini(reading="reading_leadtime_answers")
    corpus = str(tmp_path / "corpus.json")
    done = memdesk(model, "eval", "--corpus", corpus, "--golden", str(golden), "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert (report["model_calls"], report["tokens"]) == (2, 2 * READING_TOKENS)
    assert len(model.reading_requests) == 2
    assert report["status_accuracy"] == 1.0
