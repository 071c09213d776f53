"""A task that belongs to a customer is worked from that customer's documents and everyone's,
never another customer's: a salesperson who serves two customers reads both contracts, yet the
Tamax order is not checked against Aurora's agreement, nor Riverbend's site hours against
Keller's site notes. Shown on two blind sets written by different people (an electronics
distributor writing Chinese and English, an equipment-rental firm writing English)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services import bootstrap
from services.cli.main import app
from services.core.clock import FakeClock
from services.settings import Settings
from tests.support.corpus import corpus_dict, doc, write_corpus
from tests.support.ids import SequentialIds

BLIND = Path(__file__).resolve().parents[2] / "data" / "blind"


@pytest.mark.parametrize(
    ("dataset", "case_id", "other_customer"),
    [
        ("distributor", "task-tamax-stm32-old-dc", "C-AURORA"),
        ("chatlog", "task-riverbend-access-hours", "C-KELLER"),
    ],
)
def test_a_customers_task_uses_no_other_customers_documents(
    tmp_path: Path, dataset: str, case_id: str, other_customer: str
) -> None:
    golden = json.loads((BLIND / dataset / f"{dataset}.golden.json").read_text(encoding="utf-8"))
    case = next(c for c in golden["cases"] if c["case_id"] == case_id)
    as_of = date.fromisoformat(golden["as_of"])
    services = bootstrap.build(
        Settings(home=tmp_path / "home", embedding_backend="use", analyzer="offline"),
        clock=FakeClock(datetime.combine(as_of, time(9), tzinfo=UTC)),
        ids=SequentialIds(),
    )
    try:
        bootstrap.initialise(services)
        services.importer.import_file(BLIND / dataset / f"{dataset}-corpus.json")
        services.index.sync()
        person = services.directory.principal(case["user_id"])
        task = services.tasks.get(person, case["task_id"])
        customer = task.state.confirmed["customer_id"]
        # The person may read the other customer's documents: only the task's scope keeps
        # them out.
        readable = services.retrieval.retrieve(person, case["supplement"], k=20, as_of=as_of)
        assert other_customer in {e.customer_id for e in readable.evidence}

        result = services.resumer.resume(
            person, case["task_id"], supplement=case["supplement"], as_of=as_of
        )
        assert result.run.status == "succeeded", result.run.error
        used = {e.customer_id for e in result.evidence}  # what the draft could cite
        assert used <= {None, customer}, used
    finally:
        services.close()


def test_memdesk_retrieve_for_a_customer_returns_no_other_customers_document(tmp_path: Path):
    corpus = corpus_dict()
    corpus["documents"].append(
        doc(
            "CONTRACT-BETA",
            1,
            doc_type="contract",
            customer_id="C-BETA",
            body="BETA 年度合約：付款條件月結 30 天。",
        )
    )
    env = {"MEMDESK_HOME": str(tmp_path / "home"), "MEMDESK_EMBEDDING_BACKEND": "hashing"}
    path = write_corpus(tmp_path / "corpus.json", corpus)
    imported = CliRunner().invoke(app, ["import", str(path)], env=env)
    assert imported.exit_code == 0, imported.output

    def documents(*scope: str) -> set[str]:
        args = ["retrieve", "年度合約付款條件", "--as", "a.sales", "--as-of", "2026-11-29"]
        found = CliRunner().invoke(app, [*args, "--k", "10", *scope, "--json"], env=env)
        assert found.exit_code == 0, found.output
        return {e["document_id"] for e in json.loads(found.stdout)["evidence"]}

    assert {"CONTRACT-ACME", "CONTRACT-BETA"} <= documents()
    assert "CONTRACT-BETA" not in documents("--customer", "C-ACME")
    assert "CONTRACT-ACME" in documents("--customer", "C-ACME")
