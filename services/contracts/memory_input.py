"""memory-input@1: what the supervisor hands the Analysis agent (task state, needs, evidence)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

NeedSource = Literal["pending", "confirmed", "supplement", "mentioned"]


class InputTask(BaseModel):
    """The restored task as the analyst may see it (never the tenant id: it is not theirs)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    revision: int
    status: str
    confirmed: dict[str, Any]
    pending: list[str]
    next_step: str | None = None


class Need(BaseModel):
    """One thing this run must find evidence for, and what retrieval said about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(description="Field name, e.g. lead_time.")
    label: str = Field(description="Human label in the task's language.")
    query: str
    required: bool = Field(description="Pending work (required) or context only.")
    scope: list[str] = Field(
        default_factory=list,
        description="Confirmed identifiers (e.g. the material) evidence must name to apply.",
    )
    source: NeedSource
    answer: bool | None = Field(
        default=None, description="A yes/no the supplement gave for this item, if any."
    )
    retrieval_status: Literal["ok", "insufficient_evidence", "source_conflict"] = "ok"
    missing: list[str] = Field(default_factory=list)
    evidence_ids: list[str] = Field(default_factory=list)
    exceptions: list[str] = Field(
        default_factory=list,
        description="Evidence ids of clauses in the documents of this need's rules that set "
        "those rules aside for this task (an exception or condition the task meets): a draft "
        "states these, not the rule.",
    )


class InputEvidence(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence_id: str
    document_id: str
    version: int
    knowledge_class: str
    doc_type: str
    title: str
    quote: str


class InputConflict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    need: str
    fact: str
    values: list[dict[str, Any]]


class InputEngineeringItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    need: str
    text: str
    evidence_id: str


MEMORY_REF_PREFIX = "memory:"


class InputMemory(BaseModel):
    """A memory recalled for this task from the Memory Bank: context of class `inference`. It
    may shape what the draft asks or flags; it never backs a claim (review refuses a claim that
    cites it), and it is not evidence."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_ref: str = Field(description="memory:<memory_id>@r<revision>; never an evidence id.")
    memory_id: str
    revision: int
    knowledge_class: Literal["inference"] = "inference"
    scope: dict[str, str]
    topic: str
    fact: str
    source_event: str | None = Field(
        default=None, description="The conversation event it came from (kind and id)."
    )
    document_id: str | None = Field(
        default=None, description="The document (a mail) it was drawn from, if any."
    )
    version: int | None = None


class MemoryInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal["memory-input@1"] = "memory-input@1"
    task: InputTask
    supplement: str | None = None
    needs: list[Need]
    evidence: list[InputEvidence]
    conflicts: list[InputConflict] = Field(default_factory=list)
    engineering_items: list[InputEngineeringItem] = Field(
        default_factory=list,
        description="What engineering must confirm, found deterministically in the evidence.",
    )
    memories: list[InputMemory] = Field(
        default_factory=list,
        description="What the Memory Bank recalls for this task's scopes: inference only, to "
        "shape what is asked or flagged; never cited by a claim.",
    )
