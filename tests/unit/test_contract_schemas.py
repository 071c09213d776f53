"""Committed JSON Schemas equal a fresh export, and the data files validate against them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from services.contracts import CONTRACTS, export_schemas
from tests.support.corpus import corpus_dict

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "data" / "schemas"


def test_committed_schemas_equal_a_fresh_export(tmp_path: Path):
    fresh = {path.name: path.read_text(encoding="utf-8") for path in export_schemas(tmp_path)}
    committed = {
        path.name: path.read_text(encoding="utf-8") for path in COMMITTED.glob("*.schema.json")
    }
    assert len(fresh) == len(CONTRACTS)
    assert committed == fresh, "run `memdesk schemas export` and commit data/schemas"


@pytest.mark.parametrize("path", sorted(COMMITTED.glob("*.schema.json")), ids=lambda p: p.name)
def test_every_exported_schema_is_a_valid_draft_2020_12_schema(path: Path):
    jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))


def instances() -> list[tuple[str, dict[str, Any]]]:
    """Every JSON file under data/ that names a contract, plus the corpus the tests build."""
    found = [("tests/support/corpus.py", corpus_dict())]
    for path in sorted((REPO / "data").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("schema_version") in CONTRACTS:
            found.append((f"data/{path.name}", data))
    return found


@pytest.mark.parametrize(
    ("name", "instance"), instances(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_data_files_validate_against_the_exported_schema(name: str, instance: dict[str, Any]):
    schema_file = COMMITTED / f"{instance['schema_version'].replace('@', '-v')}.schema.json"
    contract = json.loads(schema_file.read_text(encoding="utf-8"))
    errors = [e.message for e in jsonschema.Draft202012Validator(contract).iter_errors(instance)]
    assert errors == [], name
