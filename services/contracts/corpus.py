"""corpus@1: bulk import of tenants, users, documents and tasks (docs/formats.md)."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from services.contracts.task_state import TaskState
from services.core.principals import is_valid_acl_entry

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


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
    name: str = Field(min_length=1)


class CorpusUser(BaseModel):
    model_config = _RECORD

    user_id: str = Field(min_length=1, max_length=128)
    tenant_id: str = Field(min_length=1)
    display_name: str = ""
    roles: list[str] = Field(default_factory=list)
    grants: list[str] = Field(default_factory=list)


class CorpusDocument(BaseModel):
    model_config = _RECORD

    document_id: str = Field(min_length=1, max_length=200)
    version: int = Field(ge=1)
    tenant_id: str = Field(min_length=1)
    doc_type: DocType
    knowledge_class: KnowledgeClass
    status: DocStatus
    valid_from: date
    valid_to: date | None = None
    acl: list[str] = Field(min_length=1)
    language: str = "zh-Hant"
    title: str = Field(min_length=1)
    body: str = Field(min_length=1)
    customer_id: str | None = None
    approved_by: str | None = None

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


class Corpus(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    schema_version: Literal["corpus@1"]
    tenants: list[CorpusTenant] = Field(default_factory=list)
    users: list[CorpusUser] = Field(default_factory=list)
    documents: list[CorpusDocument] = Field(default_factory=list)
    tasks: list[CorpusTask] = Field(default_factory=list)
