"""Gathering evidence for a run: re-validate the last checkpoint, plan needs, retrieve, pool.

Retrieval is a deterministic tool, not an agent. Each need is one governed query as the
principal; the pool is everything this run retrieved or re-resolved, and it is the only
evidence a decision may cite. Evidence a previous checkpoint relied on is re-resolved first:
what was revoked or superseded since is dropped (and recorded), never reused blindly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict

from services.agents.documents import DocumentReader
from services.agents.exceptions import exceptions_to, task_facts
from services.agents.planning import Search, SupplementReading, plan_searches
from services.agents.ports import Similarity
from services.agents.runs import NewEvent, RunEventView, RunQueue, RunView
from services.agents.settlements import apply, settlements
from services.agents.tools import call_with_timeout
from services.agents.wording import reword, speaks
from services.approvals.engineering import EngineeringItem, find_items
from services.approvals.handover import EngineeringFact, merge_confirmed, still_to_confirm
from services.contracts.decision import MemoryDecision
from services.contracts.memory_input import (
    InputConflict,
    InputEngineeringItem,
    InputEvidence,
    InputTask,
    MemoryInput,
    Need,
)
from services.contracts.task_state import TaskState
from services.core.errors import MemdeskError
from services.core.principals import Principal
from services.language.glossary import mentions
from services.llm.ports import ModelUsage
from services.records.knowledge import KnowledgeStore
from services.records.tasks import TaskService, customer_of
from services.retrieval.types import Evidence, RetrievalResult, Retriever

SUPPLEMENT_PREFIX = "supplement:"


class Gathered(BaseModel):
    model_config = ConfigDict(frozen=True)

    needs: list[Need]
    pool: dict[str, Evidence]
    conflicts: list[InputConflict]
    engineering_items: list[EngineeringItem]
    supplement: str | None

    def relied_on(self) -> list[dict[str, Any]]:
        """What the analyzing checkpoint relies on: re-checked on the next resume."""
        return [
            {
                "evidence_id": item.evidence_id,
                "document_id": item.document_id,
                "version": item.version,
                "content_hash": item.content_hash,
                "needs": [need.key for need in self.needs if item.evidence_id in need.evidence_ids],
            }
            for item in self.pool.values()
        ]

    def memory_input(self, state: TaskState) -> MemoryInput:
        return MemoryInput(
            task=InputTask(
                task_id=state.task_id,
                revision=state.revision,
                status=state.status.value,
                confirmed=dict(state.confirmed),
                pending=list(state.pending),
                next_step=state.next_step,
            ),
            supplement=self.supplement,
            needs=self.needs,
            evidence=[
                InputEvidence(
                    evidence_id=item.evidence_id,
                    document_id=item.document_id,
                    version=item.version,
                    knowledge_class=item.knowledge_class,
                    doc_type=item.doc_type,
                    title=item.title,
                    quote=item.quote,
                )
                for item in self.pool.values()
            ],
            conflicts=self.conflicts,
            engineering_items=[
                InputEngineeringItem(
                    key=item.key, need=item.need, text=item.text, evidence_id=item.evidence_id
                )
                for item in self.engineering_items
            ],
        )

    def event_payload(self) -> dict[str, Any]:
        return {
            "evidence": [item.model_dump(mode="json") for item in self.pool.values()],
            "needs": [need.model_dump(mode="json") for need in self.needs],
            "conflicts": [conflict.model_dump(mode="json") for conflict in self.conflicts],
            "engineering_items": [item.model_dump(mode="json") for item in self.engineering_items],
            "supplement": self.supplement,
        }

    @classmethod
    def from_events(cls, events: list[RunEventView]) -> Gathered | None:
        pools = [event for event in events if event.kind == "evidence"]
        if not pools:
            return None
        payload = pools[-1].payload
        evidence = [Evidence.model_validate(item) for item in payload.get("evidence", [])]
        return cls(
            needs=[Need.model_validate(n) for n in payload.get("needs", [])],
            pool={item.evidence_id: item for item in evidence},
            conflicts=[InputConflict.model_validate(c) for c in payload.get("conflicts", [])],
            engineering_items=[
                EngineeringItem.model_validate(i) for i in payload.get("engineering_items", [])
            ],
            supplement=payload.get("supplement"),
        )


class Gatherer:
    def __init__(
        self,
        *,
        retriever: Retriever,
        knowledge: KnowledgeStore,
        tasks: TaskService,
        queue: RunQueue,
        k: int,
        tool_timeout_seconds: float,
        confirmed_facts: Callable[[Principal, str], list[EngineeringFact]] | None = None,
        similarity: Similarity | None = None,
    ) -> None:
        self._confirmed_facts = confirmed_facts
        self._similarity = similarity
        self._retriever = retriever
        self._knowledge = knowledge
        self._tasks = tasks
        self._queue = queue
        self._k = k
        self._timeout = tool_timeout_seconds

    def gather(
        self,
        principal: Principal,
        *,
        run: RunView,
        state: TaskState,
        reading: SupplementReading,
        as_of: date,
        cancel_point: Callable[..., None],
        remembered: tuple[str, ...] = (),
    ) -> Gathered:
        """`cancel_point(*events)` writes the events that are due with the run's cancel point,
        in one transaction: each retrieval's event goes with the check before the next one.
        `remembered` are facts the Memory Bank recalled for the task: like the recorded next
        step they raise topics to look up (context only), never evidence themselves."""
        # The customer the task belongs to: other customers' documents are not its evidence.
        customer = customer_of(state.confirmed)
        carried, revalidated = self._revalidate(principal, run, as_of, customer)
        pending: list[NewEvent] = [revalidated] if revalidated is not None else []
        # The task's own documents and its recorded next step say what the work is about.
        documents = self._task_documents(principal, state)
        notes = ((state.next_step,) if state.next_step else ()) + remembered
        searches = plan_searches(
            state, reading, run.supplement, documents, notes=notes, similarity=self._similarity
        )
        pool: dict[str, Evidence] = {}
        conflicts: list[InputConflict] = []
        final: list[Need] = []
        read_cost = ModelUsage()  # what a model reader of the spans cost, over every retrieval
        for search in searches:
            cancel_point(*pending)
            pending = []
            tries = self._retrieve(principal, search, documents, as_of, customer)
            query, result = standing(tries)
            need = search.need.model_copy(update={"query": query})
            ids: list[str] = []
            for item in [*result.evidence, *carried.get(need.key, [])]:
                pool.setdefault(item.evidence_id, item)
                if item.evidence_id not in ids:
                    ids.append(item.evidence_id)
            if need.required:
                for conflict in result.conflicts:
                    values = []
                    for value in conflict.values:
                        if value.evidence_id not in pool:
                            resolved = self._resolve(principal, value.evidence_id, as_of)
                            if resolved is None:
                                continue
                            pool[resolved.evidence_id] = resolved
                        values.append(value.model_dump(mode="json"))
                    conflicts.append(
                        InputConflict(need=need.key, fact=conflict.fact, values=values)
                    )
            final.append(
                need.model_copy(
                    update={
                        "retrieval_status": result.status,
                        "missing": list(result.missing),
                        "evidence_ids": ids,
                    }
                )
            )
            for tried, found in tries:
                stands = ids if found is result else None
                pending.append(_retrieval_event(need.key, tried, found, stands, as_of))
                read_cost = _plus(read_cost, found)
        # What is left to record (the last search's retrievals, settlements, exceptions, the
        # evidence) is written at the end in one transaction with the run's cancel point; if
        # gathering fails before, what it did so far is still written.
        try:
            if read_cost.model_calls:
                # On the run, so the tenant's daily token budget and `runs show` count them.
                self._queue.record(run.run_id, usage=read_cost)
            settled = settlements(self._tasks.events(principal, state.task_id))
            if settled and conflicts:
                applied = apply(final, pool, conflicts, settled)
                final, pool, conflicts = applied.needs, applied.pool, applied.conflicts
                if applied.settled:
                    pending.append(
                        NewEvent(kind="conflicts_settled", payload={"settled": applied.settled})
                    )
            reader = DocumentReader(self._retriever, principal, as_of=as_of, timeout=self._timeout)
            final, clauses = self._qualify(final, pool, state, reader)
            if clauses:
                pending.append(NewEvent(kind="exceptions", payload={"needs": clauses}))
            items = find_items(final, pool, reader.lines)
            for line in reader.lines_cited(items):
                pool.setdefault(line.evidence_id, line)
            if self._confirmed_facts is not None:  # what engineering confirmed for this task
                facts = self._confirmed_facts(principal, state.task_id)
                final, pool = merge_confirmed(final, pool, facts)
                items = still_to_confirm(items, facts)
            gathered = Gathered(
                needs=final,
                pool=pool,
                conflicts=conflicts,
                engineering_items=items,
                supplement=run.supplement,
            )
        except Exception:
            self._queue.add_events(run.run_id, pending)
            raise
        cancel_point(*pending, NewEvent(kind="evidence", payload=gathered.event_payload()))
        return gathered

    def _retrieve(
        self,
        principal: Principal,
        search: Search,
        documents: list[str],
        as_of: date,
        customer: str | None,
    ) -> list[tuple[str, RetrievalResult]]:
        def retrieve(query: str) -> RetrievalResult:
            return call_with_timeout(
                lambda: self._retriever.retrieve(
                    principal, query, k=self._k, as_of=as_of, customer_id=customer
                ),
                seconds=self._timeout,
                what=f"retrieval for {search.need.key}",
            )

        return search_tries(search, retrieve, documents)

    def _qualify(
        self,
        needs: list[Need],
        pool: dict[str, Evidence],
        state: TaskState,
        reader: DocumentReader,
    ) -> tuple[list[Need], dict[str, list[str]]]:
        """Attach to each need the clauses that set its rules aside for this task (read from
        the rules' own documents), and add them to the pool so a draft may cite them; with
        them, the clauses found per need (recorded on the run)."""
        facts = task_facts(state.confirmed, state.pending)
        qualified: list[Need] = []
        found: dict[str, list[str]] = {}
        for need in needs:
            ids: list[str] = []
            for evidence_id in need.evidence_ids:
                rule = pool.get(evidence_id)
                if rule is None or rule.knowledge_class != "fact":
                    continue
                if not mentions(rule.quote, need.key):
                    continue
                for clause in exceptions_to(rule, {need.key}, facts, reader):
                    pool.setdefault(clause.evidence_id, clause)
                    if clause.evidence_id not in ids:
                        ids.append(clause.evidence_id)
            if ids:
                found[need.key] = ids
            qualified.append(need.model_copy(update={"exceptions": ids}) if ids else need)
        return qualified, found

    def still_valid(self, principal: Principal, decision: MemoryDecision, as_of: date) -> bool:
        cited = {eid for claim in decision.claims for eid in claim.evidence_ids}
        return all(self._resolve(principal, eid, as_of) is not None for eid in cited)

    def _revalidate(
        self, principal: Principal, run: RunView, as_of: date, customer: str | None
    ) -> tuple[dict[str, list[Evidence]], NewEvent | None]:
        """Re-resolve what the task's last checkpoint relied on; keep only what still holds.
        The event saying so is returned, to be written with the next cancel point."""
        checkpoints = [c for c in self._tasks.checkpoints(principal, run.task_id) if c.relied_on]
        if not checkpoints:
            return {}, None
        kept: dict[str, list[Evidence]] = {}
        dropped: list[dict[str, str]] = []
        for entry in checkpoints[-1].relied_on:
            evidence_id = str(entry.get("evidence_id"))
            resolved = self._resolve(principal, evidence_id, as_of)
            if resolved is None:
                dropped.append({"evidence_id": evidence_id, "reason": "no longer valid evidence"})
            elif resolved.content_hash != entry.get("content_hash"):
                dropped.append({"evidence_id": evidence_id, "reason": "content changed"})
            elif customer is not None and resolved.customer_id not in (None, customer):
                dropped.append({"evidence_id": evidence_id, "reason": "another customer's"})
            else:
                for need in entry.get("needs") or []:
                    kept.setdefault(str(need), []).append(resolved)
        event = NewEvent(
            kind="revalidated",
            payload={
                "checkpoint_id": checkpoints[-1].id,
                "kept": sorted({e.evidence_id for items in kept.values() for e in items}),
                "dropped": dropped,
            },
        )
        return kept, event

    def _resolve(self, principal: Principal, evidence_id: str, as_of: date) -> Evidence | None:
        try:
            return call_with_timeout(
                lambda: self._retriever.resolve(principal, evidence_id, as_of=as_of),
                seconds=self._timeout,
                what=f"resolving {evidence_id}",
            )
        except MemdeskError:
            return None

    def _task_documents(self, principal: Principal, state: TaskState) -> list[str]:
        """Bodies of the documents the task names as its evidence (read with the principal's
        rights): they tell which topics the work is about."""
        bodies = []
        for document_id in state.evidence_ids:
            if document_id.startswith(SUPPLEMENT_PREFIX):
                continue
            try:
                bodies.append(self._knowledge.get(principal, document_id).body)
            except MemdeskError:
                continue
        return bodies


def search_tries(
    search: Search, retrieve: Callable[[str], RetrievalResult], documents: Sequence[str]
) -> list[tuple[str, RetrievalResult]]:
    """The need's governed retrieval, and those that follow it, until one finds enough. A need
    searched by its field's name may be searched again (services.agents.wording): by the
    task's own phrase in its language when the name found too little, or found evidence
    written in none of its words (the knowledge is in another language, judged by the
    embedding alone); and, when it found too little, by the name in the words of the evidence
    found ("cutoff" where the procedures write "cut-off"). A glossary field searched by both
    of its Chinese words (保固 保修) that found too little is searched by each alone."""
    queries = [search.need.query]
    tries: list[tuple[str, RetrievalResult]] = []
    while queries:
        query = queries.pop(0)
        result = retrieve(query)
        tries.append((query, result))
        tried = {q for q, _ in tries}
        after = [q for q in _after_name(search, query, result, documents) if q not in tried]
        if after:
            queries[:0] = list(dict.fromkeys(after))
        elif result.status != "insufficient_evidence":
            break
    return tries


def _after_name(
    search: Search, query: str, result: RetrievalResult, documents: Sequence[str]
) -> list[str]:
    """What to search for after the name's own search, or after a glossary field's search by
    both its Chinese words (each alone)."""
    if result.status == "source_conflict":
        return []  # a conflict is for a person, whatever other words would find
    if query == search.need.query and search.variants:
        return list(search.variants) if result.status == "insufficient_evidence" else []
    if query != search.by_name:
        return []
    found = [f"{e.title}\n{e.quote}" for e in result.evidence]
    foreign = not speaks(query, found)  # the knowledge is written in another language
    after: list[str] = []
    if search.phrase is not None and (foreign or result.status == "insufficient_evidence"):
        after.append(search.phrase)
    if search.pick is not None and foreign:
        after.append(search.pick)
    if result.status == "insufficient_evidence":
        after.append(reword(query, [*found, *documents]))
    return after


def standing(tries: list[tuple[str, RetrievalResult]]) -> tuple[str, RetrievalResult]:
    """The try that stands for the need: a conflict any of them found; else the last that found
    enough (the task's own phrase after a name judged by the embedding alone); else the first."""
    for query, result in tries:
        if result.status == "source_conflict":
            return query, result
    found = [(query, result) for query, result in tries if result.status == "ok"]
    return found[-1] if found else tries[0]


def _retrieval_event(
    key: str, query: str, result: RetrievalResult, ids: list[str] | None, as_of: date
) -> NewEvent:
    """A retrieval as recorded on the run; `ids`: the need's evidence when this try stands
    (what it found, and what the last checkpoint carried for the need)."""
    return NewEvent(
        kind="retrieval",
        payload={
            "need": key,
            "query": query,
            "status": result.status,
            "evidence_ids": ids if ids is not None else [e.evidence_id for e in result.evidence],
            "missing": list(result.missing),
            "dropped": dict(result.dropped),
            "index_version": result.index_version,
            "as_of": as_of.isoformat(),
            "reader": result.reader,
            "model_calls": result.model_calls,
            "tokens": result.tokens,
        },
    )


def _plus(usage: ModelUsage, result: RetrievalResult) -> ModelUsage:
    """span-reading@1 reports a reading's tokens as one total: they are counted as input tokens
    (the budget sums both); the run's cost_usd covers the drafting call only."""
    return ModelUsage(
        model_calls=usage.model_calls + result.model_calls,
        tokens_in=usage.tokens_in + result.tokens,
        tokens_out=usage.tokens_out,
    )
