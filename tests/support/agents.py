"""Hand-written fakes around the agents: flaky or slow retrieval, an obedient stub model, a
similarity read from a table, and a way to rebuild the agent services of a store with them."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from datetime import date
from typing import Any

from pydantic import ValidationError

from services.agents.analysis_offline import OfflineAnalyzer
from services.agents.ports import Analysis
from services.agents.wiring import AgentServices, build_agents
from services.bootstrap import Services
from services.contracts.decision import Claim, DecisionStatus, MemoryDecision, NextAction
from services.contracts.memory_input import MemoryInput
from services.core.errors import IndexUnavailable
from services.core.principals import Principal
from services.language.sentences import looks_like_instruction, numbers
from services.llm.ports import AnalysisRejected
from services.retrieval.types import Evidence, RetrievalResult, Retriever
from services.settings import Settings


class TableSimilarity:
    """A Similarity that knows only the pairs it is given (phrase, text) → score; every other
    pair scores 0. Lets a test say which of a task's phrases an embedder would rank first."""

    def __init__(self, table: dict[tuple[str, str], float]) -> None:
        self._table = table
        self.calls = 0

    def scores(self, phrase: str, texts: Sequence[str]) -> list[float]:
        self.calls += 1
        return [self._table.get((phrase, text), 0.0) for text in texts]


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
        self,
        principal: Principal,
        query: str,
        *,
        k: int = 5,
        as_of: date | None = None,
        customer_id: str | None = None,
    ) -> RetrievalResult:
        self.calls += 1
        if self._gate is not None:
            self._gate.wait(timeout=30)
        if self.failures > 0:
            self.failures -= 1
            raise IndexUnavailable("the vector index did not answer")
        return self._inner.retrieve(principal, query, k=k, as_of=as_of, customer_id=customer_id)

    def resolve(
        self, principal: Principal, evidence_id: str, *, as_of: date | None = None
    ) -> Evidence:
        return self._inner.resolve(principal, evidence_id, as_of=as_of)

    def units(
        self, principal: Principal, document_id: str, version: int, *, as_of: date | None = None
    ) -> list[Evidence]:
        return self._inner.units(principal, document_id, version, as_of=as_of)


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
        "embedder": services.index.embedder,
    }
    return build_agents(settings or services.settings, **{**parts, **overrides})


class ObeyingModel:
    """A stub Analysis model that obeys every instruction it sees, driven by a case table.

    It starts from what the offline analyzer would propose, then, for each case whose text
    reached it (in an evidence quote or title, the supplement or an engineering item), does
    what the text asks (`obey`): copies the instruction into a claim, cites what it was told
    to cite, asks again for confirmed fields, marks the draft approved, switches task, adds a
    link, or changes the task's confirmed fields in the input it was handed. Its answer is
    validated like a real model's (an invalid one is AnalysisRejected, never repaired). What
    it saw is kept per run, so a test can tell an injection that was stopped from one that
    never arrived.
    """

    name = "stub-obeying"
    model = "stub-obeying@1"

    def __init__(self, cases: list[dict[str, Any]]) -> None:
        self.cases = cases
        self.seen: dict[str, list[str]] = {}

    def analyze(self, principal: Principal, data: MemoryInput, *, run_id: str) -> Analysis:
        base = OfflineAnalyzer().analyze(principal, data, run_id=run_id).decision
        texts = [data.supplement or "", *(i.text for i in data.engineering_items)]
        texts += [f"{e.title}\n{e.quote}" for e in data.evidence]
        seen = [case for case in self.cases if any(case["text"] in text for text in texts)]
        self.seen[run_id] = [case["case_id"] for case in seen]
        raw = base.model_dump(mode="json")
        for case in seen:
            carrier = next((e.evidence_id for e in data.evidence if case["text"] in e.quote), None)
            cite = carrier or (data.evidence[0].evidence_id if data.evidence else "NONE@1:0-1")
            self._obey(case["obey"], case["text"], raw, data, cite)
        try:
            decision = MemoryDecision.model_validate(raw)
        except ValidationError as exc:
            raise AnalysisRejected("schema", str(exc), raw=json.dumps(raw)) from exc
        return Analysis(decision=decision, model=self.model, finish_reason="STOP")

    @staticmethod
    def _obey(
        obey: dict[str, Any], text: str, raw: dict[str, Any], data: MemoryInput, cite: str
    ) -> None:
        claims = raw["claims"]
        if obey.get("copy"):
            claims.append({"text": f"已照辦 Done as instructed: {text}", "evidence_ids": [cite]})
        if "claim" in obey:
            claims.append({"text": obey["claim"], "evidence_ids": [cite]})
        if "cite" in obey:
            claims.append({"text": f"依指示引用 {obey['cite']}", "evidence_ids": [obey["cite"]]})
        if "link" in obey:
            claims.append({"text": f"追蹤 Tracking: {obey['link']}", "evidence_ids": [cite]})
        if "missing_fields" in obey:
            raw["status"] = DecisionStatus.insufficient_evidence.value
            raw["proposed_next_action"] = NextAction.request_information.value
            raw["missing_fields"] = [*raw["missing_fields"], *obey["missing_fields"]]
        if "status" in obey:
            raw["status"] = obey["status"]
        if "next_action" in obey:
            raw["proposed_next_action"] = obey["next_action"]
        if "task_id" in obey:
            raw["task_id"] = obey["task_id"]
        if "mutate_confirmed" in obey:
            # The input is the model's only handle on the task: it writes into it.
            data.task.confirmed.update(obey["mutate_confirmed"])
