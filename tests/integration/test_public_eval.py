"""`memdesk eval-public cmrc2018` on the committed 20-passage slice: one JSON object with every
key, sane values, no unreadable passage ever returned, and the same memdesk numbers that
`memdesk eval` gives on the converted files (it runs the same path)."""

from __future__ import annotations

import json
from pathlib import Path

from services.settings import Settings
from tests.integration.test_resume_q42_cli import memdesk

SLICE = Path(__file__).resolve().parents[2] / "data" / "cmrc2018" / "cmrc2018_dev_slice20.json"
RANKING = {"recall_at_5", "mrr_at_5"}
GOVERNED = RANKING | {"status_accuracy", "statuses"}
EVIDENCE = {
    "evidence_precision",
    "evidence_answer_at_1",
    "evidence_span_chars_p50",
    "evidence_span_chars_p95",
}


def test_public_eval_reports_memdesk_and_baselines_side_by_side(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedding_backend="use")
    converted = tmp_path / "converted"
    done = memdesk(
        settings,
        "eval-public",
        "cmrc2018",
        "--dataset",
        str(SLICE),
        "--questions",
        "20",
        "--write-dir",
        str(converted),
        "--json",
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert "eval-public: memdesk split: 20/20" in done.stderr  # progress goes to stderr

    assert set(report) == {
        "dataset",
        "questions",
        "passages",
        "k",
        "simplified",
        "split",
        "traditional",
        "misses",
        "timings_s",
    }
    assert (report["questions"], report["passages"], report["k"]) == (20, 20, 5)
    for block in ("simplified", "traditional"):
        assert set(report[block]) == {"memdesk", "bm25", "dense"}
        assert set(report[block]["bm25"]) == set(report[block]["dense"]) == RANKING
    assert set(report["simplified"]["memdesk"]) == GOVERNED | EVIDENCE
    assert set(report["traditional"]["memdesk"]) == GOVERNED

    # On 20 passages each question's own passage is easy to find for plain BM25 on the
    # questions as written; a broken converter (wrong passage marked relevant) drops this to ~0.05.
    assert report["simplified"]["bm25"]["recall_at_5"] >= 0.9
    assert report["simplified"]["dense"]["recall_at_5"] >= 0.8
    memdesk_simplified = report["simplified"]["memdesk"]
    assert memdesk_simplified["recall_at_5"] >= 0.9
    assert memdesk_simplified["evidence_span_chars_p50"] > 0
    assert (
        memdesk_simplified["evidence_span_chars_p50"]
        <= memdesk_simplified["evidence_span_chars_p95"]
    )
    for block in ("simplified", "traditional"):
        for metrics in report[block].values():
            for key in ("recall_at_5", "mrr_at_5", "status_accuracy", "evidence_precision"):
                if key in metrics:
                    assert 0.0 <= metrics[key] <= 1.0, (block, key, metrics)
        assert sum(report[block]["memdesk"]["statuses"].values()) == 20

    split = report["split"]
    assert (split["answerable"], split["unanswerable"]) == (10, 10)
    assert split["forbidden_hits"] == 0, report["misses"]["split_forbidden_hits"]
    assert sum(split["statuses_answerable"].values()) == 10
    assert sum(split["statuses_unanswerable"].values()) == 10
    assert 0.0 <= split["status_accuracy_answerable"] <= 1.0
    assert 0.0 <= split["status_accuracy_unanswerable"] <= 1.0

    # The converted files run under `memdesk eval` and give the same memdesk numbers.
    plain = memdesk(
        settings,
        "eval",
        "--corpus",
        str(converted / "cmrc2018-corpus.json"),
        "--golden",
        str(converted / "cmrc2018.golden.json"),
        "--json",
    )
    assert plain.exit_code == 0, plain.output
    evaluated = json.loads(plain.stdout)
    assert evaluated["cases"] == 20
    assert evaluated["recall_at_k"] == memdesk_simplified["recall_at_5"]
    assert round(evaluated["status_accuracy"], 4) == memdesk_simplified["status_accuracy"]
    assert evaluated["forbidden_hits"] == 0
    assert evaluated["citation_accuracy"] == 1.0
