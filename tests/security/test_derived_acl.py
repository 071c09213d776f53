"""What a run derives from documents (its evidence pool, the decision's claims, hand-off packets,
approval payloads, the desk's draft) carries their ACL: a colleague in the same tenant without
the customer grant or role sees no quote or title of a document they may not open."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from services.core.errors import MemdeskError, NotFound
from services.publishing.candidates import Proposal
from services.records.redaction import WITHHELD
from tests.security.conftest import World

VIEWERS_WITHOUT_GRANT = ("a.sales2", "a.engineer", "a.owner", "a.admin")


@pytest.fixture
def world(sqlite_world: World) -> World:
    """Within-tenant ACLs are the same code on both backends; SQLite is enough here."""
    return sqlite_world


def _restricted(world: World) -> list[tuple[str, str]]:
    """(title, quote) of evidence in a.sales's Q42 run that needs the customer grant."""
    s = world.services
    sales = world.principal("a.sales")
    pool = s.runs.evidence(sales, world.real.run)
    out = []
    for item in pool:
        acl = s.knowledge.get(sales, item.document_id, item.version).acl
        if "tenant" not in acl and not any(tag.startswith("role:") for tag in acl):
            # as it appears inside JSON (quotes hold newlines)
            out.append((item.title, json.dumps(item.quote[:24], ensure_ascii=False)[1:-1]))
    return out


def _everything(world: World, user: str) -> str:
    s = world.services
    p = world.principal(user)
    t = world.real
    calls = {
        "runs.get": lambda: s.runs.get(p, t.run),
        "runs.search": lambda: s.runs.search(p, task_id=t.task),
        "runs.events": lambda: s.runs.events(p, t.run),
        "runs.evidence": lambda: s.runs.evidence(p, t.run),
        "approvals.search": lambda: s.approvals.search(p, task_id=t.task),
        "approvals.get": lambda: s.approvals.get(p, t.approval),
        "approval_flow.current": lambda: s.approval_flow.current(p, t.task),
        "approval_flow.queue": lambda: s.approval_flow.queue(p),
        "desk.task_view": lambda: s.desk.task_view(p, t.task),
        "desk.approval_queue": lambda: s.desk.approval_queue(p),
    }
    seen = {}
    for name, call in calls.items():
        try:
            seen[name] = _plain(call())
        except MemdeskError as exc:
            seen[name] = f"{type(exc).__name__}: {exc}"
    return json.dumps(seen, ensure_ascii=False)


def _plain(value):
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def test_the_q42_run_really_rests_on_customer_restricted_documents(world):
    restricted = _restricted(world)
    assert restricted, "the scenario must cite customer-restricted evidence for this to mean much"
    everything = _everything(world, "a.sales")  # the requester holds the grant: sees it all
    assert all(quote in everything for _, quote in restricted)


def test_colleagues_without_the_grant_see_no_quote_or_title_of_it(world):
    restricted = _restricted(world)
    for user in VIEWERS_WITHOUT_GRANT:
        everything = _everything(world, user)
        for title, quote in restricted:
            assert quote not in everything, (user, quote)
            assert title not in everything, (user, title)


def test_a_candidates_sources_carry_the_acl_of_the_documents_they_quote(world):
    s = world.services
    sales, owner = world.principal("a.sales"), world.principal("a.owner")
    contract = s.knowledge.get(sales, "CONTRACT-ACME-2026", 1)
    quoted = contract.body[:30]
    candidate = s.candidates.propose(
        sales,
        Proposal(
            document_id="SOP-LEADTIME",
            body="標準交期 15 日；特殊檢驗依合約另議（提案）",
            evidence_ids=[f"CONTRACT-ACME-2026@1:0-{len(quoted)}"],
        ),
    )
    mine = s.candidates.get(sales, candidate.candidate_id)
    assert mine.sources[0].quote == quoted  # the proposer holds the grant
    seen = json.dumps(
        [
            s.candidates.get(owner, candidate.candidate_id).model_dump(mode="json"),
            s.candidates.review(owner, candidate.candidate_id).model_dump(mode="json"),
            [c.model_dump(mode="json") for c in s.candidates.list(owner)],
        ],
        ensure_ascii=False,
    )
    assert json.dumps(quoted, ensure_ascii=False)[1:-1] not in seen
    assert WITHHELD in seen


@pytest.mark.parametrize("user", ["a.sales2", "a.engineer"])
def test_memories_of_a_customer_scope_are_missing_for_colleagues_without_the_grant(world, user):
    s = world.services
    p = world.principal(user)
    for call in (
        lambda memory: s.memories.get(p, memory),
        lambda memory: s.memories.revisions(p, memory),
    ):
        with pytest.raises(NotFound) as aimed:
            call(world.real.memory)
        with pytest.raises(NotFound) as nowhere:
            call("mem-nowhere")
        assert str(aimed.value).replace(world.real.memory, "?") == str(nowhere.value).replace(
            "mem-nowhere", "?"
        )
    assert world.real.memory not in json.dumps(
        [m.model_dump(mode="json") for m in s.memories.scopes(p)]
    )
    assert s.memories.get(world.principal("a.sales"), world.real.memory).fact


def test_a_models_raw_answer_stays_out_of_the_audit_log(world):
    """The audit log is read by admins and knowledge owners without the documents' ACLs; a
    model's raw answer (kept on the run for review, redacted there) quotes documents."""
    s = world.services
    raw = '{"claims": [{"text": "依 CONTRACT-ACME-2026：RAW-ANSWER-MARKER"}]}'
    s.runs.add_event(world.real.run, "model_call", {"status": "rejected", "raw": raw})
    entries = s.audit.search(world.principal("a.admin"), action="run.model_call", limit=1000)
    assert entries and all("RAW-ANSWER-MARKER" not in json.dumps(e.detail) for e in entries)
    assert any(
        e.payload.get("raw") == raw
        for e in s.runs.events(world.principal("a.sales"), world.real.run)
    )
