"""Hand-off packets between supervisor and agents (every hand-off leaves one)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Agent = Literal["supervisor", "analysis", "review", "human"]


class HandoffPacket(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal["handoff-packet@1"] = "handoff-packet@1"
    run_id: str
    task_id: str
    source_agent: Agent
    target_agent: Agent
    payload_schema: str = Field(description="Schema id of the payload, e.g. memory-input@1.")
    created_at: datetime
    payload: dict[str, Any] = Field(default_factory=dict)
