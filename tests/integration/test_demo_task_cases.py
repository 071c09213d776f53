"""Every `task` case of the demo golden set (memory-demo@1) resumed on the demo corpus, with the
offline analyzer, the governed retrieval and the real offline embedder: expected status, nothing
forbidden used, relevant evidence found, confirmed fields never asked again, and every citation
slicing to its quote."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, time
from pathlib import Path

import pytest

from services import bootstrap
from services.bootstrap import Services
from services.contracts.golden import Golden, TaskCase, ref_matches
from services.core.clock import FakeClock
from services.lab.eval_tasks import TaskCaseOutcome, run_task_case
from services.records.knowledge import content_hash
from services.settings import Settings
from tests.support.ids import SequentialIds

DATA = Path(__file__).resolve().parents[2] / "data"
GOLDEN = Golden.model_validate(
    json.loads((DATA / "memory-demo.golden.json").read_text(encoding="utf-8"))
)
TASK_CASES = [case for case in GOLDEN.cases if isinstance(case, TaskCase)]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> Iterator[dict[str, tuple[TaskCase, TaskCaseOutcome]]]:
    """One store for the module: the cases touch different tasks, as `memdesk eval` runs them."""
    home = tmp_path_factory.mktemp("demo-tasks")
    assert GOLDEN.as_of is not None
    clock = FakeClock(datetime.combine(GOLDEN.as_of, time(9), tzinfo=UTC))
    services: Services = bootstrap.build(
        Settings(home=home, embedding_backend="use", analyzer="offline"),
        clock=clock,
        ids=SequentialIds(),
    )
    bootstrap.initialise(services)
    services.importer.import_file(DATA / "demo-corpus.json")
    services.index.sync()
    yield {
        case.case_id: (case, run_task_case(services, case, as_of=GOLDEN.as_of))
        for case in TASK_CASES
    }
    services.close()


def test_the_golden_set_has_at_least_ten_task_cases():
    assert len(TASK_CASES) >= 10


@pytest.mark.parametrize("case_id", [case.case_id for case in TASK_CASES])
def test_a_demo_task_case_resumes_as_expected(outcomes, case_id):
    case, outcome = outcomes[case_id]
    assert outcome.status == case.expect_status, outcome.problems
    assert outcome.problems == []
    assert outcome.reasked_confirmed == 0
    forbidden = [d for d in outcome.ranked if any(ref_matches(f, *d) for f in case.forbidden)]
    assert forbidden == []
    for ref in case.relevant:
        assert any(ref_matches(ref, *doc) for doc in outcome.ranked[: case.k]), ref
    assert not outcome.needed_human


def test_every_citation_of_the_demo_cases_slices_to_its_quote(outcomes):
    corpus = json.loads((DATA / "demo-corpus.json").read_text(encoding="utf-8"))
    bodies = {
        (d["tenant_id"], d["document_id"], d["version"]): d["body"] for d in corpus["documents"]
    }
    checked = 0
    for _case, outcome in outcomes.values():
        for citation in outcome.citations:
            body = bodies[(outcome.tenant_id, citation.document_id, citation.version)]
            assert body[citation.start : citation.end] == citation.quote
            assert content_hash(body) == citation.content_hash
            checked += 1
    assert checked > 10
