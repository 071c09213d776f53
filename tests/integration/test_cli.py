"""The memdesk CLI against a temporary MEMDESK_HOME / database: output, exit codes, isolation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from services import bootstrap
from services.cli.main import app
from services.contracts import json_schema
from services.contracts.task_state import TaskStatus
from services.core.clock import FakeClock
from services.settings import Settings
from tests.conftest import principal
from tests.support.corpus import corpus_dict, write_corpus

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str]:
    """What the CLI sees: every setting from MEMDESK_* variables."""
    return {
        "MEMDESK_HOME": str(tmp_path / "home"),
        "MEMDESK_DATABASE_URL": database_url,
        "MEMDESK_EMBEDDING_BACKEND": "hashing",
    }


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus.json", corpus_dict())


def memdesk(env: dict[str, str | None], *args: str):
    return CliRunner().invoke(app, list(args), env=env)


@pytest.fixture
def imported(env, corpus_file) -> dict[str, str]:
    result = memdesk(env, "import", str(corpus_file))
    assert result.exit_code == 0, result.output
    return env


def test_init_runs_the_migrations(env):
    result = memdesk(env, "init")
    assert result.exit_code == 0, result.output
    assert "initialised" in result.stdout


def test_import_reports_what_it_created_then_that_nothing_changed(env, corpus_file):
    first = memdesk(env, "import", str(corpus_file), "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["created"] == {
        "tenants": 2,
        "users": 6,
        "documents": 6,
        "tasks": 1,
    }
    again = memdesk(env, "import", str(corpus_file), "--json")
    assert again.exit_code == 0
    report = json.loads(again.stdout)
    assert (report["created"], report["updated"]) == ({}, {})


def test_import_of_a_bad_file_exits_2_naming_the_record(env, tmp_path):
    corpus = corpus_dict()
    corpus["documents"][1]["acl"] = []
    result = memdesk(env, "import", str(write_corpus(tmp_path / "bad.json", corpus)))
    assert result.exit_code == 2
    assert "documents[1] (SOP-LEADTIME@2).acl" in result.stderr


def test_import_of_a_missing_file_exits_2(env, tmp_path):
    result = memdesk(env, "import", str(tmp_path / "nope.json"))
    assert result.exit_code == 2
    assert "nope.json" in result.stderr


def test_task_show_prints_the_restored_state(imported):
    result = memdesk(imported, "task", "show", "--as", "a.sales", "Q42")
    assert result.exit_code == 0, result.output
    assert "task Q42 (tenant A) revision 1: waiting_input" in result.stdout
    assert "material = 'SUS304'" in result.stdout
    assert "pending: special_inspection" in result.stdout


def test_task_show_json_is_task_state_v1(imported, database_url, tmp_path):
    result = memdesk(imported, "task", "show", "--as", "a.sales", "Q42", "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    jsonschema.validate(printed, json_schema("task-state@1"))
    services = bootstrap.build(Settings(home=tmp_path / "home", database_url=database_url))
    try:
        state = services.tasks.get(principal(services, "a.sales"), "Q42").state
    finally:
        services.close()
    assert printed == state.model_dump(mode="json")
    assert printed["schema_version"] == "task-state@1"


def test_another_tenants_task_looks_exactly_like_a_missing_one(imported):
    hidden = memdesk(imported, "task", "show", "--as", "b.sales", "Q42")
    missing = memdesk(imported, "task", "show", "--as", "b.sales", "Q99")
    assert (hidden.exit_code, missing.exit_code) == (2, 2)
    assert hidden.stdout == missing.stdout == ""
    assert hidden.stderr == "error: task not found: Q42\n"
    assert missing.stderr == "error: task not found: Q99\n"


def test_an_unknown_user_exits_2(imported):
    result = memdesk(imported, "task", "show", "--as", "nobody", "Q42")
    assert result.exit_code == 2
    assert result.stderr == "error: user not found: nobody\n"


def test_purge_expired_dry_run_then_for_real(imported, database_url, tmp_path):
    # Complete a task long ago (the CLI itself runs on the real clock).
    long_ago = FakeClock()
    long_ago.advance(days=-1000)
    services = bootstrap.build(
        Settings(home=tmp_path / "home", database_url=database_url), clock=long_ago
    )
    try:
        sales = principal(services, "a.sales")
        services.tasks.create(sales, task_id="OLD", status=TaskStatus.awaiting_approval)
        services.tasks.update(sales, "OLD", expected_revision=1, status=TaskStatus.completed)
        assert services.tasks.get(sales, "OLD").expires_at < long_ago.now() + timedelta(days=365)
    finally:
        services.close()

    dry = memdesk(imported, "purge-expired", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "would remove" in dry.stdout and "1 task(s)" in dry.stdout
    assert memdesk(imported, "task", "show", "--as", "a.sales", "OLD").exit_code == 0

    real = memdesk(imported, "purge-expired")
    assert real.exit_code == 0, real.output
    assert "removed" in real.stdout and "1 task(s)" in real.stdout
    assert memdesk(imported, "task", "show", "--as", "a.sales", "OLD").exit_code == 2
    assert memdesk(imported, "task", "show", "--as", "a.sales", "Q42").exit_code == 0
    assert "0 task(s)" in memdesk(imported, "purge-expired").stdout


def test_two_homes_never_mix(tmp_path, corpus_file):
    """SQLite only: MEMDESK_HOME alone decides where the data lives."""
    only_home = {"MEMDESK_DATABASE_URL": None, "MEMDESK_EMBEDDING_BACKEND": "hashing"}
    first = {**only_home, "MEMDESK_HOME": str(tmp_path / "one")}
    second = {**only_home, "MEMDESK_HOME": str(tmp_path / "two")}
    assert memdesk(first, "import", str(corpus_file)).exit_code == 0
    assert memdesk(second, "init").exit_code == 0
    assert (tmp_path / "one" / "memdesk.db").exists()
    assert (tmp_path / "two" / "memdesk.db").exists()
    assert memdesk(first, "task", "show", "--as", "a.sales", "Q42").exit_code == 0
    other = memdesk(second, "task", "show", "--as", "a.sales", "Q42")
    assert (other.exit_code, other.stderr) == (2, "error: user not found: a.sales\n")


def run_console_script(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The real entry point in a fresh interpreter, as a user would call it."""
    return subprocess.run(
        [sys.executable, "-c", "from services.cli.main import main; main()", *args],
        env={**os.environ, **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# Three fresh interpreters: what is tested is the process's exit code, not the backend (the
# commands' behaviour on PostgreSQL is covered in-process above), so SQLite only.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_console_script_exit_codes(imported):
    assert run_console_script(imported, "task", "show", "--as", "a.sales", "Q42").returncode == 0
    assert run_console_script(imported, "task", "show", "--as", "b.sales", "Q42").returncode == 2
    broken = {**imported, "MEMDESK_DATABASE_URL": "postgresql://postgres@127.0.0.1:1/none"}
    failed = run_console_script(broken, "task", "show", "--as", "a.sales", "Q42")
    assert failed.returncode == 1
    assert failed.stderr.startswith("error: OperationalError")


def test_seed_demo_loads_the_demo_corpus_once(env):
    first = memdesk(env, "seed-demo", "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["created"]["tenants"] == 3
    again = memdesk(env, "seed-demo", "--json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert (report["created"], report["updated"]) == ({}, {})
    shown = memdesk(env, "task", "show", "--as", "a.sales", "Q42", "--json")
    assert json.loads(shown.stdout)["confirmed"]["material"] == "SUS304"
