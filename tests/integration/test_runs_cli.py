"""`memdesk worker`, `runs` and `approvals` from the command line, on SQLite and PostgreSQL:
runs queued by one process are executed by another that claims them from SQL."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import principal
from tests.support.scenario import SUPPLEMENT, load_scenario


def memdesk(settings, *args: str) -> subprocess.CompletedProcess[str]:
    """The console script in its own process: the worker here must be another process."""
    env = {
        **os.environ,
        "MEMDESK_HOME": str(settings.home),
        "MEMDESK_DATABASE_URL": settings.database_url,
        "MEMDESK_EMBEDDING_BACKEND": settings.embedding_backend,
        "MEMDESK_ANALYZER": "offline",
    }
    env.pop("MEMDESK_GEMINI_API_KEY", None)
    return subprocess.run(
        [str(Path(sys.executable).parent / "memdesk"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        timeout=300,
    )


def test_a_separate_worker_process_executes_queued_runs(services, settings, tmp_path):
    load_scenario(services, tmp_path)
    sales = principal(services, "a.sales")
    queued = services.runs.enqueue(sales, "Q42", supplement=SUPPLEMENT)
    worked = memdesk(settings, "worker", "--once")
    assert worked.returncode == 0, worked.stderr
    assert queued.run_id in worked.stdout
    # warmed up (model, segmenter, word lists, dictionary) before its first claim
    assert re.search(r"worker \S+ ready \(\d+\.\d s warm-up\)", worked.stderr)
    assert services.runs.get(sales, queued.run_id).status == "succeeded"
    assert services.tasks.get(sales, "Q42").state.status == "awaiting_approval"

    listed = json.loads(memdesk(settings, "runs", "list", "--as", "a.sales", "--json").stdout)
    assert [(r["run_id"], r["status"]) for r in listed] == [(queued.run_id, "succeeded")]
    shown = json.loads(
        memdesk(settings, "runs", "show", queued.run_id, "--as", "a.sales", "--json").stdout
    )
    hops = [
        (e["source_agent"], e["target_agent"]) for e in shown["events"] if e["kind"] == "handoff"
    ]
    assert hops[0] == ("supervisor", "analysis") and hops[-1] == ("supervisor", "human")
    assert memdesk(settings, "runs", "show", queued.run_id, "--as", "b.sales").returncode == 2

    pending = json.loads(
        memdesk(settings, "approvals", "list", "--as", "a.engineer", "--json").stdout
    )
    assert {item["required_role"] for item in pending} == {"engineer"}
    approved = memdesk(
        settings,
        "approvals",
        "approve",
        str(pending[0]["id"]),
        "--as",
        "a.engineer",
        "--comment",
        "checked",
        "--json",
    )
    assert approved.returncode == 0, approved.stderr
    assert json.loads(approved.stdout)["approval"]["decided_by"] == "a.engineer"


def test_cancel_from_the_cli_leaves_a_cancel_event(services, settings, tmp_path):
    load_scenario(services, tmp_path)
    sales = principal(services, "a.sales")
    queued = services.runs.enqueue(sales, "Q42")
    done = memdesk(
        settings,
        "runs",
        "cancel",
        queued.run_id,
        "--as",
        "a.sales",
        "--reason",
        "customer withdrew",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "cancelled"
    kinds = [e.kind for e in services.runs.events(sales, queued.run_id)]
    assert "cancel_requested" in kinds
    assert memdesk(settings, "worker", "--once").returncode == 0
    assert services.runs.get(sales, queued.run_id).status == "cancelled"
