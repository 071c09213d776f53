"""The seams of a run: retrieval and analysis behind Protocols, plus the errors a run can meet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from services.contracts.decision import MemoryDecision
from services.contracts.memory_input import MemoryInput
from services.core.errors import MemdeskError
from services.core.principals import Principal
from services.llm.ports import ModelUsage


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


class Similarity(Protocol):
    """How close in meaning a phrase is to each of some texts, in any language: a ranking
    signal for choosing among a task's own phrases, never a confidence (docs/product.md §4)."""

    def scores(self, phrase: str, texts: Sequence[str]) -> list[float]: ...


class RunCancelled(MemdeskError):
    """A cancel request arrived; nothing further is scheduled for this run."""


class LeaseLost(MemdeskError):
    """This attempt no longer holds its run: it missed heartbeats and another worker claimed
    the run (or it finished meanwhile). The attempt must stop and write nothing more."""
