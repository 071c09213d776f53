"""A data directory this process cannot write: every read works, every write exits 2 naming the
problem, and the store is left exactly as it was.

Tests run as root, and root writes anywhere, so the CLI runs without any capability (no
CAP_DAC_OVERRIDE, `noroot` locked: what an unprivileged user would get; `setpriv`), against a
store whose files and directories have their write bits removed. The first check is that the
sandbox really denies a write, so the rest cannot pass by accident.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.corpus import write_corpus
from tests.support.scenario import scenario_corpus

ROOT = Path(__file__).resolve().parents[2]
MEMDESK = str(Path(sys.executable).parent / "memdesk")
# Whatever the user id, the process has no capability and cannot regain one on exec.
NO_CAPABILITIES = [
    "setpriv",
    "--securebits=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked",
    "--bounding-set=-all",
    "--inh-caps=-all",
    "--ambient-caps=-all",
    "--",
]


def run(home: Path, scratch: Path, *args: str, privileged: bool = True):
    env = {
        **os.environ,
        "MEMDESK_HOME": str(home),
        "MEMDESK_EMBEDDING_BACKEND": "hashing",
        "MEMDESK_ANALYZER": "offline",
        "TMPDIR": str(scratch),
    }
    env.pop("MEMDESK_DATABASE_URL", None)
    command = list(args) if args[0] != "memdesk" else [MEMDESK, *args[1:]]
    return subprocess.run(
        command if privileged else [*NO_CAPABILITIES, *command],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


def set_writable(path: Path, writable: bool) -> None:
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files, "."]:
            target = Path(root) / name
            mode = target.stat().st_mode
            target.chmod(mode | 0o200 if writable else mode & ~0o222)


def fingerprint(path: Path) -> dict[str, str]:
    return {
        str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A store with the Q42 scenario and its embedded index, then made read-only (shared by the
    module: every test below checks that it left the store exactly as it found it)."""
    tmp_path = tmp_path_factory.mktemp("read-only")
    home, scratch = tmp_path / "home", tmp_path / "scratch"
    scratch.mkdir()
    corpus = write_corpus(tmp_path / "scenario.json", scenario_corpus())
    for args in (("memdesk", "init"), ("memdesk", "import", str(corpus))):
        done = run(home, scratch, *args)
        assert done.returncode == 0, done.stderr
    set_writable(home, False)
    yield home, scratch
    set_writable(home, True)


def test_the_sandbox_really_denies_writes(store):
    home, scratch = store
    denied = run(home, scratch, "touch", str(home / "probe"), privileged=False)
    assert denied.returncode != 0 and "Permission denied" in denied.stderr
    assert not (home / "probe").exists()
    allowed = run(home, scratch, "touch", str(scratch / "probe"), privileged=False)
    assert allowed.returncode == 0, allowed.stderr  # the sandbox itself works
    (scratch / "probe").unlink()


@pytest.mark.parametrize(
    ("args", "shows"),
    [
        (("task", "show", "--as", "a.sales", "Q42", "--json"), '"task_id": "Q42"'),
        (("audit", "verify"), "every link verifies"),
        (("approvals", "list", "--as", "a.sales"), ""),
        (("runs", "list", "--as", "a.sales"), ""),
        (("users", "list"), "a.sales (tenant A)"),
        (("index", "health"), "ok"),
        (("purge-expired", "--dry-run"), "would remove 0 task(s)"),
    ],
)
def test_reads_work_on_a_read_only_store(store, args, shows):
    home, scratch = store
    before = fingerprint(home)
    done = run(home, scratch, "memdesk", *args, privileged=False)
    assert done.returncode == 0, done.stderr
    assert shows in done.stdout
    assert fingerprint(home) == before  # not a byte written, no journal file left
    assert list(scratch.iterdir()) == []  # an index copy is removed when the store closes


@pytest.mark.parametrize(
    "args",
    [
        ("import", "{corpus}"),
        ("resume", "--as", "a.sales", "Q42", "--supplement", "客戶確認需要特殊檢驗"),
        ("retrieve", "--as", "a.sales", "標準交期是幾天"),  # every retrieval is audited
        ("purge-expired",),
        ("index", "sync"),
        ("migrate",),
    ],
)
def test_a_write_exits_2_naming_the_read_only_file(store, tmp_path, args):
    home, scratch = store
    corpus = write_corpus(tmp_path / "more.json", scenario_corpus())
    args = tuple(str(corpus) if a == "{corpus}" else a for a in args)
    before = fingerprint(home)
    done = run(home, scratch, "memdesk", *args, privileged=False)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith(
        f"error: the database is read-only: nothing was written ({home / 'memdesk.db'} "
        "cannot be written by this process; reads work)"
    ), done.stderr
    assert "Traceback" not in done.stderr and "OperationalError" not in done.stderr
    assert fingerprint(home) == before


def test_the_store_works_as_before_once_writable_again(store, tmp_path):
    home, scratch = tmp_path / "home", tmp_path
    shutil.copytree(store[0], home)  # a copy: the shared store stays read-only
    set_writable(home, True)
    done = run(home, scratch, "memdesk", "task", "show", "--as", "a.sales", "Q42", "--json")
    assert done.returncode == 0
    revision = json.loads(done.stdout)["revision"]
    resumed = run(
        home, scratch, "memdesk", "resume", "--as", "a.sales", "Q42", "--supplement", "請接著處理。"
    )
    assert resumed.returncode == 0, resumed.stderr
    done = run(home, scratch, "memdesk", "task", "show", "--as", "a.sales", "Q42", "--json")
    assert json.loads(done.stdout)["revision"] > revision
