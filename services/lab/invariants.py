"""Invariants checked against the stored data after a load test or a soak (never assumed).

Each check reads SQL (and, for vectors, the index) directly and counts violations, with a few
examples, so `memdesk bench load|soak` report what actually holds. The evidence check does not
reuse retrieval's own eligibility code: it re-derives tenant, status, validity, ACL, hash and
quote from the rows, so a bug in retrieval cannot vouch for itself.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from services.agents.runs import TERMINAL
from services.contracts.evidence_id import parse_evidence_id
from services.contracts.task_state import WORKING, TaskStatus
from services.core.clock import as_utc
from services.db.engine import Database
from services.db.models import (
    Approval,
    AuditEntry,
    DocumentVersion,
    IndexChunk,
    Run,
    RunEvent,
    TaskCheckpoint,
    TaskEvent,
    TaskRow,
    User,
)
from services.db.models_knowledge import LegalHoldRow
from services.db.models_memory import MemoryRow
from services.records.audit import verify_chain
from services.records.knowledge import content_hash
from services.retrieval.index import IndexManager
from services.retrieval.records import chunk_records, indexable_documents

EXAMPLES = 5
# Run events that runs.py also writes to the audit log (kept in step with runs._AUDITED).
AUDITED_RUN_EVENTS = (
    "queued",
    "retrieval",
    "memories_recalled",
    "model_call",
    "cancel_requested",
    "dead_lettered",
)
IN_FLIGHT = {s.value for s in (*WORKING, TaskStatus.retrying)}


class Check(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    checked: int
    violations: int
    examples: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.violations == 0


def _check(name: str, checked: int, problems: list[str]) -> Check:
    return Check(name=name, checked=checked, violations=len(problems), examples=problems[:EXAMPLES])


# ---- tasks ------------------------------------------------------------------------------------
def revisions_consistent(db: Database) -> Check:
    """Every revision of a task, from the one it was created or imported at up to the current
    one, has exactly one event and one checkpoint: no write was lost, applied twice or left
    half-written."""
    problems: list[str] = []
    with db.read() as session:
        tasks = session.execute(select(TaskRow.tenant_id, TaskRow.task_id, TaskRow.revision)).all()
        events = _revisions(session, TaskEvent)
        checkpoints = _revisions(session, TaskCheckpoint)
    for tenant_id, task_id, revision in tasks:
        for label, seen in (("events", events), ("checkpoints", checkpoints)):
            got = sorted(seen.get((tenant_id, task_id), []))
            # A task may be imported at any revision; from there on every write is recorded.
            if not got or got != list(range(got[0], revision + 1)):
                problems.append(f"{tenant_id}/{task_id} r{revision}: {label} {_short(got)}")
    return _check("revisions_consistent", len(tasks), problems)


def confirmed_kept(db: Database, expected: dict[tuple[str, str], dict[str, Any]]) -> Check:
    """Fields confirmed before the run are still there with the same value (a lost update would
    silently overwrite or drop one)."""
    problems: list[str] = []
    with db.read() as session:
        rows = {
            (t, k): confirmed
            for t, k, confirmed in session.execute(
                select(TaskRow.tenant_id, TaskRow.task_id, TaskRow.confirmed)
            )
        }
    for key, fields in expected.items():
        stored = rows.get(key)
        if stored is None:
            problems.append(f"{key[0]}/{key[1]}: task missing")
            continue
        changed = [f for f, v in fields.items() if stored.get(f) != v]
        if changed:
            problems.append(f"{key[0]}/{key[1]}: confirmed {changed} changed or lost")
    return _check("confirmed_kept", len(expected), problems)


def supplements_merged_once(db: Database) -> Check:
    """A run's supplement is merged into its task exactly once (no duplicated side effect)."""
    problems: list[str] = []
    with db.read() as session:
        runs = session.execute(
            select(Run.run_id, Run.tenant_id, Run.task_id).where(
                Run.supplement.is_not(None), Run.status == "succeeded"
            )
        ).all()
        evidence = {
            (t, k): ids
            for t, k, ids in session.execute(
                select(TaskRow.tenant_id, TaskRow.task_id, TaskRow.evidence_ids)
            )
        }
        merged = Counter(
            session.scalars(select(RunEvent.run_id).where(RunEvent.kind == "supplement_merged"))
        )
    for run_id, tenant_id, task_id in runs:
        marker = f"supplement:{run_id}"
        ids = evidence.get((tenant_id, task_id))
        if ids is not None and ids.count(marker) > 1:
            problems.append(f"{run_id}: marker {ids.count(marker)}x on {task_id}")
        if merged[run_id] > 1:
            problems.append(f"{run_id}: supplement merged {merged[run_id]}x")
    return _check("supplements_merged_once", len(runs), problems)


# ---- runs and approvals ----------------------------------------------------------------------
def runs_settled(db: Database) -> Check:
    """Every run is finished and its task rests in a state for people (not mid-way)."""
    problems: list[str] = []
    with db.read() as session:
        runs = session.execute(select(Run.run_id, Run.status, Run.tenant_id, Run.task_id)).all()
        tasks = {
            (t, k): s
            for t, k, s in session.execute(
                select(TaskRow.tenant_id, TaskRow.task_id, TaskRow.status)
            )
        }
    for run_id, status, tenant_id, task_id in runs:
        if status not in TERMINAL:
            problems.append(f"{run_id}: still {status}")
        elif tasks.get((tenant_id, task_id)) in IN_FLIGHT:
            problems.append(f"{run_id}: task {task_id} left {tasks[(tenant_id, task_id)]}")
    return _check("runs_settled", len(runs), problems)


def duplicate_approvals(db: Database) -> Check:
    """No approval key twice, no item decided twice, and one decision's approvals are requested
    by one run only."""
    problems: list[str] = []
    with db.read() as session:
        rows = session.execute(
            select(
                Approval.tenant_id,
                Approval.task_id,
                Approval.decision_version,
                Approval.item_key,
                Approval.run_id,
            )
        ).all()
        decided = Counter(
            session.execute(
                select(AuditEntry.tenant_id, AuditEntry.subject_id).where(
                    AuditEntry.action.in_(("approval.approved", "approval.rejected"))
                )
            ).all()
        )
        requested = Counter(
            session.execute(
                select(AuditEntry.tenant_id, AuditEntry.subject_id).where(
                    AuditEntry.action == "approval.requested"
                )
            ).all()
        )
    keys = Counter((t, k, v, i) for t, k, v, i, _ in rows)
    problems += [f"{k[0]}/{k[1]} v{k[2]} {k[3]}: {n} rows" for k, n in keys.items() if n > 1]
    runs_per_decision: dict[tuple[str, str, int], set[str | None]] = defaultdict(set)
    for tenant_id, task_id, version, _item, run_id in rows:
        runs_per_decision[(tenant_id, task_id, version)].add(run_id)
    problems += [
        f"{t}/{k} v{v}: requested by runs {sorted(map(str, r))}"
        for (t, k, v), r in runs_per_decision.items()
        if len(r) > 1
    ]
    for label, counts in (("decided", decided), ("requested", requested)):
        problems += [f"{t}/{subject}: {label} {n}x" for (t, subject), n in counts.items() if n > 1]
    return _check("duplicate_approvals", len(rows), problems)


# ---- evidence ---------------------------------------------------------------------------------
def forbidden_evidence(db: Database) -> Check:
    """Everything a run handed to analysis, and everything its decision cites, was readable by
    the requester and usable when the run ran: same tenant, approved (not superseded or revoked
    before the run started), valid at the run's as_of, ACL matched, hash and quote intact."""
    problems: list[str] = []
    checked = 0
    with db.read() as session:
        users = {
            u: (t, u, set(roles or []), set(grants or []))
            for u, t, roles, grants in session.execute(
                select(User.user_id, User.tenant_id, User.roles, User.grants)
            )
        }
        docs = {
            (row.tenant_id, row.document_id, row.version): row
            for row in session.scalars(select(DocumentVersion))
        }
        pools = _pools(session)
        runs = session.execute(
            select(
                Run.run_id,
                Run.tenant_id,
                Run.requested_by,
                Run.as_of,
                Run.started_at,
                Run.created_at,
                Run.decision,
            )
        ).all()
    for run_id, tenant_id, requester, as_of, started_at, created_at, decision in runs:
        pool = pools.get(run_id, {})
        cited = {
            evidence_id: None
            for claim in (decision or {}).get("claims", [])
            for evidence_id in claim.get("evidence_ids", [])
        }
        for evidence_id in {**cited, **pool}:
            checked += 1
            if evidence_id not in pool:
                problems.append(f"{run_id}: cites {evidence_id}, not retrieved in the run")
                continue
            reason = _why_forbidden(
                pool[evidence_id],
                docs,
                users.get(requester),
                tenant_id=tenant_id,
                as_of=as_of or as_utc(created_at).date(),
                since=as_utc(started_at or created_at),
            )
            if reason:
                problems.append(f"{run_id}: {evidence_id} {reason}")
    return _check("forbidden_evidence", checked, problems)


def _why_forbidden(
    item: dict[str, Any],
    docs: dict[tuple[str, str, int], DocumentVersion],
    user: tuple[str, str, set[str], set[str]] | None,
    *,
    tenant_id: str,
    as_of: date,
    since: datetime,
) -> str | None:
    parsed = parse_evidence_id(str(item.get("evidence_id", "")))
    if parsed is None:
        return "is not a citation"
    document_id, version, start, end = parsed
    row = docs.get((tenant_id, document_id, version))
    if row is None or user is None or user[0] != tenant_id:
        return "is not in the requester's tenant"
    changed_before = as_utc(row.status_changed_at) <= since
    if row.status != "approved" and (
        row.status not in ("superseded", "revoked") or changed_before or row.approved_at is None
    ):
        return f"was {row.status} when the run ran"
    if row.valid_from > as_of or (row.valid_to is not None and row.valid_to <= as_of):
        return f"was not valid on {as_of}"
    _tenant, user_id, roles, grants = user
    allowed = {"tenant", f"user:{user_id}", *(f"role:{r}" for r in roles), *grants}
    if not set(row.acl or []) & allowed:
        return f"ACL {row.acl} does not match {user_id}"
    if row.content_hash != item.get("content_hash") or content_hash(row.body) != row.content_hash:
        return "content hash differs from the stored body"
    if row.body[start:end] != item.get("quote"):
        return "quote does not match the stored body"
    return None


# ---- index ----------------------------------------------------------------------------------
def vectors_match_sql(db: Database, index: IndexManager) -> Check:
    """The active collection in the vector store holds exactly the chunk ids SQL lists for the
    active index version (no orphan, none missing), and only approved versions are indexed
    (a revoked or superseded version's vectors are gone)."""
    active = index.active()
    if active is None:
        return _check("vectors_match_sql", 0, ["no active index version"])
    stored = {record.id for record in index.store.get(active.collection)}
    with db.read() as session:
        listed = set(
            session.scalars(
                select(IndexChunk.chunk_id).where(IndexChunk.index_version == active.index_version)
            )
        )
        indexed = session.execute(
            select(
                DocumentVersion.tenant_id,
                DocumentVersion.document_id,
                DocumentVersion.version,
                DocumentVersion.status,
            )
            .join(
                IndexChunk,
                (IndexChunk.tenant_id == DocumentVersion.tenant_id)
                & (IndexChunk.document_id == DocumentVersion.document_id)
                & (IndexChunk.version == DocumentVersion.version),
            )
            .where(IndexChunk.index_version == active.index_version)
            .distinct()
        ).all()
    problems = [f"orphan vector {chunk_id}" for chunk_id in sorted(stored - listed)]
    problems += [f"missing vector {chunk_id}" for chunk_id in sorted(listed - stored)]
    problems += [
        f"{t}/{d}@{v} is {status} but still indexed"
        for t, d, v, status in indexed
        if status != "approved"
    ]
    return _check("vectors_match_sql", len(stored | listed), problems)


# ---- audit -------------------------------------------------------------------------------------
def audit_complete(db: Database) -> Check:
    """Every task write, audited run event, approval request and decision, and document
    status change has its audit entry."""
    problems: list[str] = []
    with db.read() as session:
        task_writes = Counter(
            (t, k) for t, k in session.execute(select(TaskEvent.tenant_id, TaskEvent.task_id))
        )
        task_audits = Counter(
            (t, s)
            for t, s in session.execute(
                select(AuditEntry.tenant_id, AuditEntry.subject_id).where(
                    AuditEntry.subject_type == "task",
                    AuditEntry.action.like("task.%"),
                    AuditEntry.action != "task.purged",
                )
            )
        )
        run_events = Counter(
            session.scalars(select(RunEvent.run_id).where(RunEvent.kind.in_(AUDITED_RUN_EVENTS)))
        )
        run_audits = Counter(
            session.scalars(
                select(AuditEntry.subject_id).where(
                    AuditEntry.subject_type == "run",
                    AuditEntry.action.in_([f"run.{k}" for k in AUDITED_RUN_EVENTS]),
                )
            )
        )
        approvals = session.execute(
            select(
                Approval.tenant_id,
                Approval.task_id,
                Approval.decision_version,
                Approval.item_key,
                Approval.status,
            )
        ).all()
        approval_audits = Counter(
            (t, s, a)
            for t, s, a in session.execute(
                select(AuditEntry.tenant_id, AuditEntry.subject_id, AuditEntry.action).where(
                    AuditEntry.subject_type == "approval"
                )
            )
        )
        changed_docs = session.execute(
            select(
                DocumentVersion.tenant_id,
                DocumentVersion.document_id,
                DocumentVersion.version,
                DocumentVersion.status,
            ).where(DocumentVersion.status_changed_at > DocumentVersion.created_at)
        ).all()
        doc_audits = {
            (t, s, a)
            for t, s, a in session.execute(
                select(AuditEntry.tenant_id, AuditEntry.subject_id, AuditEntry.action).where(
                    AuditEntry.subject_type == "document"
                )
            )
        }
    for key, n in task_writes.items():
        if task_audits.get(key, 0) < n:
            problems.append(
                f"task {key[0]}/{key[1]}: {n} writes, {task_audits.get(key, 0)} audited"
            )
    for run_id, n in run_events.items():
        if run_audits.get(run_id, 0) < n:
            problems.append(
                f"run {run_id}: {n} audited events, {run_audits.get(run_id, 0)} in the log"
            )
    for tenant_id, task_id, version, item, status in approvals:
        subject = f"{task_id}:{version}:{item}"
        if not approval_audits.get((tenant_id, subject, "approval.requested")):
            problems.append(f"approval {tenant_id}/{subject}: request not audited")
        if status in ("approved", "rejected") and not approval_audits.get(
            (tenant_id, subject, f"approval.{status}")
        ):
            problems.append(f"approval {tenant_id}/{subject}: decision not audited")
    for tenant_id, document_id, version, status in changed_docs:
        if (tenant_id, f"{document_id}@{version}", f"document.{status}") not in doc_audits:
            problems.append(f"document {tenant_id}/{document_id}@{version}: {status} not audited")
    checked = (
        sum(task_writes.values()) + sum(run_events.values()) + len(approvals) + len(changed_docs)
    )
    return _check("audit_complete", checked, problems)


# ---- helpers -------------------------------------------------------------------------------------
def _revisions(session: Session, table: Any) -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = defaultdict(list)
    for tenant_id, task_id, revision in session.execute(
        select(table.tenant_id, table.task_id, table.revision)
    ):
        found[(tenant_id, task_id)].append(revision)
    return found


def _pools(session: Session) -> dict[str, dict[str, dict[str, Any]]]:
    """Each run's last evidence pool (what analysis was given), by evidence id."""
    last: dict[str, int] = dict(
        session.execute(
            select(RunEvent.run_id, func.max(RunEvent.id))
            .where(RunEvent.kind == "evidence")
            .group_by(RunEvent.run_id)
        ).all()
    )
    pools: dict[str, dict[str, dict[str, Any]]] = {}
    for run_id, payload in session.execute(
        select(RunEvent.run_id, RunEvent.payload).where(RunEvent.id.in_(list(last.values())))
    ):
        pools[run_id] = {item["evidence_id"]: item for item in payload.get("evidence", [])}
    return pools


def _short(values: list[int]) -> str:
    return str(values if len(values) <= 8 else [*values[:4], "…", *values[-2:]])


# ---- holds, index coverage, audit chain ---------------------------------------------------------
def holds_kept(db: Database) -> Check:
    """No held record was ever deleted: every record with an active hold still exists, and no
    purge in the audit log removed a record while a hold on it (or on its whole document) was
    active at that moment."""
    problems: list[str] = []
    with db.read() as session:
        holds = session.execute(
            select(
                LegalHoldRow.tenant_id,
                LegalHoldRow.record_type,
                LegalHoldRow.record_id,
                LegalHoldRow.set_at,
                LegalHoldRow.lifted_at,
            )
        ).all()
        purges = session.execute(
            select(
                AuditEntry.tenant_id, AuditEntry.subject_type, AuditEntry.subject_id, AuditEntry.at
            ).where(AuditEntry.action.in_(("task.purged", "document.purged", "memory.purged")))
        ).all()
        tasks = set(session.execute(select(TaskRow.tenant_id, TaskRow.task_id)).tuples())
        versions = set(
            session.execute(
                select(
                    DocumentVersion.tenant_id, DocumentVersion.document_id, DocumentVersion.version
                )
            ).tuples()
        )
        memories = set(session.execute(select(MemoryRow.tenant_id, MemoryRow.memory_id)).tuples())
    documents = {(t, d) for t, d, _ in versions}
    for tenant_id, record_type, record_id, _set_at, lifted_at in holds:
        if lifted_at is not None:
            continue
        if record_type == "task":
            exists = (tenant_id, record_id) in tasks
        elif record_type == "memory":
            exists = (tenant_id, record_id) in memories
        else:
            document_id, _, version = record_id.partition("@")
            exists = (
                (tenant_id, document_id, int(version)) in versions
                if version.isdigit()
                else (tenant_id, document_id) in documents
            )
        if not exists:
            problems.append(f"active hold on missing {record_type} {tenant_id}/{record_id}")
    for tenant_id, subject_type, subject_id, at in purges:
        covering = (
            {subject_id, subject_id.partition("@")[0]}
            if subject_type == "document"
            else {subject_id}
        )
        for h_tenant, h_type, h_record, set_at, lifted_at in holds:
            if (h_tenant, h_type) != (tenant_id, subject_type) or h_record not in covering:
                continue
            if as_utc(set_at) <= as_utc(at) and (
                lifted_at is None or as_utc(lifted_at) > as_utc(at)
            ):
                problems.append(f"{subject_type} {tenant_id}/{subject_id} purged under a hold")
    return _check("holds_kept", len(holds) + len(purges), problems)


def index_covers_approved(db: Database, index: IndexManager) -> Check:
    """Every approved version is searchable: the active index holds all of its chunks."""
    active = index.active()
    if active is None:
        return _check("index_covers_approved", 0, ["no active index version"])
    problems: list[str] = []
    with db.read() as session:
        held = Counter(
            (t, d, v)
            for t, d, v in session.execute(
                select(IndexChunk.tenant_id, IndexChunk.document_id, IndexChunk.version).where(
                    IndexChunk.index_version == active.index_version
                )
            )
        )
        approved = indexable_documents(session)
    for document in approved:
        key = (document.tenant_id, document.document_id, document.version)
        wanted = len(chunk_records(document))
        if held.get(key, 0) != wanted:
            problems.append(
                f"{key[0]}/{key[1]}@{key[2]} approved: {held.get(key, 0)} of {wanted} chunks"
            )
    return _check("index_covers_approved", len(approved), problems)


def audit_chain_intact(db: Database) -> Check:
    """Every tenant's audit chain verifies from its first entry to its head."""
    report = verify_chain(db)
    problems = [
        f"{b.tenant_id}: seq {b.seq} (entry {b.entry_id}): {b.problem}" for b in report.broken
    ]
    return _check("audit_chain_intact", report.entries, problems)
