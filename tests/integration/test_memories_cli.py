"""`memdesk memories ...` in-process on a temporary store: happy path, bad input exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from tests.support.corpus import corpus_dict, write_corpus


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str | None]:
    environment: dict[str, str | None] = {
        "MEMDESK_HOME": str(tmp_path / "home"),
        "MEMDESK_DATABASE_URL": database_url,
        "MEMDESK_EMBEDDING_BACKEND": "hashing",
        "MEMDESK_GEMINI_API_KEY": None,
        "MEMDESK_MEMORY_EXTRACTOR": "offline",
    }
    corpus = write_corpus(tmp_path / "corpus.json", corpus_dict())
    imported = CliRunner().invoke(app, ["import", str(corpus)], env=environment)
    assert imported.exit_code == 0, imported.output
    return environment


def memdesk(env, *args: str, stdin: str | None = None):
    return CliRunner().invoke(app, ["memories", *args], env=env, input=stdin)


def ok_json(env, *args: str, stdin: str | None = None):
    result = memdesk(env, *args, "--json", stdin=stdin)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_generate_list_search_revise_roll_back_and_delete(env):
    as_sales = ("--as", "a.sales", "--scope", "task_id=Q42")
    preview = ok_json(env, "generate", *as_sales, "--text", "SUS304，1,200 件。", "--dry-run")
    assert [c["action"] for c in preview["changes"]] == ["created", "created"]
    assert ok_json(env, "list", *as_sales) == []

    made = ok_json(
        env, "generate", *as_sales, "--kind", "mail", "--text", "-", stdin="數量 1,200 件"
    )
    memory_id = made["changes"][0]["memory_id"]
    ok_json(env, "generate", *as_sales, "--text", "數量改為 900 件。", "--event-id", "MAIL-7")
    listed = ok_json(env, "list", *as_sales)
    assert [(m["memory_id"], m["fact"], m["revision"]) for m in listed] == [
        (memory_id, "數量 900 件", 2)
    ]
    assert listed[0]["knowledge_class"] == "inference"
    hits = ok_json(env, "search", "數量", *as_sales, "--k", "1")
    assert [h["memory"]["memory_id"] for h in hits] == [memory_id]

    revisions = ok_json(env, "revisions", memory_id, "--as", "a.sales")
    assert [(r["revision"], r["action"], r["source"].get("event_id")) for r in revisions] == [
        (2, "updated", "MAIL-7"),
        (1, "created", None),
    ]
    restored = ok_json(env, "rollback", memory_id, "--as", "a.sales", "--revision", "1")
    assert (restored["fact"], restored["revision"]) == ("數量 1,200 件", 3)
    deleted = ok_json(env, "delete", memory_id, "--as", "a.sales", "--reason", "withdrawn")
    assert deleted["state"] == "deleted"
    assert ok_json(env, "show", memory_id, "--as", "a.sales")["state"] == "deleted"

    text = memdesk(env, "list", *as_sales, "--include-deleted")
    assert text.exit_code == 0 and "(deleted)" in text.stdout


def test_topics_policy_hold_and_purge(env):
    topics = ok_json(env, "topics", "list", "--as", "a.sales")
    assert [t["label"] for t in topics if t["managed"]] == [
        "customer_profile",
        "customer_preferences",
        "key_task_details",
        "explicit_instructions",
    ]
    added = ok_json(
        env,
        "topics",
        "set",
        "packaging",
        "--as",
        "a.admin",
        "--description",
        "How parts are packed.",
        "--keyword",
        "棧板",
    )
    assert added["keywords"] == ["棧板"]
    policy = ok_json(env, "policy", "--as", "a.admin", "--set", '{"default_ttl_seconds": 60}')
    assert policy["default_ttl_seconds"] == 60
    made = ok_json(
        env, "generate", "--as", "a.sales", "--scope", "task_id=Q1", "--text", "出貨用棧板"
    )
    assert [(c["topic"], c["action"]) for c in made["changes"]] == [("packaging", "created")]
    memory_id = made["changes"][0]["memory_id"]
    held = ok_json(env, "hold", memory_id, "--as", "a.admin", "--reason", "audit 2026")
    assert held["legal_hold"] is True
    # Nothing has expired yet on the real clock: a dry run removes nothing and reports no hold.
    report = ok_json(env, "purge-expired", "--dry-run")
    assert report == {
        "dry_run": True,
        "removed": [],
        "revisions_removed": 0,
        "kept_on_hold": [],
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["list", "--as", "a.sales", "--scope", "tenant_id=B"], "unknown scope key"),
        (["list", "--as", "a.sales", "--scope", "task_id"], "key=value"),
        (["generate", "--as", "a.sales", "--scope", "task_id=Q42"], "--text"),
        (
            [
                "generate",
                "--as",
                "a.sales",
                "--scope",
                "task_id=Q42",
                "--text",
                "x",
                "--kind",
                "fax",
            ],
            "bad event kind",
        ),
        (["show", "mem-nope", "--as", "a.sales"], "memory not found"),
        (["show", "mem-nope", "--as", "nobody"], "user not found"),
        (["topics", "set", "packaging", "--as", "a.sales", "--description", "x"], "only an admin"),
        (["topics", "set", "Bad Label", "--as", "a.admin", "--description", "x"], "label"),
        (["policy", "--as", "a.admin", "--set", '{"default_ttl_seconds": -5}'], "--set"),
        (["search", "", "--as", "a.sales", "--scope", "task_id=Q42"], "needs a query"),
        (["search", "x", "--as", "a.sales", "--scope", "task_id=Q42", "--k", "0"], "k must be"),
    ],
)
def test_bad_input_exits_2_and_names_the_problem(env, args, message):
    result = memdesk(env, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_another_tenants_memory_is_not_found(env):
    made = ok_json(env, "generate", "--as", "a.sales", "--scope", "task_id=Q42", "--text", "SUS304")
    memory_id = made["changes"][0]["memory_id"]
    for command in (["show", memory_id], ["revisions", memory_id]):
        result = memdesk(env, *command, "--as", "b.sales")
        assert result.exit_code == 2
        assert f"memory not found: {memory_id}" in result.stderr


def test_configs_are_created_listed_and_removed_by_admins_only(env):
    refused = memdesk(env, "configs", "set", "--as", "a.sales", "--config", "user_id")
    assert refused.exit_code == 2
    saved = ok_json(
        env,
        "configs",
        "set",
        "--as",
        "a.admin",
        "--config",
        "user_id",
        "--third-person",
        "--revisions-per-candidate",
        "2",
    )
    assert (saved["scope_keys"], saved["enable_third_person_memories"]) == (["user_id"], True)
    topic = memdesk(
        env,
        "topics",
        "set",
        "key_task_details",
        "--disable",
        "--config",
        "user_id",
        "--as",
        "a.admin",
    )
    assert topic.exit_code == 0, topic.output
    listed = ok_json(env, "configs", "list", "--as", "a.admin")
    assert [(c["scope_keys"], c["revisions_per_candidate_count"]) for c in listed] == [
        ([], 1),
        (["user_id"], 2),
    ]
    off = [t["label"] for t in listed[1]["topics"] if not t["enabled"]]
    assert off == ["key_task_details"]
    generated = ok_json(
        env,
        "generate",
        "--as",
        "a.sales",
        "--scope",
        "user_id=a.sales",
        "--text",
        "SUS304，1,200 件。We always prefer VCI bags.",
    )
    assert generated["config"] == "user_id"
    assert [c["fact"] for c in generated["changes"] if c["action"] == "created"] == [
        "The customer always prefers VCI bags"
    ]
    removed = memdesk(env, "configs", "remove", "--as", "a.admin", "--config", "user_id")
    assert removed.exit_code == 0, removed.output
    assert [c["scope_keys"] for c in ok_json(env, "configs", "list", "--as", "a.admin")] == [[]]
    models = ok_json(env, "models")
    assert (models["embedding_model"], models["extraction"]) == ("hashing-v2", "offline")
