"""Memory Bank DTOs: events, scopes, topics, policy, memories and their revisions (all frozen)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from services.core.errors import InvalidInput

FROZEN = ConfigDict(frozen=True, extra="forbid")

# Scope keys a memory can be filed under (besides the tenant, which always comes from the
# principal and is never part of the input).
SCOPE_KEYS = ("customer_id", "task_id", "user_id")
_SCOPE_VALUE = re.compile(r"^[^\s&=]{1,128}$")

EventKind = Literal["mail", "chat", "supplement"]
Author = Literal["customer", "sales", "engineer", "agent", "user"]
Operation = Literal["create", "generate", "rollback", "delete"]
Action = Literal["created", "updated", "deleted", "rolled_back"]


def canonical_scope(scope: dict[str, str]) -> str:
    """The scope as one comparable string (exact match = string equality), validated."""
    if not scope:
        raise InvalidInput("a memory scope needs at least one of " + ", ".join(SCOPE_KEYS))
    problems = [f"unknown scope key {key!r}" for key in scope if key not in SCOPE_KEYS]
    problems += [
        f"scope {key} must be 1-128 characters without spaces, '&' or '='"
        for key, value in scope.items()
        if not isinstance(value, str) or not _SCOPE_VALUE.match(value)
    ]
    if problems:
        raise InvalidInput(f"bad scope {scope!r}: {problems[0]}", problems=problems)
    return "&".join(f"{key}={scope[key]}" for key in sorted(scope))


def parse_scope(pairs: list[str]) -> dict[str, str]:
    """`key=value` items (CLI, console) into a scope dict; the canonical check happens later."""
    scope: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InvalidInput(f"scope item {pair!r} must look like key=value")
        scope[key.strip()] = value.strip()
    return scope


class ConversationEvent(BaseModel):
    """One message of a conversation (mail, chat line, customer supplement). Data, never orders."""

    model_config = FROZEN

    kind: EventKind = "chat"
    author: Author = "customer"
    text: str = Field(min_length=1, max_length=20_000)
    event_id: str | None = Field(default=None, max_length=128)
    author_id: str | None = Field(
        default=None, max_length=128, description="The user who wrote it, when one of ours."
    )


class Topic(BaseModel):
    """What is worth remembering. Managed topics are defined by memdesk; custom ones by a tenant."""

    model_config = FROZEN

    label: str = Field(pattern=r"^[a-z][a-z0-9_]{1,79}$")
    description: str
    managed: bool = False
    enabled: bool = True
    keywords: tuple[str, ...] = Field(
        default=(), description="Words the offline extractor looks for (custom topics)."
    )


class ExampleMemory(BaseModel):
    model_config = FROZEN

    topic: str
    fact: str = Field(min_length=1)


class FewShotExample(BaseModel):
    """Conversation events and the memories they must yield; an empty list means none."""

    model_config = FROZEN

    id: int | None = None
    events: tuple[ConversationEvent, ...] = Field(min_length=1)
    memories: tuple[ExampleMemory, ...] = ()


def config_key(scope_keys: tuple[str, ...] | list[str]) -> str:
    """The canonical name of a customization config: its scope keys sorted, comma-joined;
    "" is the default config."""
    unknown = sorted(set(scope_keys) - set(SCOPE_KEYS))
    if unknown:
        raise InvalidInput(
            f"unknown scope key(s) {', '.join(unknown)}: a config is keyed by "
            + ", ".join(SCOPE_KEYS)
        )
    return ",".join(sorted(set(scope_keys)))


class CustomizationConfig(BaseModel):
    """What to remember and how, for requests whose scope has exactly these keys
    (docs/memory-bank.md §7). No scope keys: the default config, used by every request no
    keyed config matches exactly."""

    model_config = FROZEN

    scope_keys: tuple[str, ...] = ()
    topics: tuple[Topic, ...]
    examples: tuple[FewShotExample, ...] = ()
    enable_third_person_memories: bool = False
    revisions_per_candidate_count: int = Field(default=1, ge=1, le=50)
    disable_memory_revisions: bool = False
    stored: bool = Field(default=False, description="Saved by an admin (else built-in).")

    @property
    def key(self) -> str:
        return config_key(self.scope_keys)


class BankModels(BaseModel):
    """The models the bank is configured with (docs/memory-bank.md §9), as people see them."""

    model_config = FROZEN

    embedding_model: str
    extraction: str
    consolidation: str


class MemoryPolicy(BaseModel):
    """A tenant's TTL and similarity settings (Memory Bank's ttl_config et al.).

    TTLs are seconds; None means "no expiry". With `granular` on, each operation uses its own
    TTL and an operation without one leaves the expiry as it was; otherwise `default_ttl`
    applies to every create and update.
    """

    model_config = FROZEN

    default_ttl_seconds: int | None = Field(default=None, ge=1)
    granular: bool = False
    create_ttl_seconds: int | None = Field(default=None, ge=1)
    generate_created_ttl_seconds: int | None = Field(default=None, ge=1)
    generate_updated_ttl_seconds: int | None = Field(default=None, ge=1)
    revision_ttl_seconds: int | None = Field(default=365 * 24 * 3600, ge=1)
    similarity_threshold: float = Field(default=0.6, gt=0.0, le=1.0)


class SourceRef(BaseModel):
    """Where a revision came from: the event (kind, id, author, excerpt) or a person's action;
    `run_id` when a run offered the event (the generation's source)."""

    model_config = FROZEN

    kind: str
    event_id: str | None = None
    author: str | None = None
    author_id: str | None = None
    excerpt: str | None = None
    generation_id: str | None = None
    run_id: str | None = None
    note: str | None = None


class Memory(BaseModel):
    """A memory as people and agents see it. Always an inference, never approved evidence."""

    model_config = FROZEN

    memory_id: str
    scope: dict[str, str]
    topic: str
    kind: str
    fact: str
    state: Literal["active", "deleted"]
    revision: int
    knowledge_class: Literal["inference"] = "inference"
    created_by: str
    created_at: datetime
    updated_at: datetime
    expire_at: datetime | None
    legal_hold: bool
    legal_hold_reason: str | None = None
    source: SourceRef | None = None


class MemoryRevision(BaseModel):
    model_config = FROZEN

    memory_id: str
    revision: int
    action: Action
    operation: Operation
    topic: str
    kind: str
    fact: str
    source: SourceRef
    actor: str
    at: datetime
    memory_expire_at: datetime | None
    expire_at: datetime | None


class ScoredMemory(BaseModel):
    """A search hit. The score ranks; it is not a confidence."""

    model_config = FROZEN

    memory: Memory
    score: float


class ExtractedFact(BaseModel):
    """A candidate memory from an extractor, before consolidation."""

    model_config = FROZEN

    topic: str
    kind: str = "fact"
    fact: str = Field(min_length=1)
    event_index: int = 0

    @field_validator("fact")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()


class Extraction(BaseModel):
    """What an extractor found: facts to remember and things the speaker asked to forget."""

    model_config = FROZEN

    facts: tuple[ExtractedFact, ...] = ()
    forget: tuple[ExtractedFact, ...] = ()
    extractor: str = "offline"
    model_calls: int = 0
    tokens: int = 0


ChangeAction = Literal["created", "updated", "deleted", "unchanged", "dropped"]


class MemoryChange(BaseModel):
    """One outcome of consolidation, for the preview and the report."""

    model_config = FROZEN

    action: ChangeAction
    topic: str
    fact: str
    memory_id: str | None = None
    previous_fact: str | None = None
    reason: str = ""


class GenerateResult(BaseModel):
    model_config = FROZEN

    generation_id: str
    scope: dict[str, str]
    dry_run: bool
    extractor: str
    config: str = Field(default="", description="The customization config used ('' = default).")
    changes: tuple[MemoryChange, ...]
    model_calls: int = 0
    tokens: int = 0

    @property
    def applied(self) -> tuple[MemoryChange, ...]:
        return tuple(c for c in self.changes if c.action in ("created", "updated", "deleted"))


class MemoryPurgeReport(BaseModel):
    model_config = FROZEN

    dry_run: bool
    removed: tuple[str, ...]
    revisions_removed: int
    kept_on_hold: tuple[str, ...]
