"""Builds the agent services from settings (called by the composition root, services.bootstrap)."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Any

from services.agents.analysis_offline import OfflineAnalyzer
from services.agents.gathering import Gatherer
from services.agents.memories import RunMemories
from services.agents.ports import Analyzer
from services.agents.resume import Resumer
from services.agents.review import ModelReviewer, ReviewAgent
from services.agents.runs import RunLimits, RunQueue
from services.agents.similarity import EmbeddingSimilarity
from services.agents.supervisor import Supervisor
from services.agents.worker import Worker
from services.approvals.flow import ApprovalFlow
from services.approvals.handover import EngineeringHandover, WithEngineeringResults
from services.approvals.store import ApprovalService
from services.core.clock import Clock, IdGenerator
from services.db.engine import Database
from services.llm.prompts import get_prompt
from services.memory.bank import MemoryBank
from services.records.directory import Directory
from services.records.knowledge import KnowledgeStore
from services.records.tasks import TaskService
from services.retrieval.embedders import Embedder
from services.retrieval.types import Retriever
from services.settings import Settings


@dataclass
class AgentServices:
    runs: RunQueue
    approval_flow: ApprovalFlow
    supervisor: Supervisor
    worker: Worker
    resumer: Resumer


def build_agents(
    settings: Settings,
    *,
    db: Database,
    clock: Clock,
    ids: IdGenerator,
    tasks: TaskService,
    knowledge: KnowledgeStore,
    directory: Directory,
    approvals: ApprovalService,
    retriever: Retriever,
    genai_client: Any | None = None,
    analyzer: Analyzer | None = None,
    memories: MemoryBank | None = None,
    embedder: Embedder | None = None,
) -> AgentServices:
    """`embedder`: retrieval's, so planning ranks a task's phrases in the same vector space."""
    prompt = get_prompt()
    # Engineering results people confirmed are evidence of their own, cited to their approval.
    handover = EngineeringHandover(approvals=approvals)
    retriever = WithEngineeringResults(retriever, handover)
    queue = RunQueue(
        db=db,
        clock=clock,
        ids=ids,
        limits=RunLimits(
            max_attempts=settings.run_max_attempts,
            backoff_seconds=settings.run_backoff_seconds,
            timeout_seconds=settings.run_timeout_seconds,
            runs_per_minute=settings.tenant_runs_per_minute,
            daily_token_budget=settings.tenant_daily_token_budget,
        ),
    )
    model_reviewer: ModelReviewer | None = None
    if analyzer is None:
        analyzer = OfflineAnalyzer()
        if settings.analyzer != "offline" and (
            settings.use_gemini_analyzer or genai_client is not None
        ):
            # Imported here: google.genai is heavy and only needed when Gemini is configured.
            from services.agents.analysis_gemini import GeminiAnalyzer, GeminiReviewer
            from services.llm.gemini import gemini_caller

            caller = gemini_caller(settings, genai_client)
            analyzer = GeminiAnalyzer(caller=caller, prompt=prompt)
            if settings.gemini_model_review:
                model_reviewer = GeminiReviewer(caller=caller, prompt=prompt)
    flow = ApprovalFlow(
        db=db, approvals=approvals, tasks=tasks, directory=directory, retriever=retriever
    )
    supervisor = Supervisor(
        queue=queue,
        tasks=tasks,
        directory=directory,
        gatherer=Gatherer(
            retriever=retriever,
            knowledge=knowledge,
            tasks=tasks,
            queue=queue,
            k=settings.retrieval_k,
            tool_timeout_seconds=settings.tool_timeout_seconds,
            confirmed_facts=handover.facts,
            similarity=EmbeddingSimilarity(embedder) if embedder is not None else None,
        ),
        analyzer=analyzer,
        reviewer=ReviewAgent(retriever=retriever, model_reviewer=model_reviewer),
        flow=flow,
        clock=clock,
        prompt=prompt,
        model_timeout_seconds=settings.model_timeout_seconds,
        daily_token_budget=settings.tenant_daily_token_budget,
        memories=None
        if memories is None
        else RunMemories(bank=memories, knowledge=knowledge, directory=directory, tasks=tasks),
    )
    worker = Worker(
        queue=queue,
        supervisor=supervisor,
        clock=clock,
        worker_id=f"{socket.gethostname()}:{os.getpid()}:{ids.new('worker')}",
        # Three renewals per timeout: one missed renewal never makes a live worker look dead.
        renew_seconds=settings.run_timeout_seconds / 3,
    )
    return AgentServices(
        runs=queue,
        approval_flow=flow,
        supervisor=supervisor,
        worker=worker,
        resumer=Resumer(queue=queue, worker=worker, tasks=tasks),
    )
