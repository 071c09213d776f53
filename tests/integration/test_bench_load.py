"""`memdesk bench load` on a small instance: PostgreSQL + a loopback Chroma server + 2 worker
processes, then the embedded default; every invariant is measured on the stored data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.postgres, pytest.mark.chroma_server, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
INVARIANTS = ("lost_updates", "duplicate_approvals", "forbidden_evidence")


def test_bench_load_reports_every_run_settled_and_no_invariant_broken(tmp_path):
    env = {**os.environ, "MEMDESK_EMBEDDING_BACKEND": "hashing", "MEMDESK_HOME": str(tmp_path)}
    env.pop("MEMDESK_GEMINI_API_KEY", None)
    small = ["--tasks", "20", "--tenants", "2", "--workers", "2"]
    done = subprocess.run(
        [str(Path(sys.executable).with_name("memdesk")), "bench", "load", "--json", *small],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.strip().splitlines()  # one JSON object
    report = json.loads(line)
    for mode, workers in ((report, 2), (report["embedded"], 1)):
        assert mode["workers"] == workers and mode["tenants"] == 2
        assert mode["runs_total"] == mode["runs_terminal"] == 20
        assert mode["runs_by_status"] == {"succeeded": 20}
        assert sum(mode["claims_per_worker"]) >= 20 and len(mode["claims_per_worker"]) <= workers
        assert mode["throughput_runs_per_s"] > 0
        assert 0 < mode["run_latency_ms_p50"] <= mode["run_latency_ms_p95"]
        assert {name: mode[name] for name in INVARIANTS} == dict.fromkeys(INVARIANTS, 0)
        assert {n: c["violations"] for n, c in mode["checks"].items() if c["violations"]} == {}
        assert mode["evidence_checked"] > 0 and mode["checks"]["audit_complete"]["checked"] > 0
        # Every demo task kind ran once per tenant: drafts for approval and questions for people.
        assert {"awaiting_approval", "waiting_input"} <= set(mode["tasks_after_runs"])
        # Two people approved every item at once; each was decided exactly once (checked above).
        assert sum(mode["approval_decide_calls"].values()) == 2 * mode["approval_items"] > 0
        # Memory generation ran inside the runs, cost reported, nothing failed or left owed.
        memory = mode["memory_generation"]
        assert memory["attempts_with_generation"] > 0 and memory["generations"] > 0
        assert (memory["failed"], memory["offers_still_owed"]) == (0, 0)
        assert memory["ms_p50"] is not None and memory["ms_per_run"] > 0
    assert not list(tmp_path.iterdir())  # the user's MEMDESK_HOME was never touched
