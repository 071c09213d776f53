"""The Review agent: independent deterministic checks on every decision, before anyone sees it.

It does not trust the analyzer (offline or model): it re-validates the contract, re-resolves
every citation through governed retrieval as the principal, and compares each claim's numbers
with the quotes it cites. A failed check sends the run to a person with the reasons; nothing
is repaired here.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from services.agents.documents import DocumentReader, overlaps
from services.agents.exceptions import exceptions_to, task_facts, topics, triggers
from services.agents.planning import contradictions
from services.contracts.decision import DecisionStatus, MemoryDecision, NextAction
from services.contracts.memory_input import MEMORY_REF_PREFIX, MemoryInput
from services.core.errors import MemdeskError
from services.core.principals import Principal
from services.language.sentences import asserted, looks_like_instruction, looks_like_link, numbers
from services.llm.ports import ModelUsage
from services.retrieval.types import Evidence, Retriever

_HISTORY_LABEL = re.compile(
    r"歷史|历史|過去|过去|以往|先前|前次|history|historical|previous|past|earlier", re.IGNORECASE
)


class ReviewCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    passed: bool
    problems: list[str] = []


class ReviewReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    schema_version: str = "review-report@1"
    passed: bool
    checks: list[ReviewCheck]
    reasons: list[str]
    model_review: list[str] | None = None
    usage: ModelUsage = ModelUsage()


class ModelReviewer(Protocol):
    """An optional second opinion; it can only add problems, never clear a failed check."""

    def review(
        self, principal: Principal, data: MemoryInput, decision: MemoryDecision
    ) -> tuple[list[str], ModelUsage]: ...


class ReviewAgent:
    def __init__(self, *, retriever: Retriever, model_reviewer: ModelReviewer | None = None):
        self._retriever = retriever
        self._model_reviewer = model_reviewer

    def review(
        self,
        principal: Principal,
        *,
        raw_decision: dict[str, Any],
        data: MemoryInput,
        pool: dict[str, Evidence],
        as_of: date,
    ) -> ReviewReport:
        try:
            decision = MemoryDecision.model_validate(raw_decision)
        except ValidationError as exc:
            problems = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
            check = ReviewCheck(name="schema", passed=False, problems=problems)
            return ReviewReport(passed=False, checks=[check], reasons=problems)
        checks = [
            ReviewCheck(name="schema", passed=True),
            _check("task", _task(decision, data)),
            _check("status", _status(decision, data)),
            _check("no_reasking", _no_reasking(decision, data)),
            _check("confirmed_respected", _confirmed(decision, data)),
            _check("citations_retrieved", _retrieved(decision, pool)),
            _check("citations_readable", self._readable(principal, decision, pool, as_of)),
            _check("numbers_in_quotes", _numbers(decision, pool)),
            _check("history_not_commitment", _history(decision, pool)),
            _check(
                "exceptions_respected", self._exceptions(principal, decision, data, pool, as_of)
            ),
            _check("not_inference_only", _inference(decision, pool)),
            _check("no_memory_citations", _memories(decision, data)),
            _check("no_instructions", _instructions(decision)),
            _check("no_links", _links(decision)),
        ]
        reasons = [problem for check in checks for problem in check.problems]
        model_review: list[str] | None = None
        usage = ModelUsage()
        if not reasons and self._model_reviewer is not None:
            model_review, usage = self._model_reviewer.review(principal, data, decision)
            if model_review:
                checks.append(ReviewCheck(name="model_review", passed=False, problems=model_review))
                reasons += model_review
        return ReviewReport(
            passed=not reasons,
            checks=checks,
            reasons=reasons,
            model_review=model_review,
            usage=usage,
        )

    def _readable(
        self, principal: Principal, decision: MemoryDecision, pool: dict[str, Evidence], at: date
    ) -> list[str]:
        problems = []
        for evidence_id in _cited(decision):
            try:
                current = self._retriever.resolve(principal, evidence_id, as_of=at)
            except MemdeskError as exc:
                problems.append(f"{evidence_id} is not readable evidence now: {exc}")
                continue
            known = pool.get(evidence_id)
            if known is not None and current.content_hash != known.content_hash:
                problems.append(f"{evidence_id} changed since it was retrieved")
        return problems

    def _exceptions(
        self,
        principal: Principal,
        decision: MemoryDecision,
        data: MemoryInput,
        pool: dict[str, Evidence],
        at: date,
    ) -> list[str]:
        """A claim citing a rule whose own document sets it aside for this task (an exception
        or condition the task's facts meet) states the wrong thing unless it cites that clause
        too: the draft must state the exception."""
        facts = task_facts(data.task.confirmed, data.task.pending)
        reader = DocumentReader(self._retriever, principal, as_of=at)
        problems = []
        for index, claim in enumerate(decision.claims, start=1):
            cited = [pool[eid] for eid in claim.evidence_ids if eid in pool]
            for rule in cited:
                if rule.knowledge_class != "fact":
                    continue
                about = topics(rule.quote) - set(triggers(rule.quote, facts, besides=set()))
                unmet = [
                    clause
                    for clause in exceptions_to(rule, about, facts, reader)
                    if not any(overlaps(clause, other) for other in cited)
                ]
                if unmet:
                    problems.append(
                        f"claim {index} cites {rule.evidence_id}, a rule that "
                        f"{unmet[0].evidence_id} sets aside for this task: "
                        f"「{unmet[0].quote}」"
                    )
                    break
        return problems


def _check(name: str, problems: list[str]) -> ReviewCheck:
    return ReviewCheck(name=name, passed=not problems, problems=problems)


def _cited(decision: MemoryDecision) -> list[str]:
    return list(dict.fromkeys(eid for claim in decision.claims for eid in claim.evidence_ids))


def _task(decision: MemoryDecision, data: MemoryInput) -> list[str]:
    problems = []
    if decision.task_id != data.task.task_id:
        problems.append(f"decision is for task {decision.task_id!r}, not {data.task.task_id!r}")
    if decision.state_revision != data.task.revision:
        problems.append(
            f"decision is based on revision {decision.state_revision}, "
            f"the analysis was given revision {data.task.revision}"
        )
    return problems


def _status(decision: MemoryDecision, data: MemoryInput) -> list[str]:
    problems = []
    status, action = decision.status, decision.proposed_next_action
    if data.conflicts and status != DecisionStatus.source_conflict:
        problems.append("retrieval found conflicting sources but the decision is " + status)
    short = [n.key for n in data.needs if n.required and n.retrieval_status != "ok"]
    if status == DecisionStatus.ready_for_review:
        if short and not data.conflicts:
            problems.append(f"ready_for_review although evidence is missing for {short}")
        if not decision.claims:
            problems.append("ready_for_review without any claim")
        if action != NextAction.human_review:
            problems.append("a ready draft goes to human_review, not " + action)
    if status == DecisionStatus.insufficient_evidence:
        if not decision.missing_fields:
            problems.append("insufficient_evidence must name what is missing")
        if action != NextAction.request_information:
            problems.append("insufficient_evidence goes to request_information, not " + action)
    if status == DecisionStatus.source_conflict and action != NextAction.human_review:
        problems.append("a source conflict goes to human_review, not " + action)
    return problems


def _no_reasking(decision: MemoryDecision, data: MemoryInput) -> list[str]:
    asked = [field for field in decision.missing_fields if field in data.task.confirmed]
    return [f"asks again for confirmed field {field!r}" for field in asked]


_CHANGE = re.compile(
    r"改為|改为|改成|變更為|变更为|更改為|更改为|調整為|调整为|更新為|更新为"
    r"|\b(?:change[sd]?|set|update[sd]?|increase[sd]?|reduce[sd]?|raise[sd]?)\s+(?:it\s+)?to\b",
    re.IGNORECASE,
)


def _confirmed(decision: MemoryDecision, data: MemoryInput) -> list[str]:
    """A claim never restates a confirmed field with another value: changing one is a
    person's decision on the task (a conflict), never a draft's."""
    problems = []
    for index, claim in enumerate(decision.claims, start=1):
        for field, stated in contradictions(data.task.confirmed, claim.text).items():
            confirmed = data.task.confirmed[field]
            if isinstance(confirmed, int | float) and not _CHANGE.search(asserted(claim.text)):
                continue  # quoted procedures state thresholds ("3,000 件以上"), not the order's
            problems.append(
                f"claim {index} states {field} {stated!r}, but {data.task.confirmed[field]!r} "
                "is confirmed"
            )
    return problems


def _retrieved(decision: MemoryDecision, pool: dict[str, Evidence]) -> list[str]:
    return [
        f"{evidence_id} was not retrieved in this run"
        for evidence_id in _cited(decision)
        if evidence_id not in pool
    ]


def _claim_numbers(text: str, cited: list[Evidence]) -> set[Any]:
    """Numbers a claim states, leaving out the references to what it cites (DOC v2, ids)."""
    for item in cited:
        text = text.replace(item.evidence_id, " ")
        text = re.sub(rf"{re.escape(item.document_id)}(?:\s*[@vV]\s*{item.version}\b)?", " ", text)
        text = re.sub(rf"(?<![A-Za-z0-9])(?:v|V|ver\.?|version)\s*{item.version}\b", " ", text)
        text = re.sub(rf"第\s*{item.version}\s*版", " ", text)
    return numbers(text)


def _numbers(decision: MemoryDecision, pool: dict[str, Evidence]) -> list[str]:
    problems = []
    for index, claim in enumerate(decision.claims, start=1):
        cited = [pool[eid] for eid in claim.evidence_ids if eid in pool]
        quoted = set().union(*(numbers(item.quote) for item in cited)) if cited else set()
        stray = sorted(_claim_numbers(claim.text, cited) - quoted)
        if stray:
            shown = ", ".join(format(value, "f") for value in stray)
            problems.append(f"claim {index} states {shown} which its cited quotes do not contain")
    return problems


def _history(decision: MemoryDecision, pool: dict[str, Evidence]) -> list[str]:
    problems = []
    for index, claim in enumerate(decision.claims, start=1):
        cited = [pool[eid] for eid in claim.evidence_ids if eid in pool]
        if not cited or _HISTORY_LABEL.search(claim.text):
            continue
        current = [item for item in cited if not item.is_history]
        if not current:
            problems.append(f"claim {index} rests on history only but reads as a current fact")
            continue
        from_current = set().union(*(numbers(item.quote) for item in current))
        only_history = _claim_numbers(claim.text, cited) - from_current
        if only_history:
            problems.append(f"claim {index} takes amounts from history as a current commitment")
    return problems


def _inference(decision: MemoryDecision, pool: dict[str, Evidence]) -> list[str]:
    problems = []
    for index, claim in enumerate(decision.claims, start=1):
        cited = [pool[eid] for eid in claim.evidence_ids if eid in pool]
        if cited and all(item.knowledge_class == "inference" for item in cited):
            problems.append(f"claim {index} is backed only by inference")
    return problems


def _memories(decision: MemoryDecision, data: MemoryInput) -> list[str]:
    """A memory is inference handed over as context (docs/memory-bank.md §1): a claim that
    cites one — by its reference or its bare id — is refused, whatever else it cites."""
    recalled = {m.memory_ref: m for m in data.memories} | {m.memory_id: m for m in data.memories}
    problems = []
    for index, claim in enumerate(decision.claims, start=1):
        for cited in claim.evidence_ids:
            memory = recalled.get(cited)
            if memory is not None or cited.startswith(MEMORY_REF_PREFIX):
                shown = memory.memory_ref if memory is not None else cited
                problems.append(
                    f"claim {index} cites memory {shown}: memories are inference, never evidence"
                )
    return problems


def _instructions(decision: MemoryDecision) -> list[str]:
    return [
        f"claim {index} repeats an instruction found in data"
        for index, claim in enumerate(decision.claims, start=1)
        if looks_like_instruction(claim.text)
    ]


def _links(decision: MemoryDecision) -> list[str]:
    """An internal draft never needs a URL, Markdown link or image, or HTML: rendered, they
    could send data out (an image fetch) or lead a reader off to an attacker's page."""
    return [
        f"claim {index} contains a link or markup"
        for index, claim in enumerate(decision.claims, start=1)
        if looks_like_link(claim.text)
    ]
