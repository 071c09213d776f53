"""The seams of a run: retrieval and analysis behind Protocols, plus the errors a run can meet."""

from __future__ import annotations

from datetime import date
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from services.contracts.decision import MemoryDecision
from services.contracts.memory_input import MemoryInput
from services.errors import MemdeskError
from services.principals import Principal
from services.retrieval.types import Evidence, RetrievalResult


class Retriever(Protocol):
    """Governed retrieval (services.retrieval): only evidence the principal may use, re-verified."""

    def retrieve(
        self, principal: Principal, query: str, *, k: int = 5, as_of: date | None = None
    ) -> RetrievalResult: ...

    def resolve(
        self, principal: Principal, evidence_id: str, *, as_of: date | None = None
    ) -> Evidence: ...


class ModelUsage(BaseModel):
    model_config = ConfigDict(frozen=True)

    model_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


class Analysis(BaseModel):
    """What an analyzer returns: a decision it validated itself, and what producing it cost."""

    model_config = ConfigDict(frozen=True)

    decision: MemoryDecision
    usage: ModelUsage = Field(default_factory=ModelUsage)
    model: str
    finish_reason: str | None = None


class Analyzer(Protocol):
    """The Analysis agent: proposes a memory-decision@1 from the evidence it is given, only."""

    name: str

    def analyze(self, principal: Principal, data: MemoryInput, *, run_id: str) -> Analysis: ...


class TransientFailure(MemdeskError):
    """Worth another attempt later (rate limited, unavailable, timed out, a concurrent write)."""

    def __init__(self, reason: str, message: str, *, usage: ModelUsage | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.usage = usage or ModelUsage()


class AnalysisRejected(MemdeskError):
    """The analyzer's answer cannot be used as it is; a person looks at it (never repaired)."""

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        usage: ModelUsage | None = None,
        raw: str | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.usage = usage or ModelUsage()
        self.raw = raw


class RunCancelled(MemdeskError):
    """A cancel request arrived; nothing further is scheduled for this run."""


class LeaseLost(MemdeskError):
    """This attempt no longer holds its run: it missed heartbeats and another worker claimed
    the run (or it finished meanwhile). The attempt must stop and write nothing more."""
