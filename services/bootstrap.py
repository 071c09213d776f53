"""The composition root: builds every service from settings. Nothing else constructs them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.agents.approval_flow import ApprovalFlow
from services.agents.exact_retriever import ExactRetriever
from services.agents.ports import Retriever
from services.agents.runs import RunQueue
from services.agents.supervisor import Supervisor
from services.agents.wiring import build_agents
from services.agents.worker import Worker
from services.approvals import ApprovalService
from services.audit import AuditService
from services.clock import Clock, IdGenerator, SystemClock, UuidIds
from services.db.engine import Database, make_engine
from services.db.migrate import upgrade
from services.importer import CorpusImporter, ImportReport
from services.knowledge import KnowledgeStore
from services.retention import RetentionService
from services.settings import Settings
from services.tasks import TaskService
from services.tenancy import Directory


@dataclass
class Services:
    settings: Settings
    db: Database
    clock: Clock
    ids: IdGenerator
    directory: Directory
    tasks: TaskService
    knowledge: KnowledgeStore
    audit: AuditService
    importer: CorpusImporter = field(repr=False)
    approvals: ApprovalService = field(repr=False)
    retention: RetentionService = field(repr=False)
    retriever: Retriever = field(repr=False)
    runs: RunQueue = field(repr=False)
    approval_flow: ApprovalFlow = field(repr=False)
    supervisor: Supervisor = field(repr=False)
    worker: Worker = field(repr=False)

    def close(self) -> None:
        self.db.dispose()


def build(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    ids: IdGenerator | None = None,
    genai_client: Any | None = None,
) -> Services:
    settings = settings or Settings()
    clock = clock or SystemClock()
    ids = ids or UuidIds()
    db = Database(
        make_engine(settings.resolved_database_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms)
    )
    knowledge = KnowledgeStore(db=db, clock=clock)
    tasks = TaskService(
        db=db, clock=clock, default_retention_days=settings.completed_task_retention_days
    )
    importer = CorpusImporter(
        db=db,
        clock=clock,
        knowledge=knowledge,
        tasks=tasks,
        max_body_chars=settings.max_body_chars,
    )
    directory = Directory(db=db)
    approvals = ApprovalService(db=db, clock=clock)
    retriever: Retriever = ExactRetriever(knowledge=knowledge, clock=clock)
    agents = build_agents(
        settings,
        db=db,
        clock=clock,
        ids=ids,
        tasks=tasks,
        knowledge=knowledge,
        directory=directory,
        approvals=approvals,
        retriever=retriever,
        genai_client=genai_client,
    )
    return Services(
        settings=settings,
        db=db,
        clock=clock,
        ids=ids,
        directory=directory,
        tasks=tasks,
        knowledge=knowledge,
        audit=AuditService(db=db),
        importer=importer,
        approvals=approvals,
        retention=RetentionService(
            db=db, clock=clock, default_days=settings.completed_task_retention_days
        ),
        retriever=retriever,
        runs=agents.runs,
        approval_flow=agents.approval_flow,
        supervisor=agents.supervisor,
        worker=agents.worker,
    )


def initialise(services: Services) -> None:
    """Create the data directory and bring the schema to the latest migration."""
    services.settings.resolved_home.mkdir(parents=True, exist_ok=True)
    upgrade(services.db.engine)


def seed_demo(services: Services) -> ImportReport:
    initialise(services)
    return services.importer.import_file(services.settings.demo_corpus, actor="system:seed-demo")
