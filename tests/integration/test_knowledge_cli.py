"""`memdesk candidates|publish|revoke|holds|retention|purge-expired` against a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from services.core.clock import SystemClock, today
from tests.support.corpus import write_corpus
from tests.support.publishing import V3_BODY, publishing_corpus


def memdesk(env: dict[str, str], *args: str):
    return CliRunner().invoke(app, list(args), env=env)


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str]:
    env = {
        "MEMDESK_HOME": str(tmp_path / "home"),
        "MEMDESK_DATABASE_URL": database_url,
        "MEMDESK_EMBEDDING_BACKEND": "hashing",
    }
    corpus = write_corpus(tmp_path / "corpus.json", publishing_corpus())
    result = memdesk(env, "import", str(corpus))
    assert result.exit_code == 0, result.output
    return env


def leadtime_versions(env: dict[str, str]) -> set[int]:
    # The CLI publishes on the system clock (valid from its today): ask as of that same day.
    as_of = today(SystemClock()).isoformat()
    result = memdesk(
        env, "retrieve", "--as", "a.sales", "--as-of", as_of, "標準交期是幾天", "--json"
    )
    assert result.exit_code == 0, result.output
    return {
        e["version"]
        for e in json.loads(result.stdout)["evidence"]
        if e["document_id"] == "SOP-LEADTIME"
    }


def test_propose_review_approve_publish_then_revoke_from_the_cli(env: dict[str, str]) -> None:
    proposed = memdesk(
        env, "candidates", "propose", "--as", "a.sales", "--document", "SOP-LEADTIME",
        "--body", V3_BODY, "--evidence", "SOP-LEADTIME@2:0-20", "--json",
    )  # fmt: skip
    assert proposed.exit_code == 0, proposed.output
    candidate_id = json.loads(proposed.stdout)["candidate_id"]

    shown = memdesk(env, "candidates", "show", candidate_id, "--as", "a.owner")
    assert shown.exit_code == 0, shown.output
    assert "source evidence SOP-LEADTIME@2:0-20: 新版：標準交期 15 日" in shown.stdout
    assert "~ 新版：標準交期 15 日" in shown.stdout and "you may approve" in shown.stdout

    own = memdesk(env, "candidates", "approve", candidate_id, "--as", "a.sales")
    assert own.exit_code == 2 and "only a knowledge owner may approve" in own.stderr
    unapproved = memdesk(env, "publish", candidate_id, "--as", "a.owner")
    assert unapproved.exit_code == 2 and "not approved" in unapproved.stderr
    approved = memdesk(env, "candidates", "approve", candidate_id, "--as", "a.owner")
    assert approved.exit_code == 0, approved.output

    published = memdesk(env, "publish", candidate_id, "--as", "a.owner")
    assert published.exit_code == 0, published.output
    assert "published SOP-LEADTIME@3" in published.stdout and "superseded v2" in published.stdout
    assert "[4/5] active version switched" in published.stderr
    assert leadtime_versions(env) == {3}

    revoked = memdesk(
        env, "revoke", "SOP-LEADTIME", "--version", "3", "--reason", "wrong", "--as", "a.owner",
        "--json",
    )  # fmt: skip
    assert revoked.exit_code == 0, revoked.output
    report = json.loads(revoked.stdout)
    assert report["purge_verified"] is True and report["versions"] == [3]
    assert leadtime_versions(env) == set()
    listed = memdesk(env, "candidates", "list", "--as", "a.owner", "--json")
    assert [c["status"] for c in json.loads(listed.stdout)] == ["published"]


def test_holds_and_retention_from_the_cli(env: dict[str, str]) -> None:
    refused = memdesk(
        env, "holds", "set", "Q42", "--type", "task", "--reason", "x", "--as", "a.owner"
    )
    assert refused.exit_code == 2 and "only an admin" in refused.stderr
    held = memdesk(
        env, "holds", "set", "SOP-LEADTIME", "--type", "document", "--reason", "dispute",
        "--as", "a.admin", "--json",
    )  # fmt: skip
    assert held.exit_code == 0, held.output
    hold_id = json.loads(held.stdout)["id"]
    listed = memdesk(env, "holds", "list", "--as", "a.admin")
    assert f"{hold_id}: document SOP-LEADTIME — dispute (active)" in listed.stdout

    policy = memdesk(
        env, "retention", "set", "--type", "document", "--days", "1", "--as", "a.admin"
    )
    assert policy.exit_code == 0, policy.output
    shown = memdesk(env, "retention", "show", "--as", "a.admin")
    assert "finished document versions: 1 day(s)" in shown.stdout
    # The superseded v1 changed status at import (just now): not yet expired, and held anyway.
    dry = memdesk(env, "purge-expired", "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["removed"]["document"] == []

    lifted = memdesk(env, "holds", "lift", str(hold_id), "--reason", "settled", "--as", "a.admin")
    assert lifted.exit_code == 0 and f"hold {hold_id} lifted" in lifted.stdout
    assert "no legal holds" in memdesk(env, "holds", "list", "--as", "a.admin").stdout
    bad = memdesk(env, "retention", "set", "--type", "memory", "--days", "3", "--as", "a.admin")
    assert bad.exit_code == 2 and "Memory Bank" in bad.stderr
