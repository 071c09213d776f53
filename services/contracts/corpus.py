"""corpus@1: bulk import of tenants, users, documents and tasks (docs/formats.md)."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from services.contracts.ids import grant_problem, id_problem
from services.contracts.task_state import TaskState
from services.core.principals import is_valid_acl_entry

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_VERSION = 2_147_483_647  # a 32-bit integer column on every backend
MAX_TITLE = 500
MAX_NAME = 200
MAX_NEXT_STEP = 200
MAX_NESTING = 16  # task fields: a value nests at most this deep (lists and objects)


def _valid_id(value: Any, kind: str) -> Any:
    problem = id_problem(value, kind=kind)
    if problem:
        raise ValueError(problem)
    return value


def _no_nul(value: Any, *, depth: int = 0) -> Any:
    """Text never carries NUL (PostgreSQL cannot store it) and values nest boundedly."""
    if depth > MAX_NESTING:
        raise ValueError(f"nested more than {MAX_NESTING} levels deep")
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError(f"contains a NUL character at position {value.index(chr(0))}")
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_nul(key, depth=depth + 1)
            _no_nul(item, depth=depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _no_nul(item, depth=depth + 1)
    return value


class DocType(StrEnum):
    sop = "sop"
    contract = "contract"
    order = "order"
    quote = "quote"
    mail = "mail"
    note = "note"


class KnowledgeClass(StrEnum):
    fact = "fact"
    history = "history"
    inference = "inference"


class DocStatus(StrEnum):
    draft = "draft"
    pending_approval = "pending_approval"
    approved = "approved"
    superseded = "superseded"
    revoked = "revoked"
    rejected = "rejected"


# Unknown keys are tolerated (and reported by the importer) so that a newer producer does not
# break an older reader; every key the spec names is validated strictly.
_RECORD = ConfigDict(extra="allow", frozen=True, str_strip_whitespace=False)


class CorpusTenant(BaseModel):
    model_config = _RECORD

    tenant_id: str = Field(min_length=1, max_length=64)
    name: str = Field(min_length=1, max_length=MAX_NAME)

    @field_validator("tenant_id")
    @classmethod
    def _tenant_id(cls, value: str) -> str:
        return _valid_id(value, "tenant_id")  # type: ignore[no-any-return]

    @field_validator("name")
    @classmethod
    def _text(cls, value: str) -> str:
        return _no_nul(value)  # type: ignore[no-any-return]


class CorpusUser(BaseModel):
    model_config = _RECORD

    user_id: str = Field(min_length=1, max_length=128)
    tenant_id: str = Field(min_length=1, max_length=64)
    display_name: str = Field(default="", max_length=MAX_NAME)
    roles: list[str] = Field(default_factory=list)
    grants: list[str] = Field(default_factory=list)

    @field_validator("user_id")
    @classmethod
    def _user_id(cls, value: str) -> str:
        return _valid_id(value, "user_id")  # type: ignore[no-any-return]

    @field_validator("tenant_id")
    @classmethod
    def _tenant_id(cls, value: str) -> str:
        return _valid_id(value, "tenant_id")  # type: ignore[no-any-return]

    @field_validator("display_name", "roles")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return _no_nul(value)

    @field_validator("grants")
    @classmethod
    def _grants(cls, value: list[str]) -> list[str]:
        problems = [p for p in (grant_problem(grant) for grant in value) if p]
        if problems:
            raise ValueError("; ".join(problems))
        return value


class CorpusDocument(BaseModel):
    model_config = _RECORD

    document_id: str = Field(min_length=1, max_length=200)
    version: int = Field(ge=1, le=MAX_VERSION)
    tenant_id: str = Field(min_length=1, max_length=64)
    doc_type: DocType
    knowledge_class: KnowledgeClass
    status: DocStatus
    valid_from: date
    valid_to: date | None = None
    acl: list[str] = Field(min_length=1)
    language: str = Field(default="zh-Hant", max_length=20)
    title: str = Field(min_length=1, max_length=MAX_TITLE)
    body: str = Field(min_length=1)
    customer_id: str | None = None
    approved_by: str | None = Field(default=None, max_length=128)

    @field_validator("document_id")
    @classmethod
    def _document_id(cls, value: str) -> str:
        return _valid_id(value, "document_id")  # type: ignore[no-any-return]

    @field_validator("tenant_id")
    @classmethod
    def _tenant_id(cls, value: str) -> str:
        return _valid_id(value, "tenant_id")  # type: ignore[no-any-return]

    @field_validator("customer_id")
    @classmethod
    def _customer_id(cls, value: str | None) -> str | None:
        return None if value is None else _valid_id(value, "customer_id")

    @field_validator("title", "body", "language", "approved_by")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return _no_nul(value)

    @field_validator("valid_from", "valid_to", mode="before")
    @classmethod
    def _iso_date_only(cls, value: Any) -> Any:
        # pydantic (and Python's fromisoformat) would also accept timestamps, integers or
        # week dates such as 2026-W01-1; the contract says calendar dates YYYY-MM-DD.
        if value is None or isinstance(value, date):
            return value
        if not isinstance(value, str) or not ISO_DATE.match(value):
            raise ValueError(f"must be an ISO date YYYY-MM-DD, got {value!r}")
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"must be an ISO date YYYY-MM-DD, got {value!r}") from None

    @field_validator("acl")
    @classmethod
    def _acl_entries(cls, value: list[str]) -> list[str]:
        bad = [entry for entry in value if not is_valid_acl_entry(entry)]
        if bad:
            raise ValueError(
                f"unknown ACL entries {bad}; use tenant, role:NAME, user:ID or customer:ID"
            )
        for entry in value:  # the ids inside follow the id grammar like every other id
            kind, _, named = entry.partition(":")
            if kind in ("user", "customer"):
                problem = id_problem(named, kind=f"{kind}_id")
                if problem:
                    raise ValueError(f"ACL entry {entry!r}: the {kind} id {problem}")
        return value

    @field_validator("valid_to")
    @classmethod
    def _validity_window(cls, value: date | None, info: ValidationInfo) -> date | None:
        # A field validator (not a model one) so the error names the field: valid_to.
        valid_from = info.data.get("valid_from")
        if value is not None and isinstance(valid_from, date) and value <= valid_from:
            raise ValueError(f"{value} must be after valid_from {valid_from} (it is exclusive)")
        return value

    @property
    def ref(self) -> str:
        return f"{self.document_id}@{self.version}"


class CorpusTask(TaskState):
    model_config = ConfigDict(frozen=True, extra="ignore")

    @field_validator("task_id")
    @classmethod
    def _task_id(cls, value: str) -> str:
        return _valid_id(value, "task_id")  # type: ignore[no-any-return]

    @field_validator("tenant_id")
    @classmethod
    def _tenant_id(cls, value: str) -> str:
        return _valid_id(value, "tenant_id")  # type: ignore[no-any-return]

    @field_validator("confirmed", "pending", "next_step", "evidence_ids")
    @classmethod
    def _values(cls, value: Any) -> Any:
        return _no_nul(value)

    @field_validator("revision")
    @classmethod
    def _revision(cls, value: int) -> int:
        if value > MAX_VERSION:
            raise ValueError(f"must be at most {MAX_VERSION}")
        return value

    @field_validator("next_step")
    @classmethod
    def _next_step(cls, value: str | None) -> str | None:
        if value is not None and len(value) > MAX_NEXT_STEP:
            raise ValueError(f"{len(value)} characters, more than the limit of {MAX_NEXT_STEP}")
        return value


class Corpus(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    schema_version: Literal["corpus@1"]
    tenants: list[CorpusTenant] = Field(default_factory=list)
    users: list[CorpusUser] = Field(default_factory=list)
    documents: list[CorpusDocument] = Field(default_factory=list)
    tasks: list[CorpusTask] = Field(default_factory=list)
