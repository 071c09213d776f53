"""memory-golden@1: conversation events and the memories they must (or must not) yield."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ExpectedAction = Literal["create", "update", "skip", "delete"]


class GoldenEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["mail", "chat", "supplement"] = "mail"
    author: Literal["customer", "sales", "engineer", "user"] = "customer"
    text: str = Field(min_length=1)
    event_id: str | None = None


class ExpectedMemory(BaseModel):
    """A memory the case's events must produce (or change). A generated memory matches when
    its topic is `topic` and its text contains every string of `must_include` (case and
    width folded); `fact` is the author's wording, for people."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    topic: str
    fact: str
    must_include: list[str] = Field(min_length=1)
    action: ExpectedAction = "create"


class FollowUp(BaseModel):
    """A later question asked of the scope: the memories (by `must_include`) a search for it
    must return among the top k."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str = Field(min_length=1)
    relevant: list[list[str]] = Field(min_length=1)
    k: int = Field(default=3, ge=1, le=20)


class GoldenConfig(BaseModel):
    """A customization config the dataset sets up before its cases run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scope_keys: list[str] = Field(default_factory=list)
    disabled_topics: list[str] = Field(default_factory=list)
    enable_third_person_memories: bool = False


class MemoryCase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str = Field(min_length=1)
    scope: dict[str, str]
    events: list[GoldenEvent] = Field(min_length=1)
    expected: list[ExpectedMemory] = Field(
        default_factory=list, description="Empty: the events must yield no memory at all."
    )
    kind: Literal["memory", "nothing", "instruction"] = "memory"
    follow_ups: list[FollowUp] = Field(default_factory=list)


class MemoryGolden(BaseModel):
    """Cases run in order; cases of one scope build on each other (consolidation)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal["memory-golden@1"] = "memory-golden@1"
    dataset_id: str
    configs: list[GoldenConfig] = Field(default_factory=list)
    cases: list[MemoryCase] = Field(min_length=1)
