"""`memdesk eval` runs `task` cases through the agents' runner and reports their metrics."""

from __future__ import annotations

import json
from pathlib import Path

from services.settings import Settings
from tests.integration.test_resume_q42_cli import memdesk

DATA = Path(__file__).resolve().parents[2] / "data"
REPORTED = {"q42-resume", "q43-anodize-conflict", "q47-titanium-missing", "b-q7-own-lead-time"}


def test_eval_reports_task_metrics_for_task_cases(tmp_path):
    # `memdesk eval` always works in a fresh SQLite store of its own, with the real embedder.
    settings = Settings(
        home=tmp_path / "home",
        database_url=f"sqlite:///{tmp_path / 'x.db'}",
        embedding_backend="use",
    )
    golden = json.loads((DATA / "memory-demo.golden.json").read_text(encoding="utf-8"))
    # Every task case's own outcome is proven in test_demo_task_cases.py (one store, each case
    # once); here eval's reporting path needs one case per expected status and per tenant kind.
    golden["cases"] = [case for case in golden["cases"] if case["case_id"] in REPORTED]
    path = tmp_path / "tasks.golden.json"
    path.write_text(json.dumps(golden, ensure_ascii=False), encoding="utf-8")
    done = memdesk(
        settings,
        "eval",
        "--corpus",
        str(DATA / "demo-corpus.json"),
        "--golden",
        str(path),
        "--json",
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["cases"] == len(golden["cases"]) == len(REPORTED)
    assert {case["expect_status"] for case in golden["cases"]} == {
        "ready_for_review",
        "source_conflict",
        "insufficient_evidence",
    }
    assert report["status_accuracy"] == 1.0, report["failures"]
    assert report["reasked_confirmed"] == 0
    assert report["citation_accuracy"] == 1.0
    assert report["forbidden_hits"] == 0
    assert report["model_calls"] == 0 and report["tokens"] == 0  # offline analyzer
    assert report["human_intervention_rate"] == 0.0
    assert report["failures"] == []
