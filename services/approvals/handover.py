"""What engineering confirmed, handed to the next run of the task as confirmed facts.

An engineer approving an engineering item may record a structured result beside the comment:
extra working days, method, acceptance criteria, equipment. Those results are facts a person
with the authority confirmed; the next run of the task receives them as evidence of their own,
each cited to its approval record (`APPROVAL-<id>@<decision version>:0-<length>`, the text
being the fact as recorded), so a draft can state "special inspection adds 3 working days"
because engineering said so, not because a model inferred it.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from services.approvals.engineering import EngineeringItem
from services.approvals.store import APPROVED, REJECTED, ApprovalService, ApprovalView
from services.contracts.evidence_id import (
    APPROVAL_PREFIX,
    approval_id_of,
    evidence_id_for,
    parse_evidence_id,
)
from services.contracts.memory_input import Need
from services.core.errors import InvalidInput, NotFound
from services.core.principals import Principal
from services.retrieval.types import Evidence, RetrievalResult, Retriever

MAX_DAYS = 365


class EngineeringResult(BaseModel):
    """An engineer's result in fields; every field optional, text fields trimmed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    extra_working_days: int | None = Field(default=None, ge=0, le=MAX_DAYS)
    method: str = Field(default="", max_length=300)
    acceptance_criteria: str = Field(default="", max_length=1000)
    equipment: str = Field(default="", max_length=300)

    @field_validator("method", "acceptance_criteria", "equipment")
    @classmethod
    def _trim(cls, value: str) -> str:
        return value.strip()

    @property
    def is_empty(self) -> bool:
        return self.extra_working_days is None and not (
            self.method or self.acceptance_criteria or self.equipment
        )

    @classmethod
    def parse(cls, raw: dict[str, Any] | None) -> EngineeringResult | None:
        """From a form or a CLI: None when nothing was filled in; InvalidInput naming the field."""
        if not raw:
            return None
        try:
            result = cls.model_validate(raw)
        except ValidationError as exc:
            where = ", ".join(".".join(str(p) for p in e["loc"]) for e in exc.errors()) or "?"
            first = exc.errors()[0]["msg"] if exc.errors() else str(exc)
            raise InvalidInput(f"engineering result {where}: {first}") from exc
        return None if result.is_empty else result


class EngineeringFact(BaseModel):
    """One approved engineering item with its result, as the next run receives it."""

    model_config = ConfigDict(frozen=True)

    approval_id: int
    task_id: str
    decision_version: int
    item_key: str
    item_text: str
    need: str
    result: EngineeringResult
    comment: str | None
    decided_by: str
    decided_at: datetime

    @property
    def document_id(self) -> str:
        return approval_ref(self.approval_id)

    @property
    def text(self) -> str:
        """The fact as recorded: the item, then each field that was filled in."""
        parts = [f"{self.item_text.strip()} — 工程確認 confirmed by engineering"]
        result = self.result
        if result.extra_working_days is not None:
            parts.append(f"額外工作天 extra working days: {result.extra_working_days}")
        if result.method:
            parts.append(f"方法 method: {result.method}")
        if result.acceptance_criteria:
            parts.append(f"允收標準 acceptance criteria: {result.acceptance_criteria}")
        if result.equipment:
            parts.append(f"設備 equipment: {result.equipment}")
        return "; ".join(parts)

    @property
    def evidence_id(self) -> str:
        return evidence_id_for(self.document_id, self.decision_version, 0, len(self.text))

    def as_evidence(self) -> Evidence:
        """Evidence for the run's pool: an authoritative fact, quoted whole from its record."""
        text = self.text
        return Evidence(
            evidence_id=self.evidence_id,
            document_id=self.document_id,
            version=self.decision_version,
            chunk_id=f"{self.document_id}#result",
            knowledge_class="fact",
            doc_type="approval",
            title=f"工程確認 Engineering confirmation {self.item_key} ({self.decided_by})",
            start=0,
            end=len(text),
            quote=text,
            content_hash=_hash(text),
        )


def approval_ref(approval_id: int) -> str:
    return f"{APPROVAL_PREFIX}{approval_id}"


def approval_id_in(evidence_id: str) -> int | None:
    """The approval record a citation names, or None for a document citation."""
    parsed = parse_evidence_id(evidence_id)
    return approval_id_of(parsed[0]) if parsed is not None else None


def _hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _fact(item: ApprovalView) -> EngineeringFact | None:
    result = EngineeringResult.parse(item.result)
    if item.kind != "engineering" or item.status != APPROVED or result is None:
        return None
    return EngineeringFact(
        approval_id=item.id,
        task_id=item.task_id,
        decision_version=item.decision_version,
        item_key=item.item_key,
        item_text=str(item.payload.get("text", item.item_key)),
        need=str(item.payload.get("need", "")),
        result=result,
        comment=item.comment,
        decided_by=item.decided_by or "?",
        decided_at=item.decided_at or item.requested_at,
    )


class EngineeringHandover:
    """Confirmed engineering results of a task, for its next run (read as the run's principal,
    so tenant and task visibility are the approvals store's own)."""

    def __init__(self, *, approvals: ApprovalService) -> None:
        self._approvals = approvals

    def facts(self, principal: Principal, task_id: str) -> list[EngineeringFact]:
        """The latest approved result per engineering item text (a later decision of the same
        point replaces an earlier one; a later rejection of it withdraws it)."""
        latest: dict[str, EngineeringFact] = {}
        for item in self._approvals.search(principal, task_id=task_id, limit=1000):
            fact = _fact(item)  # search is in id order: later wins
            if fact is not None:
                latest[fact.item_text] = fact
            elif item.kind == "engineering" and item.status == REJECTED:
                latest.pop(str(item.payload.get("text", item.item_key)), None)
        return list(latest.values())

    def evidence(self, principal: Principal, task_id: str) -> list[Evidence]:
        return [fact.as_evidence() for fact in self.facts(principal, task_id)]

    def resolve(self, principal: Principal, evidence_id: str) -> Evidence | None:
        """The evidence a citation of an approval record names, if it still holds as cited."""
        approval_id = approval_id_in(evidence_id)
        if approval_id is None:
            return None
        fact = _fact(self._approvals.get(principal, approval_id))
        if fact is None or fact.evidence_id != evidence_id:
            return None
        return fact.as_evidence()


def merge_confirmed(
    needs: list[Need], pool: dict[str, Evidence], facts: list[EngineeringFact]
) -> tuple[list[Need], dict[str, Evidence]]:
    """A run's needs and pool with the confirmed engineering facts added: each fact backs the
    need it was confirmed for, or, when this run did not plan that need, every required need
    (the fact is about this task's job; the analysis decides where it matters)."""
    if not facts:
        return needs, pool
    pool = dict(pool)
    planned = {need.key for need in needs}
    extra: dict[str, list[str]] = {}
    for fact in facts:
        evidence = fact.as_evidence()
        pool[evidence.evidence_id] = evidence
        targets = [fact.need] if fact.need in planned else [n.key for n in needs if n.required]
        for key in targets:
            extra.setdefault(key, []).append(evidence.evidence_id)
    merged = [
        need.model_copy(
            update={"evidence_ids": list(dict.fromkeys([*need.evidence_ids, *extra[need.key]]))}
        )
        if need.key in extra
        else need
        for need in needs
    ]
    return merged, pool


def still_to_confirm(
    items: list[EngineeringItem], facts: list[EngineeringFact]
) -> list[EngineeringItem]:
    """The engineering items a run finds minus those engineering already confirmed for this
    task with a result (same point, same text): a confirmed point is a fact of the next draft,
    not a question to ask the engineer again. A changed procedure line is a new point."""
    confirmed = {fact.item_text for fact in facts}
    return [item for item in items if item.text not in confirmed]


class WithEngineeringResults:
    """A Retriever that also resolves citations of approval records (engineering results), so
    review and approval re-check them like any other citation; everything else is delegated."""

    def __init__(self, retriever: Retriever, handover: EngineeringHandover) -> None:
        self._retriever = retriever
        self._handover = handover

    def retrieve(
        self,
        principal: Principal,
        query: str,
        *,
        k: int = 5,
        as_of: date | None = None,
        customer_id: str | None = None,
    ) -> RetrievalResult:
        return self._retriever.retrieve(principal, query, k=k, as_of=as_of, customer_id=customer_id)

    def resolve(
        self, principal: Principal, evidence_id: str, *, as_of: date | None = None
    ) -> Evidence:
        if approval_id_in(evidence_id) is None:
            return self._retriever.resolve(principal, evidence_id, as_of=as_of)
        try:
            found = self._handover.resolve(principal, evidence_id)
        except NotFound:
            found = None
        if found is None:
            raise NotFound("evidence", evidence_id)
        return found

    def __getattr__(self, name: str) -> Any:
        # Anything else the wrapped retriever offers (statistics, caches) stays reachable.
        return getattr(self._retriever, name)
