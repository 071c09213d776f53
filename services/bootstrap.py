"""The composition root: builds every service from settings. Nothing else constructs them."""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from services.agents.resume import Resumer
from services.agents.runs import RunQueue
from services.agents.supervisor import Supervisor
from services.agents.wiring import build_agents
from services.agents.worker import Worker
from services.approvals.flow import ApprovalFlow
from services.approvals.store import ApprovalService
from services.core.clock import Clock, IdGenerator, SystemClock, UuidIds
from services.core.errors import InvalidInput
from services.db.engine import Database, make_engine, read_only_store
from services.db.migrate import upgrade
from services.desk.service import Desk
from services.language import bilingual, frequency
from services.language import tokens as text_analysis
from services.memory.bank import Extractor, MemoryBank
from services.memory.wiring import build_memory_bank
from services.publishing.candidates import CandidateService
from services.publishing.citations import CitationChecker
from services.publishing.publisher import Publisher
from services.records import audit_chain
from services.records.accounts import DEMO_PASSWORD, Accounts
from services.records.audit import AuditService
from services.records.directory import Directory
from services.records.importer import CorpusImporter, ImportReport, read_corpus_file
from services.records.knowledge import KnowledgeStore
from services.records.retention import RetentionService
from services.records.sessions import SessionStore, load_or_create_secret
from services.records.tasks import TaskService
from services.retrieval.embedders import Embedder
from services.retrieval.index import IndexManager
from services.retrieval.service import RetrievalService
from services.retrieval.types import SpanReader
from services.retrieval.vectorstore import VectorStore
from services.retrieval.wiring import build_retrieval, sync_hook
from services.settings import Settings


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
    index: IndexManager = field(repr=False)
    retrieval: RetrievalService = field(repr=False)
    importer: CorpusImporter = field(repr=False)
    approvals: ApprovalService = field(repr=False)
    runs: RunQueue = field(repr=False)
    approval_flow: ApprovalFlow = field(repr=False)
    supervisor: Supervisor = field(repr=False)
    worker: Worker = field(repr=False)
    resumer: Resumer = field(repr=False)
    candidates: CandidateService = field(repr=False)
    publisher: Publisher = field(repr=False)
    citations: CitationChecker = field(repr=False)
    retention: RetentionService = field(repr=False)
    accounts: Accounts = field(repr=False)
    sessions: SessionStore = field(repr=False)
    desk: Desk = field(repr=False)
    memories: MemoryBank = field(repr=False)

    def close(self) -> None:
        self.index.close()
        self.db.dispose()


def build(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    ids: IdGenerator | None = None,
    vector_store: VectorStore | None = None,
    embedder: Embedder | None = None,
    genai_client: Any | None = None,
    memory_extractor: Extractor | None = None,
    span_reader: SpanReader | None = None,
) -> Services:
    settings = settings or Settings()
    clock = clock or SystemClock()
    ids = ids or UuidIds()
    db = Database(
        make_engine(settings.resolved_database_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms)
    )
    audit_chain.use_key(db, _audit_key_loader(settings))
    knowledge = KnowledgeStore(db=db, clock=clock)
    tasks = TaskService(
        db=db, clock=clock, default_retention_days=settings.completed_task_retention_days
    )
    index, retrieval = build_retrieval(
        settings,
        db=db,
        clock=clock,
        ids=ids,
        store=vector_store,
        embedder=embedder,
        reader=span_reader or _span_reader(settings, genai_client),
    )
    importer = CorpusImporter(
        db=db,
        clock=clock,
        knowledge=knowledge,
        tasks=tasks,
        max_body_chars=settings.max_body_chars,
        on_documents_changed=sync_hook(index),
    )
    directory = Directory(db=db, clock=clock)
    approvals = ApprovalService(db=db, clock=clock)
    memories = build_memory_bank(
        settings,
        db=db,
        clock=clock,
        ids=ids,
        embedder=index.embedder,
        genai_client=genai_client,
        extractor=memory_extractor,
    )
    agents = build_agents(
        settings,
        db=db,
        clock=clock,
        ids=ids,
        tasks=tasks,
        knowledge=knowledge,
        directory=directory,
        approvals=approvals,
        retriever=retrieval,
        genai_client=genai_client,
        memories=memories,
        embedder=index.embedder,
    )
    candidates = CandidateService(
        db=db, clock=clock, ids=ids, knowledge=knowledge, memory_quotes=memories
    )
    citations = CitationChecker(db=db, clock=clock, knowledge=knowledge, approvals=approvals)
    retention = RetentionService(
        db=db,
        clock=clock,
        tasks=tasks,
        default_task_days=settings.completed_task_retention_days,
    )
    retention.register("memory", memories)  # memories keep their own TTL and hold flag
    retention.register_copies(index)  # an expiring version leaves the index before SQL
    return Services(
        settings=settings,
        db=db,
        clock=clock,
        ids=ids,
        directory=directory,
        tasks=tasks,
        knowledge=knowledge,
        audit=AuditService(db=db, clock=clock),
        index=index,
        retrieval=retrieval,
        importer=importer,
        approvals=approvals,
        runs=agents.runs,
        approval_flow=agents.approval_flow,
        supervisor=agents.supervisor,
        worker=agents.worker,
        resumer=agents.resumer,
        candidates=candidates,
        publisher=Publisher(
            db=db, clock=clock, ids=ids, knowledge=knowledge, candidates=candidates, index=index
        ),
        citations=citations,
        retention=retention,
        accounts=Accounts(db=db, clock=clock, production=settings.env == "production"),
        sessions=SessionStore(
            db=db,
            clock=clock,
            secret=lambda: _session_secret(settings),
            idle_timeout=timedelta(minutes=settings.session_idle_minutes),
            lifetime=timedelta(hours=settings.session_lifetime_hours),
        ),
        desk=Desk(
            tasks=tasks,
            runs=agents.runs,
            approvals=approvals,
            approval_flow=agents.approval_flow,
            knowledge=knowledge,
            clock=clock,
            citations=citations,
            resumer=agents.resumer,
            memories=memories,
        ),
        memories=memories,
    )


def _span_reader(settings: Settings, genai_client: Any | None) -> SpanReader | None:
    """Gemini judges whether retrieved spans answer (MEMDESK_SPAN_READER; auto: when a key is
    set); None leaves it to the offline rule."""
    if not settings.use_gemini_span_reader:
        return None
    # Imported here: google.genai is heavy and only needed when Gemini is configured.
    from services.llm.gemini import gemini_caller
    from services.llm.prompts import SPAN_READER_PROMPT, get_prompt
    from services.llm.span_reader import GeminiSpanReader

    # A reading ends well inside the retrieval tool's deadline: a slow model falls back to the
    # offline judgement instead of timing the whole retrieval out.
    timeout = min(settings.model_timeout_seconds, settings.tool_timeout_seconds / 2)
    caller = gemini_caller(
        settings, genai_client, timeout_seconds=timeout, needed_by="MEMDESK_SPAN_READER=gemini"
    )
    return GeminiSpanReader(caller=caller, prompt=get_prompt(*SPAN_READER_PROMPT))


def _audit_key_loader(settings: Settings) -> audit_chain.KeyLoader:
    """The audit key from the setting, else from MEMDESK_HOME/audit.key, created on the first
    write that needs it (a read, such as `audit verify` on a read-only store, never creates it)."""
    loaded: list[audit_chain.AuditKey] = []

    def load(create: bool) -> audit_chain.AuditKey | None:
        if loaded:
            return loaded[0]
        if settings.audit_key is not None:
            secret = settings.audit_key.get_secret_value().encode("utf-8")
        elif settings.audit_key_path.exists() or create:
            secret = load_or_create_secret(settings.audit_key_path)
        else:
            return None
        loaded.append(audit_chain.AuditKey(secret))
        return loaded[0]

    return load


def _session_secret(settings: Settings) -> bytes:
    if settings.session_secret is not None:
        return settings.session_secret.get_secret_value().encode("utf-8")
    return load_or_create_secret(settings.session_secret_path)


def warm_up(services: Services) -> float:
    """Load now what a run would otherwise load on first use — the embedding model, the Chinese
    segmenter, English lemmas, both languages' word frequencies, the bilingual dictionary — so
    a worker's first run is as fast as its others (about 4 s of loading on a 2-core machine).
    Returns seconds."""
    started = time.perf_counter()
    services.index.embedder.embed_query("warm-up 預熱")
    text_analysis.content_words(text_analysis.normalize("客戶要求特殊檢驗時的交期"))
    text_analysis.lemma("paid")
    frequency.zipf("交期")
    frequency.zipf("lead")
    bilingual.renderings("lead")
    bilingual.romanizations("交期")
    # What is loaded by now (modules, the dictionaries above, the store's engine) lives as long
    # as the process: it is set aside from the cyclic garbage collector, whose full passes
    # would otherwise walk all of it again, each taking ~200 ms of whichever query was running
    # (README "Benchmarks"). Garbage already made is collected first, so nothing unreachable
    # is set aside with it.
    gc.collect()
    gc.freeze()
    return time.perf_counter() - started


def initialise(services: Services) -> None:
    """Create the data directory and bring the schema to the latest migration."""
    services.settings.resolved_home.mkdir(parents=True, exist_ok=True)
    if services.db.read_only is not None:  # only writers initialise: refuse before migrating
        raise read_only_store(services.db.read_only)
    upgrade(services.db.engine)


def seed_demo(services: Services) -> ImportReport:
    """Load the demo corpus once. `make run` calls this every time: once this exact content is in
    the store, later calls change nothing, so an admin's changes to the demo users survive."""
    if services.settings.env == "production":
        raise InvalidInput(
            "seed-demo loads demo accounts with a published password: not in production "
            "(MEMDESK_ENV=production); import your corpus and add users instead"
        )
    initialise(services)
    path = services.settings.demo_corpus
    corpus, data = read_corpus_file(path)
    if services.importer.already_imported(corpus):
        report = ImportReport(
            source=str(path),
            created={},
            updated={},
            unchanged={},
            warnings=[],
            changed_documents=[],
            tenants=sorted({t.tenant_id for t in corpus.tenants}),
            already_loaded=True,
        )
    else:
        report = services.importer.import_corpus(
            corpus, source=str(path), actor="system:seed-demo", raw=data
        )
    services.index.sync()  # raises if the index cannot be built: the demo must be searchable
    services.accounts.ensure_password(
        [user.user_id for user in corpus.users],
        DEMO_PASSWORD,
        actor="system:seed-demo",
    )
    return report
