"""`memdesk bench soak`: a random mix of imports, publications, revocations, runs and approvals
for N minutes on a throwaway store, then every invariant checked against the stored data.

Operations go through the same services the console and CLI use: corpus@1 imports (new tasks;
a publication is an import that adds version n+1 as approved and marks n superseded; a
revocation an import that marks a version revoked), each followed by the index sync the
importer triggers; runs enqueued and drained by the in-process worker; approval items decided
by a person with the required role. Domain refusals (a task that already has a run, an item of
an older decision) are counted, not hidden; anything else stops the soak.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from services import bootstrap
from services.agents.runs import ACTIVE
from services.bootstrap import Services
from services.core.errors import InvalidInput, MemdeskError
from services.db.models import Approval, DocumentVersion, Run, TaskRow
from services.db.models_knowledge import LegalHoldRow
from services.lab import invariants
from services.lab.bench_load import DEFAULT_PG_ADMIN, postgres_database, user_with_role
from services.lab.chroma_server import ChromaProcess
from services.settings import REPO_ROOT, Settings

GOLDEN = REPO_ROOT / "data" / "memory-demo.golden.json"
RESUMABLE = ("created", "waiting_input", "blocked", "failed")
WEIGHTS = {"import": 2, "publish": 2, "revoke": 1, "run": 6, "decide": 4, "hold": 1, "purge": 1}
# A purge looks this far ahead, so completed tasks and finished versions expire during a soak.
PURGE_AHEAD = timedelta(days=400)
GENERIC_SUPPLEMENT = "客戶來信確認規格不變，請接著處理。"


@dataclass
class SoakState:
    rng: random.Random
    scratch: Path
    supplements: dict[str, str]
    confirmed: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    done: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    tried: int = 0  # operations drawn, whatever became of them
    refusals: list[str] = field(default_factory=list)
    files: int = 0


def soak(
    settings: Settings,
    *,
    minutes: float,
    seed: int = 7,
    min_operations: int = 0,
    scale_out: bool = False,
    pg_admin_url: str = DEFAULT_PG_ADMIN,
) -> dict[str, Any]:
    """Embedded by default (SQLite + Chroma directory); `scale_out` uses a fresh PostgreSQL
    database and a Chroma server on a loopback port instead. The mix goes on past `minutes`
    until `min_operations` operations have been tried (a busy machine does fewer per minute)."""
    if minutes <= 0:
        raise ValueError("--minutes must be more than 0")
    with tempfile.TemporaryDirectory(prefix="memdesk-soak-") as scratch, ExitStack() as stack:
        update: dict[str, Any] = {
            "home": Path(scratch) / "home",
            "database_url": None,
            "chroma_url": None,
            "analyzer": "offline",
            "tenant_runs_per_minute": 1_000_000,
        }
        store = "sqlite file + chroma directory (embedded)"
        if scale_out:
            update["database_url"] = stack.enter_context(postgres_database(pg_admin_url))
            update["chroma_url"] = stack.enter_context(ChromaProcess(Path(scratch) / "chroma")).url
            store = "postgresql (fresh database) + chroma server on 127.0.0.1"
        services = bootstrap.build(settings.model_copy(update=update))
        try:
            return {
                "store": store,
                **_soak(
                    services,
                    Path(scratch),
                    minutes=minutes,
                    seed=seed,
                    min_operations=min_operations,
                ),
            }
        finally:
            services.close()


def _soak(
    services: Services, scratch: Path, *, minutes: float, seed: int, min_operations: int
) -> dict[str, Any]:
    bootstrap.seed_demo(services)
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    state = SoakState(
        rng=random.Random(seed),
        scratch=scratch,
        supplements={c["task_id"]: c["supplement"] for c in golden["cases"] if c["kind"] == "task"},
    )
    with services.db.read() as session:
        state.confirmed = {
            (t, k): dict(c)
            for t, k, c in session.execute(
                select(TaskRow.tenant_id, TaskRow.task_id, TaskRow.confirmed)
            )
        }
    operations: dict[str, Callable[[Services, SoakState], None]] = {
        "import": _import_task,
        "publish": _publish,
        "revoke": _revoke,
        "run": _run,
        "decide": _decide,
        "hold": _hold,
        "purge": _purge,
    }
    for tenant_id in ("A", "B"):  # finished document versions expire (and holds keep some)
        admin = _user_with_role_in(services, tenant_id, "admin")
        if admin is not None:
            services.retention.set_policy(
                services.directory.principal(admin), record_type="document", days=1
            )
    names, weights = list(WEIGHTS), list(WEIGHTS.values())
    started = time.monotonic()
    deadline = started + minutes * 60
    while time.monotonic() < deadline or state.tried < min_operations:
        state.tried += 1
        name = state.rng.choices(names, weights)[0]
        try:
            operations[name](services, state)
        except MemdeskError as exc:  # a refusal the product is meant to give; counted
            key = f"{name}: {type(exc).__name__}"
            state.refused[key] += 1
            if state.refused[key] <= 3:
                state.refusals.append(f"{key}: {exc}")
    _purge(services, state)  # one last purge, so the hold invariant always has purges to check
    elapsed = time.monotonic() - started
    return _report(services, state, minutes=minutes, elapsed=elapsed)


# ---- operations ---------------------------------------------------------------------------------
def _import_task(services: Services, state: SoakState) -> None:
    """A new task, cloned from one of the tenant's own, arrives through a corpus@1 import."""
    with services.db.read() as session:
        rows = session.scalars(select(TaskRow).where(TaskRow.tenant_id.in_(("A", "B")))).all()
        template = state.rng.choice(rows)
        task_id = f"{template.task_id}-S{state.done['import'] + 1:04d}"
        task = {
            "schema_version": "task-state@1",
            "tenant_id": template.tenant_id,
            "task_id": task_id,
            "revision": 1,
            "status": "waiting_input",
            "confirmed": dict(template.confirmed),
            "pending": list(template.pending) or ["lead_time"],
            "next_step": "retrieve",
            "evidence_ids": list(template.evidence_ids),
        }
        tenant = _tenant_record(session, template.tenant_id)
    _import(services, state, {"tenants": [tenant], "tasks": [task]})
    state.confirmed[(template.tenant_id, task_id)] = dict(template.confirmed)
    state.supplements.setdefault(task_id, state.supplements.get(template.task_id, ""))
    state.done["import"] += 1


def _publish(services: Services, state: SoakState) -> None:
    """A new approved version of a current SOP; the previous one becomes superseded."""
    with services.db.read() as session:
        current = session.scalars(
            select(DocumentVersion).where(
                DocumentVersion.status == "approved",
                DocumentVersion.doc_type == "sop",
                DocumentVersion.valid_to.is_(None),
            )
        ).all()
        if not current:
            return
        row = state.rng.choice(current)
        latest = max(
            session.scalars(
                select(DocumentVersion.version).where(
                    DocumentVersion.tenant_id == row.tenant_id,
                    DocumentVersion.document_id == row.document_id,
                )
            )
        )
        old = _document_record(row)
        new = {
            **old,
            "version": latest + 1,
            "status": "approved",
            "body": f"{row.body}\n修訂 {latest + 1}：內容經知識負責人複核後重新發布。",
        }
        old["status"] = "superseded"
        tenant = _tenant_record(session, row.tenant_id)
    _import(services, state, {"tenants": [tenant], "documents": [old, new]})
    state.done["publish"] += 1


def _revoke(services: Services, state: SoakState) -> None:
    """An approved or superseded version is withdrawn; its vectors must leave the index."""
    with services.db.read() as session:
        candidates = session.scalars(
            select(DocumentVersion).where(
                DocumentVersion.status.in_(("approved", "superseded")),
                DocumentVersion.document_id != "SOP-LEADTIME",  # keep Q42 answerable
            )
        ).all()
        if not candidates:
            return
        row = state.rng.choice(candidates)
        record = {**_document_record(row), "status": "revoked"}
        tenant = _tenant_record(session, row.tenant_id)
    _import(services, state, {"tenants": [tenant], "documents": [record]})
    state.done["revoke"] += 1


def _run(services: Services, state: SoakState) -> None:
    with services.db.read() as session:
        busy = set(
            session.execute(select(Run.tenant_id, Run.task_id).where(Run.status.in_(ACTIVE)))
        )
        tasks = [
            (t, k)
            for t, k in session.execute(
                select(TaskRow.tenant_id, TaskRow.task_id).where(TaskRow.status.in_(RESUMABLE))
            )
            if (t, k) not in busy
        ]
    if tasks:
        _resume(services, state, *state.rng.choice(tasks))


def _resume(services: Services, state: SoakState, tenant_id: str, task_id: str) -> None:
    with services.db.read() as session:
        task = session.get(TaskRow, (tenant_id, task_id))
        customer = task.customer_id if task is not None else None
        user_id = user_with_role(session, tenant_id, "sales", customer=customer)
    if user_id is None:
        return
    principal = services.directory.principal(user_id)
    supplement = state.supplements.get(task_id) or GENERIC_SUPPLEMENT
    queued = services.runs.enqueue(principal, task_id, supplement=supplement)
    services.worker.drain(queued.run_id)
    state.done["run"] += 1


def _decide(services: Services, state: SoakState) -> None:
    """A person opens their approval queue (their role, latest decisions only) and decides."""
    with services.db.read() as session:
        pairs = session.execute(
            select(Approval.tenant_id, Approval.required_role, TaskRow.customer_id)
            .join(
                TaskRow,
                (TaskRow.tenant_id == Approval.tenant_id) & (TaskRow.task_id == Approval.task_id),
            )
            .where(Approval.status == "pending")
            .distinct()
        ).all()
        if not pairs:
            return
        tenant_id, role, customer = state.rng.choice(sorted(pairs, key=str))
        user_id = user_with_role(session, tenant_id, role, customer=customer)
    if user_id is None:
        state.refused["decide: nobody has the role"] += 1
        return
    queue = services.approval_flow.queue(services.directory.principal(user_id))
    if not queue:
        return
    item = state.rng.choice(queue)
    approval_id, task_id = item.id, item.task_id
    approve = state.rng.random() < 0.8
    try:
        services.approval_flow.decide(
            services.directory.principal(user_id),
            approval_id,
            approve=approve,
            comment="soak" if approve else "soak: please revise",
        )
    except InvalidInput as exc:
        if "resume the task" not in str(exc):
            raise
        # A publication or revocation since the draft: the product refuses to approve stale
        # evidence and asks for a new draft, which is what a person does next.
        state.refused["decide: evidence changed since the draft (task resumed)"] += 1
        _resume(services, state, tenant_id, task_id)
        return
    state.done["approve" if approve else "reject"] += 1


def _hold(services: Services, state: SoakState) -> None:
    """An admin puts a completed task or a finished document version under legal hold, or
    lifts one of the holds set earlier (the purge must never remove what is held)."""
    holds = services.retention
    with services.db.read() as session:
        active = [
            (row.id, row.tenant_id)
            for row in session.scalars(select(LegalHoldRow).where(LegalHoldRow.lifted_at.is_(None)))
        ]
    if active and state.rng.random() < 0.3:
        hold_id, tenant_id = state.rng.choice(active)
        admin = _user_with_role_in(services, tenant_id, "admin")
        if admin is not None:
            holds.lift_hold(services.directory.principal(admin), hold_id, reason="soak: lifted")
            state.done["hold_lifted"] += 1
        return
    with services.db.read() as session:
        done = session.execute(
            select(TaskRow.tenant_id, TaskRow.task_id).where(TaskRow.status == "completed")
        ).all()
        finished = session.execute(
            select(
                DocumentVersion.tenant_id, DocumentVersion.document_id, DocumentVersion.version
            ).where(DocumentVersion.status.in_(("superseded", "revoked", "rejected")))
        ).all()
    targets = [("task", t, k) for t, k in done] + [
        ("document", t, f"{d}@{v}") for t, d, v in finished
    ]
    if not targets:
        return
    record_type, tenant_id, record_id = state.rng.choice(targets)
    with services.db.read() as session:
        admin = user_with_role(session, tenant_id, "admin")
    if admin is None:
        return
    holds.set_hold(
        services.directory.principal(admin),
        record_type=record_type,
        record_id=record_id,
        reason="soak: litigation",
    )
    state.done["hold_set"] += 1


def _purge(services: Services, state: SoakState) -> None:
    """purge-expired as if run a year from now: completed tasks and finished versions go,
    held ones stay."""
    report = services.retention.purge_expired(
        actor="system:soak", now=services.clock.now() + PURGE_AHEAD
    )
    for key in report.removed.get("task", []):
        tenant_id, _, task_id = key.partition("/")
        state.confirmed.pop((tenant_id, task_id), None)
    state.done["purge"] += 1
    state.done["purged_records"] += sum(len(v) for v in report.removed.values())


# ---- helpers ----------------------------------------------------------------------------------
def _import(services: Services, state: SoakState, parts: dict[str, Any]) -> None:
    state.files += 1
    path = state.scratch / f"soak-{state.files:05d}.json"
    corpus = {
        "schema_version": "corpus@1",
        "tenants": [],
        "users": [],
        "documents": [],
        "tasks": [],
    }
    path.write_text(json.dumps({**corpus, **parts}, ensure_ascii=False), encoding="utf-8")
    services.importer.import_file(path, actor="system:soak")


def _tenant_record(session: Any, tenant_id: str) -> dict[str, str]:
    from services.db.models import Tenant

    tenant = session.get(Tenant, tenant_id)
    return {"tenant_id": tenant_id, "name": tenant.name if tenant else tenant_id}


def _document_record(row: DocumentVersion) -> dict[str, Any]:
    record = {
        "document_id": row.document_id,
        "version": row.version,
        "tenant_id": row.tenant_id,
        "doc_type": row.doc_type,
        "knowledge_class": row.knowledge_class,
        "status": row.status,
        "valid_from": row.valid_from.isoformat(),
        "valid_to": row.valid_to.isoformat() if row.valid_to else None,
        "acl": list(row.acl),
        "language": row.language,
        "title": row.title,
        "body": row.body,
        "customer_id": row.customer_id,
        "approved_by": row.approved_by,
    }
    return {k: v for k, v in record.items() if v is not None}


def _user_with_role_in(services: Services, tenant_id: str, role: str) -> str | None:
    with services.db.read() as session:
        return user_with_role(session, tenant_id, role)


def _report(
    services: Services, state: SoakState, *, minutes: float, elapsed: float
) -> dict[str, Any]:
    checks = [
        invariants.audit_complete(services.db),
        invariants.vectors_match_sql(services.db, services.index),
        invariants.forbidden_evidence(services.db),
        invariants.revisions_consistent(services.db),
        invariants.confirmed_kept(services.db, state.confirmed),
        invariants.supplements_merged_once(services.db),
        invariants.runs_settled(services.db),
        invariants.duplicate_approvals(services.db),
        invariants.holds_kept(services.db),
        invariants.index_covers_approved(services.db, services.index),
        invariants.audit_chain_intact(services.db),
    ]
    with services.db.read() as session:
        runs = Counter(session.scalars(select(Run.status)))
        unsuccessful = Counter(
            str(error).split(":", 1)[0][:80]
            for error in session.scalars(select(Run.error).where(Run.status != "succeeded"))
        )
        tasks = Counter(session.scalars(select(TaskRow.status)))
        documents = Counter(session.scalars(select(DocumentVersion.status)))
    return {
        "minutes": minutes,
        "elapsed_s": round(elapsed, 1),
        "embedding_model": services.index.embedder.name,
        "operations": dict(sorted(state.done.items())),
        "operations_total": sum(state.done.values()),
        "operations_tried": state.tried,
        "refused": dict(sorted(state.refused.items())),
        "refused_examples": state.refusals,
        "runs_by_status": dict(sorted(runs.items())),
        "unsuccessful_runs_by_reason": dict(unsuccessful.most_common(5)),
        "tasks_by_status": dict(sorted(tasks.items())),
        "documents_by_status": dict(sorted(documents.items())),
        "invariants_ok": all(check.ok for check in checks),
        "checks": {check.name: check.model_dump(exclude={"name"}) for check in checks},
    }
