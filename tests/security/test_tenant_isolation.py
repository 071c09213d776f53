"""Every public service function that takes a principal, aimed at tenant A's records by tenant B:
it answers exactly as it does for a record that exists nowhere (same exception, same message,
same empty result), and nothing of tenant A comes back. A new public method without a case here
fails `test_every_public_service_method_has_a_case`."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel

from services.bootstrap import Services
from services.contracts.corpus import DocStatus
from services.contracts.decision import Claim, DecisionStatus, MemoryDecision, NextAction
from services.contracts.evidence_id import parse_evidence_id
from services.core.errors import MemdeskError, NotFound
from services.core.principals import Principal
from services.memory.offers import Offer, OfferView
from services.memory.types import ConversationEvent
from services.publishing.candidates import Proposal
from services.records.audit import AuditQuery
from services.records.knowledge import KnowledgeStore
from tests.security.conftest import AS_OF, MEMORY_SCOPE, MISSING, Targets, World, root_of

Call = Callable[[Services, Principal, Targets], Any]


@dataclass(frozen=True)
class Case:
    """`call` aimed at `Targets`. `owner` is a tenant-A user for whom the same call proves the
    record exists (it must not raise NotFound), without changing anything that matters.
    `listing` calls return collections: another tenant gets them empty."""

    call: Call
    owner: str | None = None
    listing: bool = False
    # What the owner's outcome must show to prove the record exists (default: not NotFound).
    proof: Callable[[tuple[Any, ...]], bool] | None = None


def _decision(t: Targets) -> MemoryDecision:
    return MemoryDecision(
        task_id=t.task,
        state_revision=t.decision_version,
        status=DecisionStatus.ready_for_review,
        claims=[Claim(text="probe", evidence_ids=[t.evidence])],
        missing_fields=[],
        proposed_next_action=NextAction.human_review,
    )


def _eligible_rows(s: Services, p: Principal, t: Targets) -> list[str]:
    query = KnowledgeStore.eligible_query(p, AS_OF, [t.document])
    with s.db.read() as session:
        return [f"{r.document_id}@{r.version}" for r in session.scalars(query)]


# A's words, not A's ids: B's audit log keeps B's own queries, and the leak scan reads it.
A_QUERY = "標準交期 15 日 特殊檢驗 SUS304 艾克美 ACME 不鏽鋼"
STALE = 10**6


def _in_write(s: Services, work: Callable[[Any], Any]) -> Any:
    with s.db.write() as session:
        return work(session)


def _offer(t: Targets) -> OfferView:
    """An owed offer of tenant A's, as `owed` would return it to a worker."""
    return OfferView(
        id=1,
        tenant_id="A",
        task_id=t.task,
        scope=_scope(t),
        event_id="probe",
        events=(ConversationEvent(text="請忘記包裝的偏好。"),),
        acl=("tenant",),
        run_id="probe",
        actor="a.sales",
        status="pending",
        attempts=0,
        last_error=None,
        generation_id=None,
        created_at=datetime(2026, 11, 29, tzinfo=UTC),
    )


def _scope(t: Targets) -> dict[str, str]:
    return {**MEMORY_SCOPE, "task_id": t.task}


# an expected_revision no task has: the owner's control raises StaleRevision

CASES: dict[str, Case] = {
    # ---- tasks
    "tasks.get": Case(lambda s, p, t: s.tasks.get(p, t.task), owner="a.sales"),
    "tasks.search": Case(lambda s, p, t: s.tasks.search(p, search=t.task), listing=True),
    "tasks.status_counts": Case(lambda s, p, t: s.tasks.status_counts(p), listing=True),
    "tasks.events": Case(lambda s, p, t: s.tasks.events(p, t.task), owner="a.sales"),
    "tasks.checkpoints": Case(lambda s, p, t: s.tasks.checkpoints(p, t.task), owner="a.sales"),
    "tasks.create": Case(lambda s, p, t: None),  # see test_creating_a_task_id_another_tenant_uses
    "tasks.update": Case(
        lambda s, p, t: s.tasks.update(p, t.task, expected_revision=STALE, next_step="x"),
        owner="a.sales",
    ),
    "tasks.resolve_conflict": Case(
        lambda s, p, t: s.tasks.resolve_conflict(
            p, t.task, expected_revision=STALE, field="material", keep_confirmed=True, reason="r"
        ),
        owner="a.sales",
    ),
    "tasks.set_legal_hold": Case(
        lambda s, p, t: s.tasks.set_legal_hold(p, t.task, hold=False, reason="security probe"),
        owner="a.admin",
    ),
    # ---- knowledge
    "knowledge.get": Case(
        lambda s, p, t: s.knowledge.get(p, t.document, t.version), owner="a.sales"
    ),
    "knowledge.versions": Case(
        lambda s, p, t: s.knowledge.versions(p, t.document), owner="a.sales"
    ),
    "knowledge.search": Case(
        lambda s, p, t: s.knowledge.search(p, search=t.document).items, listing=True
    ),
    "knowledge.eligible": Case(
        lambda s, p, t: s.knowledge.eligible(p, as_of=AS_OF, document_ids=[t.document]),
        listing=True,
    ),
    "knowledge.eligible_query": Case(_eligible_rows, listing=True),
    "knowledge.is_eligible": Case(
        lambda s, p, t: (
            [t.document]
            if s.knowledge.is_eligible(p, document_id=t.document, version=t.version, as_of=AS_OF)
            else []
        ),
        listing=True,
    ),
    "knowledge.change_status": Case(
        # approved → approved is illegal: the owner's control proves the row was found.
        lambda s, p, t: s.knowledge.change_status(
            p, document_id=t.document, version=t.version, target=DocStatus.approved
        ),
        owner="a.owner",
    ),
    # ---- audit
    "audit.search": Case(lambda s, p, t: s.audit.search(p, subject_id=t.task), listing=True),
    "audit.count": Case(lambda s, p, t: s.audit.count(p), listing=True),
    "audit.actions": Case(lambda s, p, t: s.audit.actions(p), listing=True),
    "audit.actors": Case(lambda s, p, t: s.audit.actors(p), listing=True),
    "audit.page": Case(
        lambda s, p, t: s.audit.page(p, AuditQuery(target=t.task)).items, listing=True
    ),
    "audit.export_csv": Case(
        lambda s, p, t: s.audit.export_csv(p, AuditQuery(target=t.task)).content, listing=True
    ),
    # ---- retrieval
    "retrieval.retrieve": Case(
        lambda s, p, t: s.retrieval.retrieve(p, A_QUERY, as_of=AS_OF).evidence,
        listing=True,
    ),
    "retrieval.resolve": Case(
        lambda s, p, t: s.retrieval.resolve(p, t.evidence, as_of=AS_OF), owner="a.sales"
    ),
    "retrieval.units": Case(
        lambda s, p, t: s.retrieval.units(
            p,
            *parse_evidence_id(t.evidence)[:2],
            as_of=AS_OF,  # type: ignore[index]
        ),
        owner="a.sales",
    ),
    # ---- approvals
    "approvals.request": Case(
        lambda s, p, t: s.approvals.request(
            p, task_id=t.task, decision_version=t.decision_version, payload={"probe": 1}
        ),
        owner="a.sales",  # same key, other payload: IdempotencyConflict
    ),
    "approvals.decide": Case(
        lambda s, p, t: s.approvals.decide(p, t.approval, approve=True),
        owner="a.engineer",  # found, then refused for the role
    ),
    "approvals.get": Case(lambda s, p, t: s.approvals.get(p, t.approval), owner="a.sales"),
    "approvals.search": Case(lambda s, p, t: s.approvals.search(p, task_id=t.task), listing=True),
    "approvals.withdraw": Case(lambda s, p, t: s.approvals.withdraw(p, [t.approval], reason="x")),
    # ---- runs
    "runs.enqueue": Case(
        lambda s, p, t: s.runs.enqueue(p, t.active_task),
        owner="a.sales",  # already active
    ),
    "runs.cancel": Case(
        lambda s, p, t: s.runs.cancel(p, t.run, reason="probe"),
        owner="a.sales2",  # found, but only the requester or an admin may cancel
    ),
    "runs.get": Case(lambda s, p, t: s.runs.get(p, t.run), owner="a.sales"),
    "runs.search": Case(lambda s, p, t: s.runs.search(p, task_id=t.task), listing=True),
    "runs.events": Case(lambda s, p, t: s.runs.events(p, t.run), owner="a.sales"),
    "runs.evidence": Case(lambda s, p, t: s.runs.evidence(p, t.run), owner="a.sales"),
    # ---- approval flow
    "approval_flow.request_for_decision": Case(
        lambda s, p, t: s.approval_flow.request_for_decision(
            p,
            task_id=t.task,
            run_id=t.run,
            decision=_decision(t),
            items=[],
            evidence={},
        ),
        owner="a.sales",  # a different payload under the same key: IdempotencyConflict
    ),
    "approval_flow.current": Case(lambda s, p, t: s.approval_flow.current(p, t.task), listing=True),
    "approval_flow.queue": Case(lambda s, p, t: s.approval_flow.queue(p), listing=True),
    "approval_flow.waiting_for": Case(
        lambda s, p, t: s.approval_flow.waiting_for(p, t.approval), owner="a.sales"
    ),
    "approval_flow.decide": Case(
        lambda s, p, t: s.approval_flow.decide(p, t.approval, approve=True),
        owner="a.engineer",
    ),
    "approval_flow.settle": Case(
        lambda s, p, t: s.approval_flow.settle(p, t.task), owner="a.sales"
    ),
    # ---- the review desk (console reads and people's decisions)
    "desk.task_view": Case(lambda s, p, t: s.desk.task_view(p, t.task), owner="a.sales"),
    "desk.evidence_view": Case(
        lambda s, p, t: s.desk.evidence_view(p, t.evidence, run_id=t.run, as_of=AS_OF),
        owner="a.sales",
    ),
    "desk.approval_queue": Case(lambda s, p, t: s.desk.approval_queue(p), listing=True),
    "desk.changes_since": Case(lambda s, p, t: s.desk.changes_since(p, t.task, 1), owner="a.sales"),
    "desk.open_conflicts": Case(lambda s, p, t: s.desk.open_conflicts(p), listing=True),
    "desk.decided_by_me": Case(lambda s, p, t: s.desk.decided_by_me(p), listing=True),
    "desk.run": Case(lambda s, p, t: s.desk.run(p, t.task, supplement=None)),
    "desk.decide": Case(
        lambda s, p, t: s.desk.decide(p, t.approval, approve=True, comment="", seen_revision=STALE),
        owner="a.sales",  # found, then StaleRevision
    ),
    "desk.settle_source_conflict": Case(
        lambda s, p, t: s.desk.settle_source_conflict(
            p,
            t.task,
            expected_revision=STALE,
            run_id=t.run,
            fact="probe",
            action="escalate",
            reason="probe",
        ),
        owner="a.sales",  # task and run found; the fact is not one of the run's conflicts
        proof=lambda o: o[:2] == ("raised", "NotFound") and "conflict not found" in o[2],
    ),
    # ---- memories (scoped: exact scope match inside the principal's tenant)
    "memories.get": Case(lambda s, p, t: s.memories.get(p, t.memory), owner="a.sales"),
    "memories.revisions": Case(lambda s, p, t: s.memories.revisions(p, t.memory), owner="a.sales"),
    "memories.quote": Case(lambda s, p, t: s.memories.quote(p, t.memory), owner="a.sales"),
    "memories.rollback": Case(
        lambda s, p, t: s.memories.rollback(p, t.memory, revision=1),
        owner="a.sales",  # found: it is at revision 1 already
    ),
    "memories.delete": Case(
        lambda s, p, t: s.memories.delete(p, t.memory, reason="probe"),
        owner="a.sales",  # found: it is under legal hold
    ),
    "memories.set_legal_hold": Case(
        lambda s, p, t: s.memories.set_legal_hold(p, t.memory, hold=True, reason="probe"),
        owner="a.admin",
    ),
    "memories.mark_legal_hold": Case(
        # The flag as the retention service sets it inside its own unit of work (the memory is
        # under legal hold already, so the owner's call changes nothing).
        lambda s, p, t: _in_write(
            s,
            lambda session: s.memories.mark_legal_hold(session, p, t.memory, held=True, reason="x"),
        ),
        owner="a.admin",
    ),
    "memories.create": Case(lambda s, p, t: None),  # see test_a_memory_in_the_same_scope_key...
    "memories.generate": Case(
        # A dry run in the same scope key: nothing of A's may be consolidated against.
        lambda s, p, t: [
            change.model_dump(mode="json")
            for change in s.memories.generate(
                p,
                scope=_scope(t),
                events=[ConversationEvent(text="艾克美偏好以 PE 袋單件包裝，交期請盡量縮短。")],
                dry_run=True,
            ).changes
            if change.action not in ("created", "dropped")
        ],
        listing=True,
    ),
    "memories.list_memories": Case(
        lambda s, p, t: s.memories.list_memories(p, scope=_scope(t), include_deleted=True),
        listing=True,
    ),
    "memories.scopes": Case(lambda s, p, t: s.memories.scopes(p), listing=True),
    "memories.recall": Case(
        lambda s, p, t: s.memories.recall(p, scopes=[_scope(t)], queries=["包裝 PE 袋"]),
        listing=True,
    ),
    "memories.offer": Case(  # B's own offer under a scope key A also uses: nothing of A's
        lambda s, p, t: (
            len(
                s.memories.offer(
                    p,
                    run_id="probe",
                    offered=[
                        Offer(scope=_scope(t), events=(ConversationEvent(text="x", event_id="p"),))
                    ],
                )
            )
            >= 0
        ),
        listing=True,
    ),
    "memories.fulfil": Case(lambda s, p, t: s.memories.fulfil(p, _offer(t))),
    "memories.generate_offered": Case(
        # A "forget" in B's own scope of the same key: nothing of A's may be deleted.
        lambda s, p, t: [
            change.action
            for outcome in s.memories.generate_offered(
                p,
                run_id="probe",
                fresh=[
                    Offer(
                        scope=_scope(t),
                        events=(ConversationEvent(text="請忘記包裝的偏好。"),),
                    )
                ],
            )
            for change in (outcome.result.changes if outcome.result else ())
            if change.action not in ("created", "dropped")
        ],
        listing=True,
    ),
    "memories.search": Case(
        lambda s, p, t: s.memories.search(p, scope=_scope(t), query="包裝 PE 袋"), listing=True
    ),
    # ---- candidate knowledge, publishing, citation checks
    "candidates.get": Case(lambda s, p, t: s.candidates.get(p, t.candidate), owner="a.sales"),
    "candidates.review": Case(lambda s, p, t: s.candidates.review(p, t.candidate), owner="a.owner"),
    "candidates.list": Case(lambda s, p, t: s.candidates.list(p), listing=True),
    "candidates.waiting": Case(lambda s, p, t: s.candidates.waiting(p), listing=True),
    "candidates.revise": Case(
        lambda s, p, t: s.candidates.revise(p, t.decided_candidate, title="probe", body="probe"),
        owner="a.owner",  # found: it is rejected, not pending
    ),
    "candidates.withdraw": Case(
        lambda s, p, t: s.candidates.withdraw(p, t.decided_candidate, reason="probe"),
        owner="a.owner",  # found: it is rejected, not approved
    ),
    "candidates.adopt_pending": Case(
        # Idempotent: what the queue holds after adopting is the same on every call.
        lambda s, p, t: [s.candidates.adopt_pending(p), s.candidates.list(p)][1],
        listing=True,
    ),
    "candidates.approve": Case(
        lambda s, p, t: s.candidates.approve(p, t.decided_candidate),
        owner="a.owner",  # found: it is rejected, not pending
    ),
    "candidates.reject": Case(
        lambda s, p, t: s.candidates.reject(p, t.decided_candidate, reason="probe"),
        owner="a.owner",
    ),
    "candidates.propose": Case(
        # Sources are looked up as the proposer: A's evidence is B's missing evidence.
        lambda s, p, t: s.candidates.propose(
            p, Proposal(document_id="DOC-PROBE", body="probe", evidence_ids=[t.evidence])
        ),
        owner="a.sales",
    ),
    "candidates.propose_from_run": Case(
        lambda s, p, t: s.candidates.propose_from_run(
            p, run_id=t.run, claim=999, document_id=t.document
        ),
        owner="a.sales",  # found: the run has no claim 999
    ),
    "publisher.publish": Case(
        lambda s, p, t: s.publisher.publish(p, t.decided_candidate),
        owner="a.owner",  # found: rejected, not approved
    ),
    "publisher.publications": Case(
        lambda s, p, t: s.publisher.publications(p, candidate_id=t.candidate), listing=True
    ),
    "publisher.revoke": Case(
        lambda s, p, t: s.publisher.revoke(p, t.revoked_document, reason="probe"),
        owner="a.owner",  # found: already revoked
    ),
    "citations.check_approval": Case(
        lambda s, p, t: s.citations.check_approval(p, t.approval, as_of=AS_OF), owner="a.sales"
    ),
    "citations.check": Case(
        lambda s, p, t: [
            c.state
            for c in s.citations.check(
                p,
                [{"document_id": t.document, "version": t.version, "evidence_id": t.evidence}],
                as_of=AS_OF,
            )
        ],
        listing=True,
    ),
    # ---- retention and legal holds (admins, their own tenant)
    "retention.policies": Case(lambda s, p, t: s.retention.policies(p), listing=True),
    "retention.set_policy": Case(
        lambda s, p, t: s.retention.set_policy(p, record_type="document", days=None),
        listing=True,
    ),
    "retention.holds": Case(lambda s, p, t: s.retention.holds(p), listing=True),
    "retention.preview": Case(lambda s, p, t: s.retention.preview(p), listing=True),
    "retention.set_hold": Case(
        lambda s, p, t: s.retention.set_hold(
            p, record_type="task", record_id=t.task, reason="probe"
        ),
        owner="a.admin",
    ),
    "retention.lift_hold": Case(
        lambda s, p, t: s.retention.lift_hold(p, t.hold, reason="probe"), owner="a.admin"
    ),
    # ---- identity, users and resume
    "directory.tenant": Case(lambda s, p, t: s.directory.tenant(p), listing=True),
    "directory.users": Case(lambda s, p, t: s.directory.users(p), listing=True),
    "directory.customers": Case(lambda s, p, t: s.directory.customers(p), listing=True),
    "directory.user": Case(lambda s, p, t: s.directory.user(p, t.user), owner="a.admin"),
    # The owner's controls change nothing: the user already has these roles, grants, state.
    "directory.set_roles": Case(
        lambda s, p, t: s.directory.set_roles(p, t.user, ["sales"]), owner="a.admin"
    ),
    "directory.add_grant": Case(
        lambda s, p, t: s.directory.add_grant(p, t.user, "customer:C-ACME"), owner="a.admin"
    ),
    "directory.remove_grant": Case(
        lambda s, p, t: s.directory.remove_grant(p, t.user, "customer:C-NOWHERE"),
        owner="a.admin",
    ),
    "directory.set_active": Case(
        lambda s, p, t: s.directory.set_active(p, t.user, True), owner="a.admin"
    ),
    "resumer.resume": Case(
        lambda s, p, t: s.resumer.resume(p, t.active_task, as_of=AS_OF), owner="a.sales"
    ),
}

# Public methods that take no principal: the system side, never reachable from a page.
SYSTEM = {
    "directory.principal": "identity lookup at login (the user id comes from the login)",
    "directory.principal_for_email": "identity lookup at login",
    "tasks.insert_row": "inside the import's unit of work",
    "tasks.purge_expired": "retention job (CLI purge-expired)",
    "tasks.reschedule_expiry": "inside a retention-policy change",
    "knowledge.add_version": "inside the import / publishing unit of work",
    "knowledge.set_acl": "inside the import unit of work",
    "knowledge.transition": "inside change_status / publishing",
    "knowledge.supersede": "inside the publishing switch / the import unit of work",
    "knowledge.close_validity": "inside the publishing switch / the import unit of work",
    "knowledge.settle_approved": "inside the import unit of work (rows of the file's tenants)",
    "index.*": "index maintenance (CLI, import hook)",
    "importer.*": "corpus import (CLI, seed)",
    "runs.claim": "worker",
    "runs.system_get": "worker",
    "runs.system_events": "worker",
    "runs.heartbeat": "worker",
    "runs.add_event": "worker",
    "runs.add_events": "worker",
    "runs.record": "worker",
    "runs.step": "worker",
    "runs.reschedule": "worker",
    "runs.finish": "worker",
    "runs.watch": "in-process progress of a run the resumer already authorised",
    "runs.tokens_used_today": "supervisor's budget check",
    "approval_flow.recover_all": "recovery job",
    "supervisor.*": "runs a claimed run as its requester",
    "worker.*": "claims and executes runs",
    "retrieval.caches": "cache handle for the index maintenance",
    "candidates.mark_published": "inside the publisher's switch transaction",
    "retention.purge_expired": "retention job (CLI purge-expired)",
    "retention.record_types": "configuration read (which record types take part)",
    "retention.register": "composition root wiring",
    "retention.register_copies": "composition root wiring",
    "memories.purge_expired": "retention job (CLI purge-expired)",
    "tasks.lock_for_hold": "inside the retention service's hold unit of work (tenant given)",
    "tasks.mark_hold": "inside the retention service's hold unit of work (row given)",
    "memories.extractor_name": "configuration read (which extractor runs)",
    "memories.models": "configuration read (which models the bank uses)",
    "memories.task_events": "runs: the event ids this task's runs offered, to tell the task's "
    "own key details in a shared scope from another task's (tenant and task from the run)",
    "memories.owed": "worker and runs: offers still to generate, each then fulfilled only by "
    "its own actor",
    "accounts.*": "login and the CLI's account management: before any principal exists",
    "sessions.*": "login sessions: opened for the user a password just proved, then named by "
    "a signed token, never by a key another tenant could aim at",
}
SKIP_FIELDS = {"settings", "db", "clock", "ids"}  # plumbing, not services

B_PRINCIPALS = {
    "b.sales": lambda w: w.principal("b.sales"),
    "b.root": lambda w: root_of("B", grants=("customer:C-ACME", "customer:C-BETA")),
}


def _service_types() -> dict[str, type]:
    hints = typing.get_type_hints(Services)
    return {
        f.name: hints[f.name] for f in dataclasses.fields(Services) if f.name not in SKIP_FIELDS
    }


def public_methods() -> list[str]:
    names = []
    for field, cls in _service_types().items():
        for name, member in inspect.getmembers(cls):
            if name.startswith("_") or not (callable(member) or isinstance(member, property)):
                continue
            if name == "close":
                continue
            names.append(f"{field}.{name}")
    return sorted(names)


def _takes_principal(qualified: str) -> bool:
    field, name = qualified.split(".")
    member = inspect.getattr_static(_service_types()[field], name)
    if isinstance(member, property):
        return False
    if isinstance(member, staticmethod | classmethod):
        member = member.__func__
    return "principal" in inspect.signature(member).parameters


def test_every_public_service_method_has_a_case():
    methods = public_methods()
    with_principal = {m for m in methods if _takes_principal(m)}
    assert with_principal, "introspection found nothing"
    missing = sorted(with_principal - set(CASES))
    assert not missing, f"public methods taking a principal without an isolation case: {missing}"
    stale = sorted(set(CASES) - with_principal)
    assert not stale, f"cases for methods that no longer exist or take no principal: {stale}"
    unclassified = sorted(
        m
        for m in methods
        if m not in with_principal and m not in SYSTEM and f"{m.split('.')[0]}.*" not in SYSTEM
    )
    assert not unclassified, f"public methods that are neither a case nor system: {unclassified}"


def outcome(world: World, case: Case, principal: Principal, targets: Targets) -> tuple[Any, ...]:
    """What a call gives back, with the aimed-at keys blanked so two targets compare."""
    try:
        result = case.call(world.services, principal, targets)
    except MemdeskError as exc:
        return ("raised", type(exc).__name__, _blank(str(exc), targets))
    return ("returned", _dump(result))


def _dump(value: Any) -> str:
    def plain(v: Any) -> Any:
        if isinstance(v, BaseModel):
            return v.model_dump(mode="json")
        if isinstance(v, list | tuple):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        return v

    return json.dumps(plain(value), ensure_ascii=False, sort_keys=True, default=str)


def _blank(text: str, targets: Targets) -> str:
    for value in sorted(set(targets.values()), key=len, reverse=True):
        text = re.sub(rf"(?<![\w.@-]){re.escape(value)}(?![\w-])", "<key>", text)
    return text


def leaked(world: World, text: str) -> list[str]:
    return [m for m in world.a_markers if re.search(rf"(?<![\w-]){re.escape(m)}(?![\w-])", text)]


@pytest.mark.parametrize("who", sorted(B_PRINCIPALS))
@pytest.mark.parametrize(
    "method", sorted(m for m in CASES if m not in ("tasks.create", "memories.create"))
)
def test_another_tenant_gets_exactly_what_a_missing_record_gives(world, method, who):
    case = CASES[method]
    intruder = B_PRINCIPALS[who](world)
    aimed = outcome(world, case, intruder, world.real)
    nowhere = outcome(world, case, intruder, MISSING)
    assert aimed == nowhere
    assert not leaked(world, json.dumps(aimed, ensure_ascii=False)), aimed
    if who == "b.root":  # every role: nothing but the tenant boundary stops it
        expected = ("returned",) if case.listing else ("raised", NotFound.__name__)
        assert aimed[: len(expected)] == expected, aimed
    if case.owner is not None:  # the record is really there for its own tenant
        control = outcome(world, case, world.principal(case.owner), world.real)
        proves = case.proof or (lambda o: o[:2] != ("raised", NotFound.__name__))
        assert proves(control), control


def test_creating_a_task_id_another_tenant_uses_neither_fails_nor_touches_it(world):
    s = world.services
    a_sales = world.principal("a.sales")
    before = s.tasks.get(a_sales, "T-CREATE")
    created = s.tasks.create(world.principal("b.sales"), task_id="T-CREATE", confirmed={"x": 1})
    assert created.state.tenant_id == "B"  # no "already exists" for a key B cannot see
    assert s.tasks.get(a_sales, "T-CREATE") == before


def test_listings_of_another_tenant_hold_only_its_own_rows(world):
    s = world.services
    for who, make in B_PRINCIPALS.items():
        intruder = make(world)
        rows = [
            *s.tasks.search(intruder, limit=1000).items,
            *s.knowledge.search(intruder, limit=1000).items,
            *s.approvals.search(intruder, limit=1000),
            *s.runs.search(intruder, limit=1000),
            *(
                # Exports and B's own memories record what B typed (filters, scope keys such as
                # task_id=Q42): B's own words, not A's data.
                entry
                for entry in (s.audit.search(intruder, limit=5000) if who == "b.root" else [])
                if entry.action != "audit.exported" and not entry.action.startswith("memory.")
            ),
            *s.approval_flow.queue(intruder),
        ]
        tenants = {getattr(r, "tenant_id", None) or r.state.tenant_id for r in rows}
        assert tenants <= {"B"}, (who, tenants)
        assert not leaked(world, _dump(rows)), (who, [r for r in rows if leaked(world, _dump([r]))])
        counts = s.tasks.status_counts(intruder)
        assert sum(counts.values()) == s.tasks.search(intruder, limit=1000).total >= 1


def test_a_memory_in_the_same_scope_key_as_another_tenants_stays_apart(world):
    s = world.services
    intruder = root_of("B", grants=("customer:C-ACME",))
    a_sales = world.principal("a.sales")
    before = s.memories.list_memories(a_sales, scope=MEMORY_SCOPE)
    mine = s.memories.create(
        intruder, scope=MEMORY_SCOPE, topic="customer_preferences", fact="B 的客戶偏好木箱"
    )
    assert s.memories.list_memories(a_sales, scope=MEMORY_SCOPE) == before
    assert [m.memory_id for m in s.memories.list_memories(intruder, scope=MEMORY_SCOPE)] == [
        mine.memory_id
    ]
    with pytest.raises(NotFound):
        s.memories.get(a_sales, mine.memory_id)
