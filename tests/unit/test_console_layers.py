"""Layers (docs/style.md §1): pages never reach SQL, Chroma or Gemini; services never reach
Streamlit; the import contracts in pyproject.toml hold."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONSOLE = [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py"))]
SERVICES = sorted((ROOT / "services").rglob("*.py"))


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", CONSOLE, ids=lambda p: p.name)
def test_console_files_never_import_storage_or_model_clients(path):
    forbidden = {"sqlalchemy", "chromadb", "google.genai", "google", "psycopg"}
    assert not {
        name for name in imported(path) if name.split(".")[0] in forbidden or name in forbidden
    }


def import_contracts() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [c["name"] for c in config["tool"]["importlinter"]["contracts"]]


@pytest.fixture(scope="module")
def lint_imports_report() -> str:
    # The layer order, acyclic packages and the page/service boundaries are import-linter
    # contracts (pyproject.toml); `make lint` runs them too, this keeps them in the suite.
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.stdout + done.stderr


@pytest.mark.parametrize("contract", import_contracts())
def test_import_contract_is_kept(contract, lint_imports_report):
    assert f"{contract} KEPT" in lint_imports_report, lint_imports_report[-3000:]


def test_there_is_no_pages_directory_for_streamlit_to_auto_discover():
    # A `pages/` folder beside app.py switches Streamlit to its v1 multipage mode on a process's
    # first run (and on every AppTest run): page files would run without app.py's login.
    assert not (ROOT / "pages").exists()


def private_imports_across_packages(path: Path) -> list[str]:
    """`from services.x.m import _name` in a module outside services.x: a private name reused."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("services"):
            if node.module.rsplit(".", 1)[0] == package:
                continue  # a package's own helpers, shared among its modules
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_services_import_no_private_name_from_another_package():
    found = {
        str(path.relative_to(ROOT)): names
        for path in SERVICES
        if (names := private_imports_across_packages(path))
    }
    assert found == {}
