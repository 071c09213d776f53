"""Malformed corpus files: one clear error naming the record and field, exit 2, nothing written."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from services.core.errors import InvalidInput
from tests.support.corpus import corpus_dict, doc, import_bytes
from tests.support.snapshot import database_digest

NEW = "SOP-NEW"  # the record each case breaks; a valid sibling (SOP-FRESH) rides along


def corpus_bytes(mutate: Callable[[dict[str, Any]], None]) -> bytes:
    corpus = corpus_dict()
    corpus["documents"] += [
        doc("SOP-FRESH", 1, body="新文件：檢驗流程三步驟"),
        doc(NEW, 1, body="新文件：包裝規範"),
    ]
    mutate(corpus)
    return json.dumps(corpus, ensure_ascii=False).encode("utf-8")


def new_doc(corpus: dict[str, Any]) -> dict[str, Any]:
    return next(d for d in corpus["documents"] if d["document_id"] == NEW)


def set_new(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda corpus: new_doc(corpus).update(fields)


def drop_new(field: str) -> Callable[[dict[str, Any]], None]:
    return lambda corpus: new_doc(corpus).pop(field)


def duplicate_new(corpus: dict[str, Any]) -> None:
    corpus["documents"].append(copy.deepcopy(new_doc(corpus)))


def invalid_utf8() -> bytes:
    raw = corpus_bytes(lambda _c: None)
    return raw.replace("包裝規範".encode(), b"\xff\xfe broken")


def invalid_json() -> bytes:
    return corpus_bytes(lambda _c: None)[:-40]


TEN_MB = 10 * 1024 * 1024


def task(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda corpus: corpus["tasks"][0].update(fields)


def user(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda corpus: corpus["users"][0].update(fields)


def nested(depth: int) -> Any:
    value: Any = "SUS304"
    for _ in range(depth):
        value = [value]
    return value


def duplicate_key() -> bytes:
    """`"version": 1` given twice in one object; JSON readers silently keep one of them."""
    raw = corpus_bytes(lambda _c: None).decode("utf-8")
    head, sep, tail = raw.rpartition(f'"document_id": "{NEW}", "version": 1')
    return (head + sep + ', "version": 2' + tail).encode("utf-8")


def deeply_nested_json() -> bytes:
    raw = corpus_bytes(lambda _c: None).decode("utf-8")
    return raw.replace(
        '"schema_version"', '"deep": ' + "[" * 200_000 + "]" * 200_000 + ', "schema_version"'
    ).encode()


# (case, file bytes, words the single problem must contain: the record and the field)
CASES: list[tuple[str, Callable[[], bytes], list[str]]] = [
    (
        "wrong schema_version",
        lambda: corpus_bytes(lambda c: c.update(schema_version="corpus@2")),
        ["schema_version", "corpus@2"],
    ),
    ("missing ACL", lambda: corpus_bytes(drop_new("acl")), [f"{NEW}@1", "acl"]),
    ("empty ACL", lambda: corpus_bytes(set_new(acl=[])), [f"{NEW}@1", "acl"]),
    ("bad ACL entry", lambda: corpus_bytes(set_new(acl=["everyone"])), [f"{NEW}@1", "everyone"]),
    (
        "duplicate document version",
        lambda: corpus_bytes(duplicate_new),
        [f"{NEW}@1", "duplicate", "documents[7]", "documents[8]"],
    ),
    (
        "unknown tenant",
        lambda: corpus_bytes(set_new(tenant_id="Z")),
        [f"{NEW}@1", "tenant_id", "'Z'"],
    ),
    (
        "non-ISO date",
        lambda: corpus_bytes(set_new(valid_from="01/02/2026")),
        [f"{NEW}@1", "valid_from", "YYYY-MM-DD"],
    ),
    (
        "ISO week date is not a calendar date",
        lambda: corpus_bytes(set_new(valid_from="2026-W01-1")),
        [f"{NEW}@1", "valid_from", "YYYY-MM-DD"],
    ),
    (
        "valid_to before valid_from",
        lambda: corpus_bytes(set_new(valid_from="2026-06-01", valid_to="2026-05-01")),
        [f"{NEW}@1", "valid_to"],
    ),
    (
        "10 MB body",
        lambda: corpus_bytes(set_new(body="長" * TEN_MB)),
        [f"{NEW}@1", "body", "limit"],
    ),
    ("invalid UTF-8", invalid_utf8, ["UTF-8", "line 1"]),
    ("invalid JSON", invalid_json, ["not valid JSON", "line 1"]),
    (
        "version number as a string",
        lambda: corpus_bytes(set_new(version="1")),
        [f"{NEW}@1", "version"],
    ),
    (
        "re-import of an existing version with a different body",
        lambda: corpus_bytes(
            lambda c: c["documents"][1].update(body="新版：標準交期 12 日（被改過）")
        ),
        ["SOP-LEADTIME@2", "body", "immutable"],
    ),
]

# Ids (services/contracts/ids.py), values a database cannot hold, ambiguous JSON: the
# service refuses each on both backends; the CLI maps that refusal to exit 2 (a few run there).
STRICT: list[tuple[str, Callable[[], bytes], list[str]]] = [
    (
        "zero-width space inside a document id",
        lambda: corpus_bytes(set_new(document_id="SOP-LEAD\u200bTIME")),
        ["documents[7]", "document_id", "U+200B"],
    ),
    (
        "bidi override inside a task id",
        lambda: corpus_bytes(task(task_id="Q42\u202e")),
        ["tasks[0]", "task_id", "U+202E"],
    ),
    (
        "whitespace-only user id",
        lambda: corpus_bytes(user(user_id="   ")),
        ["users[0]", "user_id", "U+0020"],
    ),
    (
        "the chunk-id separator inside a tenant id",
        lambda: corpus_bytes(lambda c: c["tenants"].append({"tenant_id": "A/B", "name": "AB"})),
        ["tenants[2]", "tenant_id", "U+002F"],
    ),
    (
        "the evidence-id separator inside a document id",
        lambda: corpus_bytes(set_new(document_id="SOP-NEW@2")),
        ["documents[7]", "document_id", "U+0040"],
    ),
    (
        "NUL inside a document id",
        lambda: corpus_bytes(set_new(document_id="SOP\x00NEW")),
        ["documents[7]", "document_id", "U+0000"],
    ),
    (
        "a zero-width space inside an ACL's customer id",
        lambda: corpus_bytes(set_new(acl=["customer:C-AC\u200bME"])),
        [f"{NEW}@1", "acl", "U+200B"],
    ),
    (
        "a role as a grant",
        lambda: corpus_bytes(user(grants=["role:admin"])),
        ["users[0]", "grants", "customer:C-ACME"],
    ),
    (
        "tenant as a grant",
        lambda: corpus_bytes(user(grants=["tenant"])),
        ["users[0]", "grants", "customer:C-ACME"],
    ),
    (
        "a customer grant with a space",
        lambda: corpus_bytes(user(grants=["customer:C ACME"])),
        ["users[0]", "grants", "U+0020"],
    ),
    # Values the database cannot hold, and JSON that reads ambiguously.
    (
        "huge version number",
        lambda: corpus_bytes(set_new(version=10**30)),
        ["documents[7]", "version", "2147483647"],
    ),
    (
        "huge task revision",
        lambda: corpus_bytes(task(revision=2**40)),
        ["tasks[0]", "revision", "2147483647"],
    ),
    (
        "NUL in a title",
        lambda: corpus_bytes(set_new(title="包裝\x00規範")),
        [f"{NEW}@1", "title", "NUL"],
    ),
    (
        "NUL in a body",
        lambda: corpus_bytes(set_new(body="包裝\x00規範")),
        [f"{NEW}@1", "body", "NUL"],
    ),
    (
        "title over the documented length",
        lambda: corpus_bytes(set_new(title="長" * 501)),
        [f"{NEW}@1", "title", "500"],
    ),
    (
        "task values nested too deeply",
        lambda: corpus_bytes(task(confirmed={"material": nested(40)})),
        ["tasks[0]", "confirmed", "nested"],
    ),
    ("JSON nested too deeply to read", deeply_nested_json, ["nested too deeply"]),
    (
        "a key given twice in one object",
        duplicate_key,
        ["documents[7]", "'version'", "more than once"],
    ),
]


@pytest.mark.parametrize(
    ("case", "make_bytes", "words"), CASES + STRICT, ids=[c[0] for c in CASES + STRICT]
)
def test_malformed_file_gives_one_named_error_and_changes_nothing(loaded, case, make_bytes, words):
    before = database_digest(loaded.db.engine)
    with pytest.raises(InvalidInput) as refused:
        import_bytes(loaded.importer, make_bytes(), source="bad.json", actor="test")
    assert len(refused.value.problems) == 1, refused.value.problems
    problem = refused.value.problems[0]
    for word in words:
        assert word in problem, f"{case}: {word!r} not in {problem!r}"
    assert database_digest(loaded.db.engine) == before


CLI_STRICT = [
    c
    for c in STRICT
    if c[0]
    in {
        "zero-width space inside a document id",
        "huge version number",
        "a key given twice in one object",
        "NUL in a title",
    }
]


@pytest.mark.parametrize(
    ("case", "make_bytes", "words"), CASES + CLI_STRICT, ids=[c[0] for c in CASES + CLI_STRICT]
)
def test_cli_import_of_a_malformed_file_exits_2_naming_the_record(
    loaded, database_url, tmp_path, case, make_bytes, words
):
    path = tmp_path / "bad.json"
    path.write_bytes(make_bytes())
    before = database_digest(loaded.db.engine)
    env = {"MEMDESK_DATABASE_URL": database_url, "MEMDESK_HOME": str(tmp_path / "home")}
    result = CliRunner().invoke(app, ["import", str(path)], env=env)
    assert result.exit_code == 2, result.output
    for word in words:
        assert word in result.stderr
    assert database_digest(loaded.db.engine) == before


def test_one_bad_record_means_nothing_from_the_file_is_written(loaded):
    corpus = corpus_dict(
        tenants=[{"tenant_id": "C", "name": "Tenant C"}],
        users=[{"user_id": "c.sales", "tenant_id": "C", "roles": ["sales"]}],
        documents=[
            doc("C-SOP", 1, tenant_id="C", body="C 的標準作業程序"),
            doc("C-NOTE", 1, tenant_id="C", doc_type="note", body="C 的備忘"),
            # The last record clashes with a version already in the store.
            doc("SOP-LEADTIME", 2, body="新版：標準交期 20 日"),
        ],
        tasks=[],
    )
    before = database_digest(loaded.db.engine)
    with pytest.raises(InvalidInput) as refused:
        import_bytes(
            loaded.importer,
            json.dumps(corpus, ensure_ascii=False).encode(),
            source="c.json",
            actor="test",
        )
    assert [p for p in refused.value.problems if "SOP-LEADTIME@2" in p]
    assert database_digest(loaded.db.engine) == before


def test_reimport_of_identical_content_changes_nothing(loaded, tmp_path: Path):
    before = database_digest(loaded.db.engine)
    raw = json.dumps(corpus_dict(), ensure_ascii=False).encode()
    report = import_bytes(loaded.importer, raw, source="again.json", actor="test")
    assert not report.changed
    assert report.unchanged == {"tenants": 2, "users": 6, "documents": 6, "tasks": 1}
    assert database_digest(loaded.db.engine) == before  # no rows, no audit entry
