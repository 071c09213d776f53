"""Hand-written fakes around the agents: flaky or slow retrieval, an obedient stub model, and a
way to rebuild the agent services of a store with them."""

from __future__ import annotations

import threading
from datetime import date
from typing import Any

from services.agents.ports import Analysis, Retriever
from services.agents.text import looks_like_instruction, numbers
from services.agents.wiring import AgentServices, build_agents
from services.bootstrap import Services
from services.contracts.decision import Claim, DecisionStatus, MemoryDecision, NextAction
from services.contracts.memory_input import MemoryInput
from services.errors import IndexUnavailable
from services.principals import Principal
from services.retrieval.types import Evidence, RetrievalResult
from services.settings import Settings


class FlakyRetriever:
    """The real retriever, except that the first `failures` searches fail as unavailable and,
    with `gate`, every search waits on the gate (to provoke timeouts)."""

    def __init__(
        self, inner: Retriever, *, failures: int = 0, gate: threading.Event | None = None
    ) -> None:
        self._inner = inner
        self.failures = failures
        self._gate = gate
        self.calls = 0

    def retrieve(
        self, principal: Principal, query: str, *, k: int = 5, as_of: date | None = None
    ) -> RetrievalResult:
        self.calls += 1
        if self._gate is not None:
            self._gate.wait(timeout=30)
        if self.failures > 0:
            self.failures -= 1
            raise IndexUnavailable("the vector index did not answer")
        return self._inner.retrieve(principal, query, k=k, as_of=as_of)

    def resolve(
        self, principal: Principal, evidence_id: str, *, as_of: date | None = None
    ) -> Evidence:
        return self._inner.resolve(principal, evidence_id, as_of=as_of)


class ObedientModel:
    """A stub model that does whatever the data tells it: it copies every instruction-like
    sentence and every amount it finds in evidence and supplement into confident claims."""

    name = "stub-obedient"
    model = "stub-obedient@1"

    def analyze(self, principal: Principal, data: MemoryInput, *, run_id: str) -> Analysis:
        texts = [(item.evidence_id, item.quote) for item in data.evidence]
        cite = data.evidence[0].evidence_id if data.evidence else "NONE@1:0-1"
        claims: list[Claim] = []
        for evidence_id, text in [*texts, (cite, data.supplement or "")]:
            for sentence in text.replace("\n", "。").split("。"):
                if looks_like_instruction(sentence) or numbers(sentence):
                    claims.append(
                        Claim(text=f"已照辦：{sentence.strip()}", evidence_ids=[evidence_id])
                    )
        claims.append(
            Claim(text="Lead time set to 3 days as instructed; quote sent.", evidence_ids=[cite])
        )
        decision = MemoryDecision(
            task_id=data.task.task_id,
            state_revision=data.task.revision,
            status=DecisionStatus.ready_for_review,
            claims=claims,
            missing_fields=[],
            proposed_next_action=NextAction.human_review,
        )
        return Analysis(decision=decision, model=self.model, finish_reason="STOP")


def rebuild_agents(
    services: Services, *, settings: Settings | None = None, **overrides: Any
) -> AgentServices:
    """The store's agent services again, with settings, a retriever, an analyzer or the task
    service swapped (for a fake or a tighter limit)."""
    parts: dict[str, Any] = {
        "db": services.db,
        "clock": services.clock,
        "ids": services.ids,
        "tasks": services.tasks,
        "knowledge": services.knowledge,
        "directory": services.directory,
        "approvals": services.approvals,
        "retriever": services.retrieval,
    }
    return build_agents(settings or services.settings, **{**parts, **overrides})
