"""The Memory Bank in a run: offer the events it receives, recall the task's memories, generate.

A run offers every conversation event it handles — the supplement it merged (author: the
person who resumed the task) and the task's own mails (author: the customer; read with the
requester's rights, each memory keeping the mail's ACL) — for the scopes they concern: the task,
the task's customer when it has one, and the supplement's author. Generation happens at the end
of the run, with the run as its source, and never fails it: a failure becomes a run event and
the offer stays owed for the task's next run or an idle worker. Recalled memories reach analysis
as `inference` context (memory-input@1 `memories`): they shape what is looked up and flagged,
and review refuses a claim that cites one.
"""

from __future__ import annotations

import time
from typing import Any

from services.agents.runs import NewEvent, RunView
from services.contracts.evidence_id import parse_evidence_id
from services.contracts.memory_input import MEMORY_REF_PREFIX, InputMemory
from services.contracts.task_state import TaskState
from services.core.errors import MemdeskError
from services.core.principals import Principal
from services.language.glossary import label
from services.llm.ports import ModelUsage
from services.memory.bank import MemoryBank, OfferOutcome, RecalledMemory
from services.memory.offers import Offer, OfferView
from services.memory.topics import KEY_TASK_DETAILS
from services.memory.types import Author, ConversationEvent, GenerateResult, Memory
from services.records.directory import Directory
from services.records.knowledge import KnowledgeStore
from services.records.tasks import TaskService

SUPPLEMENT_PREFIX = "supplement:"
RECALL_K = 5  # per scope: a handful of remembered facts, not a second evidence pool
OWED_PER_RUN = 10  # earlier failures of this task a run retries on its way out


def task_scopes(state: TaskState, *, author: str | None) -> list[dict[str, str]]:
    """The scopes a task's conversation concerns: the task, its customer, the author."""
    scopes = [{"task_id": state.task_id}]
    customer = state.confirmed.get("customer_id")
    if isinstance(customer, str) and customer:
        scopes.append({"customer_id": customer})
    if author:
        scopes.append({"user_id": author})
    return scopes


def memory_ref(memory_id: str, revision: int) -> str:
    return f"{MEMORY_REF_PREFIX}{memory_id}@r{revision}"


class RunMemories:
    def __init__(
        self,
        *,
        bank: MemoryBank,
        knowledge: KnowledgeStore,
        directory: Directory,
        tasks: TaskService,
    ) -> None:
        self._tasks = tasks
        self._bank = bank
        self._knowledge = knowledge
        self._directory = directory

    # ---- offering --------------------------------------------------------------------
    def offers_of(self, principal: Principal, run: RunView, state: TaskState) -> list[Offer]:
        """What this run received, one offer per scope it concerns."""
        return [
            *self._supplement_offers(principal, run, state),
            *self._mail_offers(principal, state),
        ]

    def owe(self, principal: Principal, run: RunView) -> None:
        """A run that ends without its generation step (dead-lettered, failed, cancelled)
        still leaves its events owed, for the task's next run or an idle worker."""
        state = self._tasks.get(principal, run.task_id).state
        self._bank.offer(
            principal, run_id=run.run_id, offered=self.offers_of(principal, run, state)
        )

    def _supplement_offers(
        self, principal: Principal, run: RunView, state: TaskState
    ) -> list[Offer]:
        if not run.supplement:
            return []
        event = ConversationEvent(
            kind="supplement",
            author=_author(principal),
            author_id=principal.user_id,
            text=run.supplement,
            event_id=f"{SUPPLEMENT_PREFIX}{run.run_id}",
        )
        return [
            Offer(scope=scope, events=(event,), task_id=state.task_id)
            for scope in task_scopes(state, author=principal.user_id)
        ]

    def _mail_offers(self, principal: Principal, state: TaskState) -> list[Offer]:
        """The task's mails the requester may read; a mail has no author among our users."""
        found: list[Offer] = []
        for document_id in state.evidence_ids:
            if document_id.startswith(SUPPLEMENT_PREFIX) or document_id.startswith("APPROVAL-"):
                continue
            try:
                mail = self._knowledge.get(principal, document_id)
            except MemdeskError:
                continue  # not readable, or no current version: nothing to offer
            if mail.doc_type != "mail":
                continue
            text = mail.body[:20_000]
            # Named as a citation of the mail's text: whoever may not read the mail sees it
            # withheld wherever it appears (run events, hand-offs; services/records/redaction).
            span = f"{mail.ref}:0-{len(text)}"
            event = ConversationEvent(kind="mail", author="customer", text=text, event_id=span)
            found += [
                Offer(scope=scope, events=(event,), acl=tuple(mail.acl), task_id=state.task_id)
                for scope in task_scopes(state, author=None)
            ]
        return found

    # ---- recall ----------------------------------------------------------------------
    def recall(
        self, principal: Principal, run: RunView, state: TaskState
    ) -> tuple[list[InputMemory], tuple[NewEvent, ...]]:
        """The task's memories most similar to its pending items and the supplement."""
        # Each pending item in both languages: a memory is written in its conversation's.
        queries = [label(item, chinese=zh) for item in state.pending for zh in (True, False)]
        if run.supplement:
            queries.append(run.supplement)
        try:
            recalled = self._bank.recall(
                principal,
                scopes=task_scopes(state, author=principal.user_id),
                queries=queries,
                k=RECALL_K,
                audited=False,  # the run event below is the audited record of this retrieval
            )
        except Exception as exc:
            return [], (_failed("recall", exc),)
        if any(item.memory.topic == KEY_TASK_DETAILS for item in recalled):
            own = self._bank.task_events(tenant_id=principal.tenant_id, task_id=state.task_id)
            recalled = [item for item in recalled if _about_this_task(item, state, own)]
        memories = [_input(item) for item in recalled]
        if not memories:
            return [], ()
        payload = {
            "memory_ids": [item.memory.memory_id for item in recalled],
            "memories": [_used(item) for item in recalled],
        }
        return memories, (NewEvent(kind="memories_recalled", payload=payload),)

    # ---- generation ------------------------------------------------------------------
    def generate(
        self, principal: Principal, run: RunView
    ) -> tuple[tuple[NewEvent, ...], ModelUsage, float]:
        """On the run's way out: generate what it received and what the task still owes
        (earlier failures), the run as their source. Returns the run events, the model usage
        and the milliseconds spent; never raises."""
        started = time.perf_counter()
        try:
            state = self._tasks.get(principal, run.task_id).state
            fresh = self.offers_of(principal, run, state)
            owed = self._bank.owed(
                tenant_id=principal.tenant_id, task_id=run.task_id, limit=OWED_PER_RUN
            )
            outcomes = self._bank.generate_offered(
                principal, run_id=run.run_id, fresh=fresh, owed=owed
            )
        except Exception as exc:  # the offers stay owed; the run goes on
            return (_failed("generate", exc),), ModelUsage(), _ms(started)
        events = [_outcome_event(o) for o in outcomes]
        usage = ModelUsage(
            model_calls=sum(o.result.model_calls for o in outcomes if o.result),
            tokens_in=sum(o.result.tokens for o in outcomes if o.result),
        )
        others = [o for o in owed if o.actor != principal.user_id]
        for offer in others:  # owed by someone else's run: generated with their rights
            event, spent = self._fulfil(None, offer)
            events.append(event)
            usage = _add(usage, spent)
        return tuple(events), usage, _ms(started)

    def catch_up(self, *, limit: int = OWED_PER_RUN) -> list[dict[str, Any]]:
        """What an idle worker does: try the oldest owed offers of any tenant, each as the
        person whose run offered it. One line per offer tried (for the worker's log)."""
        tried: list[dict[str, Any]] = []
        for offer in self._bank.owed(limit=limit):
            event, _ = self._fulfil(None, offer)
            tried.append({"offer": offer.id, "kind": event.kind, **event.payload})
        return tried

    def _fulfil(self, principal: Principal | None, offer: OfferView) -> tuple[NewEvent, ModelUsage]:
        scope = "&".join(f"{k}={v}" for k, v in sorted(offer.scope.items()))
        about = {"scope": scope, "event_id": offer.event_id, "source_run": offer.run_id}
        try:
            if principal is None or principal.user_id != offer.actor:
                principal = self._directory.principal(offer.actor)
            result = self._bank.fulfil(principal, offer)
        except Exception as exc:  # recorded on the offer and as a run event; retried later
            failed = _failed("generate", exc)
            payload = {**failed.payload, **about, "attempt": offer.attempts + 1}
            return NewEvent(kind=failed.kind, payload=payload), ModelUsage()
        if result is None:
            done = {**about, "already_done": True}
            return NewEvent(kind="memory_generated", payload=done), ModelUsage()
        payload = {**about, **_counts(result)}
        spent = ModelUsage(model_calls=result.model_calls, tokens_in=result.tokens)
        return NewEvent(kind="memory_generated", payload=payload), spent


def _outcome_event(outcome: OfferOutcome) -> NewEvent:
    about = {
        "scope": outcome.scope,
        "event_id": outcome.event_id,
        "source_run": outcome.source_run,
    }
    if outcome.already_done:
        return NewEvent(kind="memory_generated", payload={**about, "already_done": True})
    if outcome.result is None:
        reason = (outcome.error or "unknown").split(":", 1)[0]
        payload = {**about, "stage": "generate", "reason": reason, "error": outcome.error}
        return NewEvent(
            kind="memory_generation_failed", payload={**payload, "attempt": outcome.attempt}
        )
    return NewEvent(kind="memory_generated", payload={**about, **_counts(outcome.result)})


def _counts(result: GenerateResult) -> dict[str, Any]:
    changes: dict[str, int] = {}
    for change in result.changes:
        changes[change.action] = changes.get(change.action, 0) + 1
    return {
        "generation_id": result.generation_id,
        "config": result.config or "default",
        "extractor": result.extractor,
        "changes": changes,
        "model_calls": result.model_calls,
        "tokens": result.tokens,
    }


def _author(principal: Principal) -> Author:
    for role in ("sales", "engineer"):
        if principal.has_role(role):
            return role
    return "user"


def _drawn_from(memory: Memory) -> tuple[str | None, int | None]:
    """The document version a memory was drawn from (a mail), if any."""
    parsed = parse_evidence_id(memory.source.event_id or "") if memory.source else None
    return (parsed[0], parsed[1]) if parsed is not None else (None, None)


def _input(item: RecalledMemory) -> InputMemory:
    memory = item.memory
    source = memory.source
    document_id, version = _drawn_from(memory)
    return InputMemory(
        document_id=document_id,
        version=version,
        memory_ref=memory_ref(memory.memory_id, memory.revision),
        memory_id=memory.memory_id,
        revision=memory.revision,
        scope=dict(memory.scope),
        topic=memory.topic,
        fact=memory.fact,
        source_event=_source_event(source.kind, source.event_id) if source else None,
    )


def _about_this_task(item: RecalledMemory, state: TaskState, own: frozenset[str]) -> bool:
    """Key task details are the milestones and requirements of one enquiry. Those the author's
    or the customer's scope kept from another task's events («客戶確定要 7 日內交貨» from Q48's
    supplement) say nothing about this task and must not raise its searches; profiles,
    preferences and instructions of the customer or the author carry over."""
    if item.memory.topic != KEY_TASK_DETAILS:
        return True
    if dict(item.memory.scope) == {"task_id": state.task_id}:
        return True
    source = item.memory.source
    return source is not None and source.event_id in own


def _used(item: RecalledMemory) -> dict[str, Any]:
    memory = item.memory
    source = memory.source
    document_id, version = _drawn_from(memory)
    drawn = {"document_id": document_id, "version": version} if document_id else {}
    return {
        **drawn,
        "memory_id": memory.memory_id,
        "revision": memory.revision,
        "scope": dict(memory.scope),
        "topic": memory.topic,
        "fact": memory.fact,
        "score": item.score,
        "source_event": _source_event(source.kind, source.event_id) if source else None,
        "source_run": source.run_id if source else None,
    }


def _source_event(kind: str, event_id: str | None) -> str:
    return f"{kind} {event_id}" if event_id else kind


def _failed(stage: str, exc: Exception) -> NewEvent:
    reason = getattr(exc, "reason", None) or type(exc).__name__
    return NewEvent(
        kind="memory_generation_failed",
        payload={"stage": stage, "reason": str(reason), "error": str(exc)[:500]},
    )


def _add(total: ModelUsage, more: ModelUsage) -> ModelUsage:
    return ModelUsage(
        model_calls=total.model_calls + more.model_calls,
        tokens_in=total.tokens_in + more.tokens_in,
        tokens_out=total.tokens_out + more.tokens_out,
        cost_usd=total.cost_usd + more.cost_usd,
    )


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
