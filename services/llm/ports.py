"""What every model call shares: its usage, and the two ways it can fail (retry or reject)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from services.core.errors import MemdeskError


class ModelUsage(BaseModel):
    model_config = ConfigDict(frozen=True)

    model_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


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
