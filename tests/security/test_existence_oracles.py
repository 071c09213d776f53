"""No existence oracles: what a person may not read answers exactly like what does not exist,
withheld evidence shows only that something was withheld, and public ids are not a sequence
that counts other tenants' records."""

from __future__ import annotations

import itertools
import json

from services.publishing.candidates import Proposal
from services.records.redaction import WITHHELD
from tests.security.conftest import World

COLLEAGUE = "a.sales2"  # tenant A, but no customer:C-ACME grant


def test_proposing_for_an_unreadable_document_answers_like_an_unknown_one(world: World) -> None:
    services = world.services
    colleague = world.principal(COLLEAGUE)
    assert not services.knowledge.search(colleague, search="CONTRACT-ACME-2026").items
    hidden = services.candidates.propose(
        colleague,
        Proposal(document_id="CONTRACT-ACME-2026", title="付款條件", body="付款條件改為月結 60 天"),
    )
    unknown = services.candidates.propose(
        colleague,
        Proposal(document_id="CONTRACT-NOWHERE-9", title="付款條件", body="付款條件改為月結 60 天"),
    )
    assert hidden.base_version is None and unknown.base_version is None
    shown = json.dumps(hidden.model_dump(mode="json"), ensure_ascii=False)
    assert "C-ACME" not in shown  # nothing of the existing document comes back


def _run_as(world: World, user_id: str) -> str:
    services = world.services
    principal = world.principal(user_id)
    run = services.runs.get(principal, world.real.run)
    events = services.runs.events(principal, world.real.run)
    return json.dumps(
        [run.model_dump(mode="json"), [e.model_dump(mode="json") for e in events]],
        ensure_ascii=False,
    )


def test_withheld_evidence_in_a_run_shows_only_that_something_was_withheld(world: World) -> None:
    services = world.services
    owner_view = _run_as(world, "a.sales")
    sales = world.principal("a.sales")
    acme = [
        d
        for d in services.knowledge.eligible(sales, as_of=services.clock.now().date())
        if d.customer_id == "C-ACME" and d.document_id in owner_view
    ]
    assert acme, "the run must have cited a customer's document for this check to mean much"
    colleague_view = _run_as(world, COLLEAGUE)
    assert WITHHELD in colleague_view
    for document in acme:
        assert document.document_id not in colleague_view
        assert document.content_hash not in colleague_view
    assert "C-ACME" not in colleague_view


def test_approval_and_hold_ids_are_not_a_sequence(world: World) -> None:
    services = world.services
    admin = world.principal("b.admin")
    holds = [
        services.retention.set_hold(
            admin, record_type="task", record_id="B-Q7", reason=f"sequence probe {n}"
        ).id
        for n in range(3)
    ]
    assert len(set(holds)) == 3
    assert sorted(holds) != list(range(min(holds), min(holds) + 3))
    assert min(holds) > 10_000  # not a count of anything
    for hold_id in holds:
        services.retention.lift_hold(admin, hold_id, reason="probe done")
    approvals = sorted(a.id for a in services.approvals.search(world.principal("a.sales")))
    assert len(approvals) >= 2
    assert all(b - a != 1 for a, b in itertools.pairwise(approvals))
