"""The demo's engineers cover its customers: an engineering item of a C-ACME task (Q43) goes to
the engineer holding customer:C-ACME (a.engineer2) and stays out of sight of the one who does
not (a.engineer), and every demo customer has an engineer (data/check_dataset.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from services.bootstrap import Services
from services.core.errors import NotFound
from tests.conftest import principal

DATA = Path(__file__).resolve().parents[2] / "data"


def dataset_checker():
    spec = importlib.util.spec_from_file_location("check_dataset", DATA / "check_dataset.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def demo(services: Services) -> Services:
    services.importer.import_file(DATA / "demo-corpus.json")
    return services


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_c_acme_engineering_item_is_for_the_engineer_with_that_grant(demo: Services):
    item = demo.approvals.request(
        principal(demo, "a.sales"),
        task_id="Q43",
        decision_version=2,
        payload={"text": "膜厚量測方法", "need": "surface_treatment"},
        kind="engineering",
        required_role="engineer",
        item_key="engineering-1",
    )
    acme = principal(demo, "a.engineer2")
    assert [found.id for found in demo.approvals.search(acme, task_id="Q43")] == [item.id]
    other = principal(demo, "a.engineer")
    assert demo.approvals.search(other, task_id="Q43") == []
    with pytest.raises(NotFound):
        demo.approvals.decide(other, item.id, approve=True, comment="ok")
    decided = demo.approvals.decide(acme, item.id, approve=True, comment="量測方法可行")
    assert (decided.status, decided.decided_by) == ("approved", "a.engineer2")


def test_every_demo_customer_has_an_engineer(capsys):
    check = dataset_checker()
    assert check.main(["check_dataset.py"]) == 0, capsys.readouterr().out


def test_a_customer_without_an_engineer_is_reported():
    check = dataset_checker()
    corpus = json.loads((DATA / "demo-corpus.json").read_text(encoding="utf-8"))
    for user in corpus["users"]:
        if user["user_id"] == "a.engineer2":
            user["grants"] = []
    check.problems.clear()
    check.check_corpus(corpus)
    assert "task A/Q43: no engineer of tenant A holds customer:C-ACME" in check.problems
