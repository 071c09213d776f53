"""`memdesk bench load`: many tenants' tasks resumed at once, scale-out and embedded, with proof.

Scale-out: a fresh PostgreSQL database created for the run, a Chroma server started on a
loopback port, N `memdesk worker` processes claiming from the SQL queue. Embedded: the same
tasks on SQLite + an embedded Chroma directory with one in-process worker. Both load the same
synthetic corpus (tenant A of the demo corpus cloned per tenant, each tenant's bodies marked so
a cross-tenant citation cannot pass the hash check) and resume every task once with its golden
supplement. Afterwards two people race to approve every approval item, and the invariants in
services/invariants.py are checked against the stored rows. The user's own store is never
touched.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from services import bootstrap
from services.agents.runs import ACTIVE
from services.bootstrap import Services
from services.core.clock import as_utc
from services.core.errors import MemdeskError
from services.core.policy import Permission, roles_with
from services.db.models import Approval, Run, RunEvent, TaskRow, User
from services.db.models_memory import MemoryOfferRow
from services.lab import invariants
from services.lab.chroma_server import ChromaProcess
from services.settings import REPO_ROOT, Settings

AS_OF = date(2026, 11, 29)  # the demo golden set's as_of
TEMPLATE_TENANT = "A"
GOLDEN = REPO_ROOT / "data" / "memory-demo.golden.json"
DEFAULT_PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
RUN_DEADLINE_S = 3600.0
READY_DEADLINE_S = 300.0  # a worker's start: imports, connections, warm-up
# The per-tenant rate limit is a policy, not capacity: the bench lifts it to measure capacity.
BENCH_RUNS_PER_MINUTE = 1_000_000


@dataclass(frozen=True)
class PlannedRun:
    tenant_id: str
    task_id: str
    user_id: str
    supplement: str | None


@dataclass(frozen=True)
class Workload:
    corpus: dict[str, Any]
    plan: list[PlannedRun]
    confirmed: dict[tuple[str, str], dict[str, Any]]


# ---- the synthetic workload ------------------------------------------------------------------
def workload(settings: Settings, *, tasks: int, tenants: int) -> Workload:
    """Tenant A of the demo corpus cloned `tenants` times; `tasks` tasks cycling through A's."""
    demo = json.loads(settings.demo_corpus.read_text(encoding="utf-8"))
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    cases = {c["task_id"]: c for c in golden["cases"] if c["kind"] == "task"}
    users = [u for u in demo["users"] if u["tenant_id"] == TEMPLATE_TENANT]
    documents = [d for d in demo["documents"] if d["tenant_id"] == TEMPLATE_TENANT]
    templates = [t for t in demo["tasks"] if t["tenant_id"] == TEMPLATE_TENANT]
    corpus: dict[str, Any] = {
        "schema_version": "corpus@1",
        "tenants": [],
        "users": [],
        "documents": [],
        "tasks": [],
    }
    plan: list[PlannedRun] = []
    confirmed: dict[tuple[str, str], dict[str, Any]] = {}
    for t in range(tenants):
        tenant_id, prefix = f"T{t + 1:02d}", f"t{t + 1:02d}"

        def user(user_id: str, prefix: str = prefix) -> str:
            return f"{prefix}.{user_id.split('.', 1)[1]}" if user_id.startswith("a.") else user_id

        corpus["tenants"].append({"tenant_id": tenant_id, "name": f"Load tenant {tenant_id}"})
        corpus["users"] += [
            {**u, "user_id": user(u["user_id"]), "tenant_id": tenant_id, "email": None}
            for u in users
        ]
        for d in documents:
            corpus["documents"].append(
                {
                    **d,
                    "tenant_id": tenant_id,
                    # A tenant mark at the end: offsets stay, hashes differ between tenants.
                    "body": f"{d['body']}\n\n（{tenant_id}）",
                    "acl": [
                        f"user:{user(a[5:])}" if a.startswith("user:") else a for a in d["acl"]
                    ],
                    "approved_by": user(d["approved_by"]) if d.get("approved_by") else None,
                }
            )
        share = tasks // tenants + (1 if t < tasks % tenants else 0)
        for n in range(share):
            template = templates[n % len(templates)]
            task_id = f"{template['task_id']}-{n:04d}"
            case = cases.get(template["task_id"], {})
            corpus["tasks"].append({**template, "tenant_id": tenant_id, "task_id": task_id})
            plan.append(
                PlannedRun(
                    tenant_id=tenant_id,
                    task_id=task_id,
                    user_id=user(case.get("user_id", "a.sales")),
                    supplement=case.get("supplement"),
                )
            )
            confirmed[(tenant_id, task_id)] = dict(template["confirmed"])
    for key in ("tenants", "users", "documents", "tasks"):
        corpus[key] = [{k: v for k, v in item.items() if v is not None} for item in corpus[key]]
    return Workload(corpus=corpus, plan=plan, confirmed=confirmed)


# ---- the benchmark -----------------------------------------------------------------------------
def load(
    settings: Settings,
    *,
    tasks: int,
    tenants: int,
    workers: int,
    embedded: bool = True,
    pg_admin_url: str = DEFAULT_PG_ADMIN,
) -> dict[str, Any]:
    if tasks < 1 or tenants < 1 or workers < 1:
        raise ValueError("--tasks, --tenants and --workers must be at least 1")
    work = workload(settings, tasks=tasks, tenants=min(tenants, tasks))
    base = settings.model_copy(
        update={
            "analyzer": "offline",
            "tenant_runs_per_minute": BENCH_RUNS_PER_MINUTE,
            "chroma_url": None,
            "database_url": None,
        }
    )
    with tempfile.TemporaryDirectory(prefix="memdesk-load-") as scratch:
        root = Path(scratch)
        corpus_file = root / "corpus.json"
        corpus_file.write_text(json.dumps(work.corpus, ensure_ascii=False), encoding="utf-8")
        with (
            postgres_database(pg_admin_url) as database_url,
            ChromaProcess(root / "chroma") as chroma,
        ):
            scale = base.model_copy(
                update={
                    "home": root / "scale-home",
                    "database_url": database_url,
                    "chroma_url": chroma.url,
                }
            )
            result = _measure(scale, work, corpus_file, workers=workers)
        result = {
            "mode": "scale-out",
            "database": "postgresql (fresh database)",
            "vector_store": "chroma server on 127.0.0.1",
            "workers": workers,
            **result,
        }
        if embedded:
            local = base.model_copy(update={"home": root / "embedded-home"})
            result["embedded"] = {
                "mode": "embedded",
                "database": "sqlite file",
                "vector_store": "chroma directory (embedded)",
                "workers": 1,
                **_measure(local, work, corpus_file, workers=None),
            }
    return result


def _measure(
    settings: Settings, work: Workload, corpus_file: Path, *, workers: int | None
) -> dict[str, Any]:
    services = bootstrap.build(settings)
    try:
        started = time.perf_counter()
        bootstrap.initialise(services)
        services.importer.import_file(corpus_file, actor="system:bench")
        services.index.sync()
        setup_s = time.perf_counter() - started
        # Both ways start warm, as a long-lived worker runs: the embedded worker in this
        # process, or every scale-out worker ready (warmed up, polling an empty queue).
        with _workers(settings, workers) as processes:
            if processes is None:
                bootstrap.warm_up(services)
            started = time.perf_counter()
            for planned in work.plan:
                services.runs.enqueue(
                    services.directory.principal(planned.user_id),
                    planned.task_id,
                    supplement=planned.supplement,
                    as_of=AS_OF,
                )
            enqueue_s = time.perf_counter() - started
            started = time.perf_counter()
            if processes is None:
                _work_in_process(services)
            else:
                _wait_for_runs(services, processes)
            work_s = time.perf_counter() - started
        numbers = _run_numbers(services)
        decisions = _race_approvals(services)
        return {
            "tenants": len(work.corpus["tenants"]),
            "embedding_model": services.index.embedder.name,
            "analyzer": services.supervisor.analyzer.name,
            "setup_s": round(setup_s, 2),
            "enqueue_s": round(enqueue_s, 2),
            "work_wall_s": round(work_s, 2),
            **numbers,
            **decisions,
            **_checks(services, work),
        }
    finally:
        services.close()


def _work_in_process(services: Services) -> None:
    """The embedded default: one worker in this process until nothing is queued or running."""
    deadline = time.monotonic() + RUN_DEADLINE_S
    while _active(services) and time.monotonic() < deadline:
        if services.worker.run_once() is None:
            time.sleep(0.05)  # only retries waiting out their backoff remain


@dataclass
class _Workers:
    processes: list[subprocess.Popen[bytes]]
    logs: list[Path]

    def tails(self) -> str:
        return "\n".join(log.read_text(errors="replace")[-2000:] for log in self.logs)


@contextmanager
def _workers(settings: Settings, count: int | None) -> Iterator[_Workers | None]:
    """`count` `memdesk worker` processes, yielded once each says it is ready (None: embedded)."""
    if count is None:
        yield None
        return
    env = {
        **os.environ,
        "MEMDESK_HOME": str(settings.home),
        "MEMDESK_DATABASE_URL": str(settings.database_url),
        "MEMDESK_CHROMA_URL": str(settings.chroma_url),
        "MEMDESK_EMBEDDING_BACKEND": settings.embedding_backend,
        "MEMDESK_ANALYZER": "offline",
        "MEMDESK_TENANT_RUNS_PER_MINUTE": str(settings.tenant_runs_per_minute),
    }
    logs = [settings.resolved_home / f"worker-{i}.log" for i in range(count)]
    settings.resolved_home.mkdir(parents=True, exist_ok=True)
    memdesk = str(Path(sys.executable).with_name("memdesk"))
    processes = []
    for log in logs:
        with log.open("w") as out:
            processes.append(
                subprocess.Popen(
                    [memdesk, "worker", "--poll", "0.2"], env=env, stdout=out, stderr=out
                )
            )
    workers = _Workers(processes, logs)
    try:
        deadline = time.monotonic() + READY_DEADLINE_S
        while not all(" ready (" in log.read_text(errors="replace") for log in logs):
            if any(p.poll() is not None for p in processes) or time.monotonic() > deadline:
                raise RuntimeError(f"workers stopped or were not ready:\n{workers.tails()}")
            time.sleep(0.2)  # polling the workers' logs for their ready line
        yield workers
    finally:
        for process in processes:  # graceful: SIGTERM lets each finish the run in hand
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait_for_runs(services: Services, workers: _Workers) -> None:
    deadline = time.monotonic() + RUN_DEADLINE_S
    while _active(services):
        dead = [p for p in workers.processes if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            raise RuntimeError(f"workers stopped or timed out with runs left:\n{workers.tails()}")
        time.sleep(0.5)  # polling the queue for completion, not synchronising threads


def _active(services: Services) -> int:
    with services.db.read() as session:
        return int(
            session.scalar(select(func.count()).select_from(Run).where(Run.status.in_(ACTIVE))) or 0
        )


def user_with_role(
    session: Any, tenant_id: str, role: str, *, customer: str | None = None
) -> str | None:
    """The first user with the role who may see a task of `customer` (its grant, or a role
    that sees every customer)."""
    for user_id, roles, grants in session.execute(
        select(User.user_id, User.roles, User.grants)
        .where(User.tenant_id == tenant_id)
        .order_by(User.user_id)
    ):
        if role not in (roles or []):
            continue
        sees_all = bool(set(roles or []) & roles_with(Permission.SEE_ALL_CUSTOMERS))
        if customer is None or sees_all or f"customer:{customer}" in (grants or []):
            return str(user_id)
    return None


def _race_approvals(services: Services) -> dict[str, Any]:
    """Two people approve every pending item at the same moment; exactly one decision each
    must be recorded (the duplicate check counts audit entries and rows)."""
    with services.db.read() as session:
        pending = session.execute(
            select(Approval.id, Approval.tenant_id, Approval.required_role, TaskRow.customer_id)
            .join(
                TaskRow,
                (TaskRow.tenant_id == Approval.tenant_id) & (TaskRow.task_id == Approval.task_id),
            )
            .where(Approval.status == "pending")
        ).all()
        # Who decides: someone of the tenant with the role and the task's customer grant.
        chosen = {
            (tenant_id, role, customer): user_with_role(session, tenant_id, role, customer=customer)
            for _id, tenant_id, role, customer in pending
        }
    items = [(i, t, r) for i, t, r, c in pending if chosen[(t, r, c)] is not None]
    deciders = {i: chosen[(t, r, c)] for i, t, r, c in pending if chosen[(t, r, c)] is not None}
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def decide(approval_id: int, tenant_id: str, role: str) -> None:
        try:
            principal = services.directory.principal(str(deciders[approval_id]))
            services.approval_flow.decide(principal, approval_id, approve=True, comment="bench")
            kind = "ok"
        except MemdeskError as exc:
            kind = type(exc).__name__
        with lock:
            outcomes[kind] += 1

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=8) as pool:
        for item in items:
            pool.submit(decide, *item)
            pool.submit(decide, *item)  # the second person, at the same time
    return {
        "approval_items": len(items),
        "approval_decide_calls": dict(sorted(outcomes.items())),
        "approval_race_s": round(time.perf_counter() - started, 2),
    }


def _run_numbers(services: Services) -> dict[str, Any]:
    with services.db.read() as session:
        runs = session.execute(
            select(Run.status, Run.attempts, Run.created_at, Run.started_at, Run.finished_at)
        ).all()
        tasks = Counter(session.scalars(select(TaskRow.status)))
        claims = Counter(
            str(payload.get("worker", "")).rsplit(":", 1)[0]
            for payload in session.scalars(
                select(RunEvent.payload).where(RunEvent.kind == "claimed")
            )
        )
    done = [r for r in runs if r.finished_at is not None and r.started_at is not None]
    service_ms = [_ms(r.started_at, r.finished_at) for r in done]
    end_to_end_ms = [_ms(r.created_at, r.finished_at) for r in done]
    first = min((as_utc(r.started_at) for r in done), default=None)
    last = max((as_utc(r.finished_at) for r in done), default=None)
    span_s = (last - first).total_seconds() if first and last else 0.0
    unsettled = invariants.runs_settled(services.db).violations
    return {
        "runs_total": len(runs),
        # Finished, with its task resting in a state for people (approval, input, review).
        "runs_terminal": len(runs) - unsettled,
        "runs_by_status": dict(sorted(Counter(r.status for r in runs).items())),
        "tasks_after_runs": dict(sorted(tasks.items())),
        "runs_retried": sum(1 for r in runs if r.attempts > 1),
        "claims_per_worker": sorted(claims.values(), reverse=True),
        "throughput_runs_per_s": round(len(done) / span_s, 2) if span_s > 0 else None,
        "run_latency_ms_p50": _p(service_ms, 50),
        "run_latency_ms_p95": _p(service_ms, 95),
        "end_to_end_ms_p50": _p(end_to_end_ms, 50),
        "end_to_end_ms_p95": _p(end_to_end_ms, 95),
        "memory_generation": _memory_cost(services, len(runs)),
    }


def _memory_cost(services: Services, runs: int) -> dict[str, Any]:
    """What Memory Bank generation inside runs cost, from each attempt's `memory_generation`
    event: milliseconds per attempt, generations, failures, model calls and tokens per run."""
    with services.db.read() as session:
        costs = list(
            session.scalars(select(RunEvent.payload).where(RunEvent.kind == "memory_generation"))
        )
        owed = session.scalar(
            select(func.count()).select_from(MemoryOfferRow).where(MemoryOfferRow.status != "done")
        )
    spent = [float(c.get("ms", 0.0)) for c in costs]
    return {
        "attempts_with_generation": len(costs),
        "ms_p50": _p(spent, 50),
        "ms_p95": _p(spent, 95),
        "ms_per_run": round(sum(spent) / runs, 2) if runs else None,
        "generations": sum(int(c.get("generations", 0)) for c in costs),
        "failed": sum(int(c.get("failed", 0)) for c in costs),
        "model_calls_per_run": round(sum(int(c.get("model_calls", 0)) for c in costs) / runs, 4)
        if runs
        else None,
        "tokens_per_run": round(sum(int(c.get("tokens", 0)) for c in costs) / runs, 2)
        if runs
        else None,
        "offers_still_owed": int(owed or 0),
    }


def _checks(services: Services, work: Workload) -> dict[str, Any]:
    checks = [
        invariants.revisions_consistent(services.db),
        invariants.confirmed_kept(services.db, work.confirmed),
        invariants.supplements_merged_once(services.db),
        invariants.runs_settled(services.db),
        invariants.duplicate_approvals(services.db),
        invariants.forbidden_evidence(services.db),
        invariants.audit_complete(services.db),
    ]
    by_name = {check.name: check for check in checks}
    return {
        "lost_updates": by_name["revisions_consistent"].violations
        + by_name["confirmed_kept"].violations
        + by_name["supplements_merged_once"].violations,
        "duplicate_approvals": by_name["duplicate_approvals"].violations,
        "forbidden_evidence": by_name["forbidden_evidence"].violations,
        "evidence_checked": by_name["forbidden_evidence"].checked,
        "checks": {check.name: check.model_dump(exclude={"name"}) for check in checks},
    }


@contextmanager
def postgres_database(admin_url: str) -> Iterator[str]:
    """A database created for this run and dropped afterwards."""
    import psycopg

    name = f"memdesk_bench_{uuid.uuid4().hex[:12]}"
    admin = admin_url.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_url(admin).set(drivername="postgresql+psycopg", database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _ms(start: Any, end: Any) -> float:
    return (as_utc(end) - as_utc(start)).total_seconds() * 1000


def _p(values: list[float], q: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 1)
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1], 1)
