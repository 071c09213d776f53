"""The Memory Bank service: generate, consolidate, retrieve, revise, roll back and delete memories.

Every function takes the acting principal; the tenant is always the principal's and retrieval
needs an exact scope match. Memories are `inference`: they inform people and agents, they are
never evidence a claim may cite.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from services.core.clock import Clock, IdGenerator
from services.core.errors import InvalidInput, LegalHold, MemdeskError, NotAuthorized, NotFound
from services.core.policy import Permission, require
from services.core.principals import Principal, is_valid_acl_entry
from services.db.engine import Database
from services.db.models import TaskRow
from services.db.models_memory import MemoryOfferRow, MemoryRevisionRow, MemoryRow
from services.llm.ports import TransientFailure
from services.memory import consolidate, offers
from services.memory import expiry as retention
from services.memory.access import (
    can_read_scope,
    require_writer,
    to_memory,
    to_revision,
    unpack,
)
from services.memory.config import (
    ConfigDefaults,
    MemoryConfig,
    config_for_scope,
    load_policy,
)
from services.memory.offers import Offer, OfferView
from services.memory.topics import BUILTIN_EXAMPLES
from services.memory.ttl import is_expired
from services.memory.types import (
    BankModels,
    ConversationEvent,
    CustomizationConfig,
    ExtractedFact,
    Extraction,
    FewShotExample,
    GenerateResult,
    Memory,
    MemoryChange,
    MemoryPolicy,
    MemoryPurgeReport,
    MemoryRevision,
    ScoredMemory,
    SourceRef,
    Topic,
    canonical_scope,
)
from services.memory.vectors import remembering
from services.memory.writes import (
    HeldAudits,
    MemoryWriter,
    Target,
    audits_held,
    lock_scope,
    utc,
)
from services.records import holds
from services.records.tasks import may_see_customer
from services.retrieval.embedders import Embedder, Vectors

MAX_EVENTS = 200  # one conversation; a mailbox is imported in several generations
MAX_K = 100
# Memories whose revisions one query reads (bound parameters stay far below every driver's cap).
HISTORY_BATCH = 500


class Extractor(Protocol):
    """Turns conversation events into candidate memories for the enabled topics."""

    name: str

    def extract(
        self,
        events: Sequence[ConversationEvent],
        *,
        topics: Sequence[Topic],
        examples: Sequence[FewShotExample] = (),
        third_person: bool = False,
    ) -> Extraction: ...


class Described(Protocol):
    """A model-backed component names the model it calls."""

    name: str


@dataclass(frozen=True)
class _RemoteDecision:
    plan: consolidate.Plan
    snapshot: dict[str, int]  # memory_id -> revision the model saw
    model_calls: int
    tokens: int


@dataclass(frozen=True)
class _ScopeRules:
    """What a generation for one scope goes by: its key, its config, the tenant's policy."""

    scope_key: str
    config: CustomizationConfig
    policy: MemoryPolicy


@dataclass(frozen=True)
class _Prepared:
    """A generation between its model calls and its write."""

    generation_id: str
    target: Target
    config: CustomizationConfig
    events: tuple[ConversationEvent, ...]
    extraction: Extraction
    kept: Extraction
    dropped: tuple[MemoryChange, ...]
    decided: _RemoteDecision | None


class OfferOutcome(BaseModel):
    """What became of one offer a run generated (its result, or why it stays owed)."""

    model_config = ConfigDict(frozen=True)

    offer_id: int
    scope: str
    event_id: str
    source_run: str
    result: GenerateResult | None = None
    error: str | None = None
    attempt: int = 1
    already_done: bool = False


class _AlreadyDone(Exception):
    """Another process generated this offer first: nothing to do, nothing to record."""


class RecalledMemory(BaseModel):
    """A memory handed to an agent as context: an inference, ranked by similarity (not a
    confidence), with its scope, revision and source on the memory itself."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float


class ScopeSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    scope: dict[str, str]
    memories: int


class MemoryBank:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        ids: IdGenerator,
        embedder: Embedder,
        extractor: Extractor,
        config: MemoryConfig,
        defaults: ConfigDefaults,
        consolidator: consolidate.Consolidator | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        # The same memories are compared run after run: embedded once (services/memory/vectors).
        self._embedder = remembering(embedder)
        self._writer = MemoryWriter(clock=clock, ids=ids, embedder=self._embedder)
        self._extractor = extractor
        self._consolidator = consolidator or consolidate.SimilarityConsolidator()
        self.config = config
        self._defaults = defaults

    @property
    def extractor_name(self) -> str:
        return self._extractor.name

    def models(self) -> BankModels:
        """The embedding and generation models of this bank (docs/memory-bank.md §9)."""
        return BankModels(
            embedding_model=self._embedder.name,
            extraction=_described(self._extractor),
            consolidation=_described(self._consolidator),
        )

    # ---- generation -----------------------------------------------------------------------
    def generate(
        self,
        principal: Principal,
        *,
        scope: dict[str, str],
        events: Sequence[ConversationEvent],
        dry_run: bool = False,
        third_person: bool | None = None,
        disable_memory_revisions: bool | None = None,
        acl: Sequence[str] = ("tenant",),
        run_id: str | None = None,
        settle: Callable[[Session, str], None] | None = None,
    ) -> GenerateResult:
        """Extract memories from the events and consolidate them into the scope.

        The scope's customization config (exact key-set match, else the default) decides the
        topics, examples, perspective and consolidation; `third_person` and
        `disable_memory_revisions` override it for this request. `acl` restricts who may read
        what this generation writes (a mail's own ACL), and it consolidates only with memories
        of that same ACL. `run_id` names the run that offered the events (the source). With
        `dry_run` nothing is written: the result previews what would change. `settle` runs
        inside the transaction that writes the memories (an owed offer is marked done there).
        """
        prepared = self._prepare(
            principal,
            scope=scope,
            events=events,
            third_person=third_person,
            disable_memory_revisions=disable_memory_revisions,
            acl=acl,
            run_id=run_id,
        )
        self._warm(principal, [prepared])
        with self._db.write() as session:
            lock_scope(session, principal.tenant_id, prepared.target.scope_key)
            result = self._write(session, principal, prepared, dry_run=dry_run)
            if settle is not None:
                settle(session, result.generation_id)
        return result

    def _prepare(
        self,
        principal: Principal,
        *,
        scope: dict[str, str],
        events: Sequence[ConversationEvent],
        third_person: bool | None = None,
        disable_memory_revisions: bool | None = None,
        acl: Sequence[str] = ("tenant",),
        run_id: str | None = None,
        rules: _ScopeRules | None = None,
    ) -> _Prepared:
        """Everything before the write: checks, the config, extraction and (for a model
        consolidator) its plan, all outside any write transaction. `rules` are the scope's,
        when the caller read them already (a run's offers share their scopes)."""
        require_writer(principal)
        if rules is None:
            found = self._rules_for(principal, [scope])[canonical_scope(scope)]
            if isinstance(found, MemdeskError):
                raise found
            rules = found
        scope_key, config, policy = rules.scope_key, rules.config, rules.policy
        if not events:
            raise InvalidInput("generate needs at least one conversation event")
        if len(events) > MAX_EVENTS:
            raise InvalidInput(f"at most {MAX_EVENTS} events per generation, got {len(events)}")
        readers = _acl(acl)
        topics = list(config.topics)
        enabled = {t.label for t in topics if t.enabled}
        generation_id = self._ids.new("gen")
        try:
            extraction = self._extractor.extract(
                events,
                topics=[t for t in topics if t.enabled],
                examples=[*BUILTIN_EXAMPLES, *config.examples],
                third_person=(
                    config.enable_third_person_memories if third_person is None else third_person
                ),
            )
        except MemdeskError as exc:
            self._model_failed(principal, scope_key, generation_id, self._extractor.name, exc)
            raise
        kept = Extraction(
            facts=tuple(f for f in extraction.facts if f.topic in enabled),
            forget=tuple(f for f in extraction.forget if f.topic in enabled),
            extractor=extraction.extractor,
        )
        decided = self._decide_remotely(
            principal,
            kept,
            scope_key=scope_key,
            readers=readers,
            per_candidate=config.revisions_per_candidate_count,
            threshold=policy.similarity_threshold,
            generation_id=generation_id,
        )
        return _Prepared(
            generation_id=generation_id,
            target=Target(
                scope=dict(scope),
                scope_key=scope_key,
                acl=readers,
                policy=policy,
                keep_revisions=not (
                    config.disable_memory_revisions
                    if disable_memory_revisions is None
                    else disable_memory_revisions
                ),
                run_id=run_id,
            ),
            config=config,
            events=tuple(events),
            extraction=extraction,
            kept=kept,
            dropped=tuple(
                MemoryChange(
                    action="dropped", topic=f.topic, fact=f.fact, reason="no enabled topic"
                )
                for f in (*extraction.facts, *extraction.forget)
                if f.topic not in enabled
            ),
            decided=decided,
        )

    def _write(
        self, session: Session, principal: Principal, prepared: _Prepared, *, dry_run: bool
    ) -> GenerateResult:
        """Consolidate and write one prepared generation; the caller holds the scope lock."""
        target, decided = prepared.target, prepared.decided
        rows = self._scope_rows(
            session, principal.tenant_id, target.scope_key, self._clock.now(), acl=target.acl
        )
        self._remember_stored(rows)  # memories other workers wrote since the warm-up
        if decided is not None:
            if {r.memory_id: r.revision for r in rows} != decided.snapshot:
                raise TransientFailure(
                    "memory_scope_changed",
                    f"memories of {target.scope_key} changed while the model consolidated; "
                    "generate again",
                )
            plan = decided.plan
        else:
            plan, _, _ = consolidate.SimilarityConsolidator().decide(
                prepared.kept,
                self._candidates(session, rows, prepared.config.revisions_per_candidate_count),
                embed=self._embedder.embed,
                threshold=target.policy.similarity_threshold,
            )
        changes = self._writer.apply(
            session,
            principal,
            plan,
            rows={row.memory_id: row for row in rows},
            target=target,
            events=prepared.events,
            generation_id=prepared.generation_id,
            dry_run=dry_run,
        )
        model_calls = prepared.extraction.model_calls + (decided.model_calls if decided else 0)
        tokens = prepared.extraction.tokens + (decided.tokens if decided else 0)
        self._writer.audit(
            session,
            principal,
            "memory.previewed" if dry_run else "memory.generated",
            prepared.generation_id,
            detail={
                "scope": target.scope_key,
                "config": prepared.config.key or "default",
                "run_id": target.run_id,
                "revisions_kept": target.keep_revisions,
                "extractor": prepared.extraction.extractor,
                "events": len(prepared.events),
                "changes": [c.action for c in changes],
                "consolidator": self._consolidator.name,
                "model_calls": model_calls,
                "tokens": tokens,
            },
        )
        return GenerateResult(
            generation_id=prepared.generation_id,
            scope=dict(target.scope),
            dry_run=dry_run,
            extractor=prepared.extraction.extractor,
            config=prepared.config.key,
            changes=(*changes, *prepared.dropped),
            model_calls=model_calls,
            tokens=tokens,
        )

    def _rules_for(
        self, principal: Principal, scopes: Sequence[dict[str, str]]
    ) -> dict[str, _ScopeRules | MemdeskError]:
        """Each scope's key, config and the tenant's policy, read together in one transaction;
        a scope the principal may not read maps to its NotAuthorized."""
        found: dict[str, _ScopeRules | MemdeskError] = {}
        configs: dict[str, CustomizationConfig] = {}
        with self._db.read() as session:
            policy = load_policy(session, principal.tenant_id, self._defaults.policy)
            for scope in scopes:
                key = canonical_scope(scope)
                if key in found:
                    continue
                if not self._scope_visible(session, principal, scope):
                    found[key] = NotAuthorized(f"no access to memories of scope {key}")
                    continue
                config = config_for_scope(
                    session, principal.tenant_id, scope, self._defaults, loaded=configs
                )
                found[key] = _ScopeRules(scope_key=key, config=config, policy=policy)
        return found

    def _warm(self, principal: Principal, prepared: Sequence[_Prepared]) -> None:
        """Embed, before the write transaction, what its consolidation will compare: the facts
        and the scopes' memories with their kept revisions as they stand now, in one model
        call. Under the scope's lock, which keeps every other generation of the scope (and
        of the tenant, at its audit head) waiting, the plan then finds them all kept; only
        memories written meanwhile can still reach the model there, and those come with
        their stored vectors. A failure here is left to the write, which records it per offer.
        """
        local = [p for p in prepared if p.decided is None and (p.kept.facts or p.kept.forget)]
        if not local:
            return
        texts = [f.fact for p in local for f in (*p.kept.forget, *p.kept.facts)]
        try:
            with self._db.read() as session:
                now = self._clock.now()
                for scope_key, acl, per_candidate in dict.fromkeys(
                    (
                        p.target.scope_key,
                        tuple(p.target.acl),
                        p.config.revisions_per_candidate_count,
                    )
                    for p in local
                ):
                    rows = self._scope_rows(
                        session, principal.tenant_id, scope_key, now, acl=list(acl)
                    )
                    self._remember_stored(rows)
                    texts += [
                        h for c in self._candidates(session, rows, per_candidate) for h in c.history
                    ]
            self._embedder.embed(texts)
        except MemdeskError:
            return

    def _remember_stored(self, rows: Sequence[MemoryRow]) -> None:
        """Keep the vectors memories were stored with, when this embedder wrote them."""
        dimension = self._embedder.dimension
        stored = [
            (r.fact, unpack(r.embedding, dimension))
            for r in rows
            if r.embedding_model == self._embedder.name
        ]
        kept = [(fact, vector) for fact, vector in stored if vector is not None]
        self._embedder.remember([fact for fact, _ in kept], [vector for _, vector in kept])

    def _decide_remotely(
        self,
        principal: Principal,
        kept: Extraction,
        *,
        scope_key: str,
        readers: list[str],
        per_candidate: int,
        threshold: float,
        generation_id: str,
    ) -> _RemoteDecision | None:
        """A model consolidator decides outside any transaction, on a snapshot of the scope.
        None when the local consolidator decides (under the lock) or there is nothing to
        compare with."""
        if not self._consolidator.remote or not (kept.facts or kept.forget):
            return None
        with self._db.read() as session:
            rows = self._scope_rows(
                session, principal.tenant_id, scope_key, self._clock.now(), acl=readers
            )
            candidates = self._candidates(session, rows, per_candidate)
        if not candidates:
            return None
        try:
            plan, calls, tokens = self._consolidator.decide(
                kept, candidates, embed=self._embedder.embed, threshold=threshold
            )
        except MemdeskError as exc:
            self._model_failed(principal, scope_key, generation_id, self._consolidator.name, exc)
            raise
        return _RemoteDecision(
            plan=plan,
            snapshot={r.memory_id: r.revision for r in rows},
            model_calls=calls,
            tokens=tokens,
        )

    def _model_failed(
        self,
        principal: Principal,
        scope_key: str,
        generation_id: str,
        component: str,
        exc: MemdeskError,
    ) -> None:
        """A model call that produced nothing usable is still a model call: on the record."""
        usage = getattr(exc, "usage", None)
        with self._db.write() as session:
            self._writer.audit(
                session,
                principal,
                "memory.generation_failed",
                generation_id,
                detail={
                    "scope": scope_key,
                    "extractor": component,
                    "reason": getattr(exc, "reason", type(exc).__name__),
                    "model_calls": getattr(usage, "model_calls", 0),
                },
            )

    # ---- events offered by runs -------------------------------------------------------
    def offer(
        self, principal: Principal, *, run_id: str, offered: Sequence[Offer]
    ) -> dict[tuple[str, str], int]:
        """Record events a run received, one offer per scope, to be generated later in the run
        (or, if that fails, by a later one). An event already offered for a scope is skipped."""
        require_writer(principal)
        for item in offered:
            self._scope_key(principal, item.scope)
            _acl(item.acl)
        with self._db.write() as session:
            return offers.record(
                session,
                tenant_id=principal.tenant_id,
                actor=principal.user_id,
                run_id=run_id,
                offers=offered,
                now=self._clock.now(),
            )

    def owed(
        self,
        *,
        tenant_id: str | None = None,
        task_id: str | None = None,
        include_failed: bool = False,
        limit: int = 20,
    ) -> list[OfferView]:
        """Offers not generated yet, oldest first (system: the worker and runs call this)."""
        statuses = (offers.PENDING, offers.FAILED) if include_failed else (offers.PENDING,)
        with self._db.read() as session:
            return offers.pending(
                session, tenant_id=tenant_id, task_id=task_id, statuses=statuses, limit=limit
            )

    def task_events(self, *, tenant_id: str, task_id: str) -> frozenset[str]:
        """The events runs of this task offered (system: recall tells its task's memories
        from those another task left in the author's or the customer's scope)."""
        with self._db.read() as session:
            return offers.events_of_task(session, tenant_id=tenant_id, task_id=task_id)

    def fulfil(self, principal: Principal, offer: OfferView) -> GenerateResult | None:
        """Generate an owed offer as `principal` (its actor); None if it was done meanwhile.

        A failure is recorded on the offer (attempts, error) and raised; after
        MAX_OFFER_ATTEMPTS it is `failed` and no longer retried by itself."""
        if principal.tenant_id != offer.tenant_id:
            raise NotFound("memory offer", str(offer.id))  # another tenant's: like a missing one
        if principal.user_id != offer.actor:
            raise NotAuthorized(f"offer {offer.id} is generated with its own actor's rights")

        def settle(session: Session, generation_id: str) -> None:
            row = session.get(MemoryOfferRow, offer.id, with_for_update=True)
            if row is None or row.status == offers.DONE:
                raise _AlreadyDone()
            row.status, row.generation_id = offers.DONE, generation_id
            row.done_at = self._clock.now()
            row.attempts += 1

        try:
            return self.generate(
                principal,
                scope=offer.scope,
                events=offer.events,
                acl=offer.acl,
                run_id=offer.run_id,
                settle=settle,
            )
        except _AlreadyDone:
            return None
        except Exception as exc:
            self._offer_failed(offer.id, f"{type(exc).__name__}: {exc}")
            raise

    def generate_offered(
        self,
        principal: Principal,
        *,
        run_id: str,
        fresh: Sequence[Offer],
        owed: Sequence[OfferView] = (),
    ) -> list[OfferOutcome]:
        """What a run does on its way out, in one write transaction: record the events it
        received (`fresh`; ones offered before are skipped), and generate them together with
        `owed` offers of the same actor. Model calls happen before the transaction; an offer
        whose extraction or write fails stays owed with its error and the others go on."""
        require_writer(principal)
        for offered in fresh:
            _acl(offered.acl)
        mine = [
            o for o in owed if (o.tenant_id, o.actor) == (principal.tenant_id, principal.user_id)
        ]
        with self._db.read() as session:
            known = offers.existing(session, principal.tenant_id, fresh)
        items: list[Offer | OfferView] = [o for o in fresh if offers.key_of(o) not in known]
        scopes = [item.scope for item in [*items, *mine]]
        try:
            rules: dict[str, _ScopeRules | Exception] = {**self._rules_for(principal, scopes)}
        except Exception as exc:  # like a failure to prepare each offer: recorded on them
            rules = {canonical_scope(scope): exc for scope in scopes}
        todo = [
            (
                item,
                self._prepare_safely(principal, item, run_id, rules[canonical_scope(item.scope)]),
            )
            for item in [*items, *mine]
        ]
        if not todo:
            return []
        self._warm(principal, [p for _, p in todo if not isinstance(p, Exception)])
        outcomes: list[OfferOutcome] = []
        with self._db.write() as session:
            ids = offers.record(
                session,
                tenant_id=principal.tenant_id,
                actor=principal.user_id,
                run_id=run_id,
                offers=[item for item, _ in todo if isinstance(item, Offer)],
                now=self._clock.now(),
            )
            for key in sorted({canonical_scope(item.scope) for item, _ in todo}):
                lock_scope(session, principal.tenant_id, key)
            mapped: list[tuple[int, Offer | OfferView, _Prepared | Exception]] = []
            for item, prepared in todo:
                if isinstance(item, OfferView):
                    mapped.append((item.id, item, prepared))
                elif offers.key_of(item) in ids:
                    mapped.append((ids[offers.key_of(item)], item, prepared))
                # else: another run recorded the same event a moment ago
            locked = offers.still_owed(
                session, [i for i, _, prepared in mapped if not isinstance(prepared, Exception)]
            )
            with audits_held(session) as held:
                for offer_id, item, prepared in mapped:
                    source = _run_of(item, run_id)
                    outcomes.append(
                        self._write_offer(
                            session,
                            principal,
                            offer_id,
                            item,
                            prepared,
                            owed=locked.get(offer_id),
                            source=source,
                            held=held,
                        )
                    )
        return outcomes

    def _prepare_safely(
        self,
        principal: Principal,
        item: Offer | OfferView,
        run_id: str,
        rules: _ScopeRules | Exception,
    ) -> _Prepared | Exception:
        if isinstance(rules, Exception):
            return rules  # recorded on the offer like any failure to prepare it
        try:
            return self._prepare(
                principal,
                scope=item.scope,
                events=item.events,
                acl=item.acl,
                run_id=_run_of(item, run_id),
                rules=rules,
            )
        except Exception as exc:  # recorded on the offer, never raised to the run
            return exc

    def _write_offer(
        self,
        session: Session,
        principal: Principal,
        offer_id: int,
        item: Offer | OfferView,
        prepared: _Prepared | Exception,
        *,
        owed: MemoryOfferRow | None,
        source: str,
        held: HeldAudits,
    ) -> OfferOutcome:
        """`owed`: the offer's row, locked (offers.still_owed), or None if it is done."""
        about = OfferOutcome(
            offer_id=offer_id,
            scope=canonical_scope(item.scope),
            event_id=item.event_id,
            source_run=source,
        )
        if isinstance(prepared, Exception):
            attempt = offers.fail(session, offer_id, prepared)
            return about.model_copy(update={"error": _reason(prepared), "attempt": attempt})
        if owed is None:
            return about.model_copy(update={"already_done": True})
        try:
            # A failed write leaves the others' writes (and their audit entries) standing.
            with held.part(), session.begin_nested():
                result = self._write(session, principal, prepared, dry_run=False)
                offers.done(owed, result.generation_id, now=self._clock.now())
        except MemdeskError as exc:
            attempt = offers.fail(session, offer_id, exc)
            return about.model_copy(update={"error": _reason(exc), "attempt": attempt})
        return about.model_copy(update={"result": result})

    def _offer_failed(self, offer_id: int, error: str) -> None:
        with self._db.write() as session:
            row = session.get(MemoryOfferRow, offer_id, with_for_update=True)
            if row is None or row.status == offers.DONE:
                return
            row.attempts += 1
            row.last_error = error[:2000]
            if row.attempts >= offers.MAX_OFFER_ATTEMPTS:
                row.status = offers.FAILED

    def recall(
        self,
        principal: Principal,
        *,
        scopes: Sequence[dict[str, str]],
        queries: Sequence[str],
        k: int = 5,
        purpose: str = "",
        audited: bool = True,
    ) -> list[RecalledMemory]:
        """The memories of each scope (exact match, live, readable) most similar to any of the
        queries, k per scope, each with its source; without queries the most recent ones.
        One audited retrieval, like `search` (`audited=False` when the caller records it: a
        run's `memories_recalled` event is itself an audit entry)."""
        if not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be between 1 and {MAX_K}")
        keys = [(scope, self._scope_key(principal, scope)) for scope in scopes]
        texts = [q for q in queries if q.strip()]
        with self._db.read() as session:
            now = self._clock.now()
            per_scope = [
                self._scope_rows(session, principal.tenant_id, key, now, reader=principal)
                for _, key in keys
            ]
        # The queries are embedded once, for every scope that has memories to rank.
        asked = self._embedder.embed_queries(texts) if texts and any(per_scope) else None
        found: list[RecalledMemory] = []
        for rows in per_scope:
            found += self._ranked(rows, asked, k)
        if not audited:
            return found
        with self._db.write() as session:
            self._writer.audit(
                session,
                principal,
                "memory.recalled",
                purpose[:300] or "recall",
                detail={
                    "scopes": [key for _, key in keys],
                    "k": k,
                    "memory_ids": [m.memory.memory_id for m in found],
                },
            )
        return found

    def _ranked(
        self, rows: list[MemoryRow], queries: Vectors | None, k: int
    ) -> list[RecalledMemory]:
        """The k rows closest to any of the queries (their vectors), else the newest k."""
        if not rows:
            return []
        if queries is None:
            newest = sorted(rows, key=lambda r: (r.updated_at, r.memory_id), reverse=True)
            return [RecalledMemory(memory=to_memory(r), score=0.0) for r in newest[:k]]
        matrix = self._vectors(rows)
        scores = np.max(matrix @ queries.T, 1)
        order = sorted(range(len(rows)), key=lambda i: (-float(scores[i]), rows[i].memory_id))
        return [
            RecalledMemory(memory=to_memory(rows[i]), score=round(float(scores[i]), 6))
            for i in order[:k]
        ]

    def create(
        self,
        principal: Principal,
        *,
        scope: dict[str, str],
        topic: str,
        fact: str,
        kind: str = "fact",
        ttl_seconds: int | None = None,
    ) -> Memory:
        """A memory written directly by a person (Memory Bank's CreateMemory): no consolidation."""
        require_writer(principal)
        scope_key = self._scope_key(principal, scope)
        if not fact.strip():
            raise InvalidInput("a memory needs a fact")
        if ttl_seconds is not None and ttl_seconds < 1:
            raise InvalidInput("ttl_seconds must be at least 1")
        with self._db.write() as session:
            config = config_for_scope(session, principal.tenant_id, scope, self._defaults)
            topics = {t.label for t in config.topics if t.enabled}
            if topic not in topics:
                raise InvalidInput(
                    f"topic {topic!r} is not enabled in the {config.key or 'default'} config"
                )
            policy = load_policy(session, principal.tenant_id, self._defaults.policy)
            config = config_for_scope(session, principal.tenant_id, scope, self._defaults)
            row = self._writer.new_row(
                session,
                principal,
                target=Target(
                    scope=scope,
                    scope_key=scope_key,
                    acl=["tenant"],
                    policy=policy,
                    keep_revisions=not config.disable_memory_revisions,
                ),
                fact=ExtractedFact(topic=topic, kind=kind, fact=fact),
                operation="create",
                source=SourceRef(kind="manual", author=principal.user_id),
                explicit_ttl=ttl_seconds,
            )
            return to_memory(row)

    # ---- reads ----------------------------------------------------------------------------
    def get(self, principal: Principal, memory_id: str) -> Memory:
        with self._db.read() as session:
            return to_memory(self._row(session, principal, memory_id))

    def quote(self, principal: Principal, memory_id: str) -> str:
        """The memory's current fact, for a candidate that cites it (services.publishing).

        The quote always comes from here, never from the proposer's input; a memory of another
        tenant or scope the principal may not read is not found, a deleted one is refused.
        """
        memory = self.get(principal, memory_id)
        if memory.state != "active":
            raise InvalidInput(f"memory {memory_id} is deleted and cannot back a candidate")
        return memory.fact

    def list_memories(
        self,
        principal: Principal,
        *,
        scope: dict[str, str],
        topic: str | None = None,
        include_deleted: bool = False,
    ) -> list[Memory]:
        """The memories filed under exactly this scope (a superset or subset does not match)."""
        scope_key = self._scope_key(principal, scope)
        with self._db.read() as session:
            rows = self._scope_rows(
                session,
                principal.tenant_id,
                scope_key,
                self._clock.now(),
                include_deleted=include_deleted,
                reader=principal,
            )
            return [to_memory(r) for r in rows if topic is None or r.topic == topic]

    def scopes(self, principal: Principal) -> list[ScopeSummary]:
        """The scopes of the tenant that hold live memories this principal may read."""
        now = self._clock.now()
        with self._db.read() as session:
            rows = session.execute(
                select(MemoryRow.scope_key, MemoryRow.scope, MemoryRow.acl).where(
                    MemoryRow.tenant_id == principal.tenant_id,
                    MemoryRow.state == "active",
                    or_(MemoryRow.expire_at.is_(None), MemoryRow.expire_at > now),
                )
            ).all()
            visible = {
                key: self._scope_visible(session, principal, scope)
                for key, scope in {key: scope for key, scope, _ in rows}.items()
            }
        counts: dict[str, tuple[dict[str, str], int]] = {}
        for key, scope, acl in rows:
            if visible[key] and principal.can_read(tenant_id=principal.tenant_id, acl=acl):
                counts[key] = (scope, counts.get(key, (scope, 0))[1] + 1)
        return [ScopeSummary(scope=s, memories=n) for _, (s, n) in sorted(counts.items())]

    def search(
        self, principal: Principal, *, scope: dict[str, str], query: str, k: int = 5
    ) -> list[ScoredMemory]:
        """Similarity search inside exactly one scope with the configured embedder."""
        if not query.strip():
            raise InvalidInput("search needs a query")
        if not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be between 1 and {MAX_K}")
        scope_key = self._scope_key(principal, scope)
        with self._db.read() as session:
            rows = self._scope_rows(
                session, principal.tenant_id, scope_key, self._clock.now(), reader=principal
            )
            matrix = self._vectors(rows) if rows else None
        hits: list[ScoredMemory] = []
        if matrix is not None:
            scores = matrix @ self._embedder.embed_query(query)
            order = sorted(range(len(rows)), key=lambda i: (-float(scores[i]), rows[i].memory_id))
            hits = [
                ScoredMemory(memory=to_memory(rows[i]), score=round(float(scores[i]), 6))
                for i in order[:k]
            ]
        with self._db.write() as session:  # a retrieval, like document retrieval, is audited
            self._writer.audit(
                session,
                principal,
                "memory.searched",
                query[:300],
                detail={
                    "scope": scope_key,
                    "k": k,
                    "memory_ids": [h.memory.memory_id for h in hits],
                },
            )
        return hits

    def revisions(self, principal: Principal, memory_id: str) -> list[MemoryRevision]:
        """The memory's immutable history, newest first (revisions past their TTL are gone)."""
        now = self._clock.now()
        with self._db.read() as session:
            self._row(session, principal, memory_id)
            rows = session.scalars(
                select(MemoryRevisionRow)
                .where(
                    MemoryRevisionRow.memory_id == memory_id,
                    or_(MemoryRevisionRow.expire_at.is_(None), MemoryRevisionRow.expire_at > now),
                )
                .order_by(MemoryRevisionRow.revision.desc())
            )
            return [to_revision(row) for row in rows]

    # ---- changes by people ----------------------------------------------------------------
    def rollback(self, principal: Principal, memory_id: str, *, revision: int) -> Memory:
        """Make an earlier revision current again; the rollback itself is a new revision."""
        require_writer(principal)
        with self._db.write() as session:
            row = self._row(session, principal, memory_id, for_update=True)
            now = self._clock.now()
            target = session.scalar(
                select(MemoryRevisionRow).where(
                    MemoryRevisionRow.memory_id == memory_id,
                    MemoryRevisionRow.revision == revision,
                    or_(MemoryRevisionRow.expire_at.is_(None), MemoryRevisionRow.expire_at > now),
                )
            )
            if target is None:
                raise NotFound("memory revision", f"{memory_id}@{revision}")
            if revision == row.revision:
                raise InvalidInput(f"{memory_id} is already at revision {revision}")
            if target.action == "deleted" and row.legal_hold:
                raise LegalHold(f"memory {memory_id} is under legal hold and cannot be deleted")
            policy = load_policy(session, principal.tenant_id, self._defaults.policy)
            before = row.revision
            row.fact, row.topic, row.kind = target.fact, target.topic, target.kind
            row.state = "deleted" if target.action == "deleted" else "active"
            self._writer.embed_row(row)
            self._writer.revise(
                session,
                principal,
                row,
                action="rolled_back",
                operation="rollback",
                source=SourceRef(kind="rollback", note=f"to revision {revision}"),
                policy=policy,
                ttl="update",
                keep_revision=self._keeps_revisions(session, row),
            )
            self._writer.audit(
                session,
                principal,
                "memory.rolled_back",
                memory_id,
                before=f"{memory_id}@r{before}",
                after=f"{memory_id}@r{row.revision}",
                detail={"to_revision": revision},
            )
            return to_memory(row)

    def delete(self, principal: Principal, memory_id: str, *, reason: str) -> Memory:
        """Mark a memory deleted (not retrievable); its revisions stay for review and rollback."""
        require_writer(principal)
        if not reason.strip():
            raise InvalidInput("a reason is required to delete a memory")
        with self._db.write() as session:
            row = self._row(session, principal, memory_id, for_update=True)
            if row.state == "deleted":
                raise InvalidInput(f"memory {memory_id} is already deleted")
            if row.legal_hold:
                raise LegalHold(f"memory {memory_id} is under legal hold and cannot be deleted")
            policy = load_policy(session, principal.tenant_id, self._defaults.policy)
            row.state = "deleted"
            self._writer.revise(
                session,
                principal,
                row,
                action="deleted",
                operation="delete",
                source=SourceRef(kind="manual", author=principal.user_id, note=reason),
                policy=policy,
                ttl=None,
                keep_revision=self._keeps_revisions(session, row),
            )
            self._writer.audit(
                session, principal, "memory.deleted", memory_id, detail={"reason": reason}
            )
            return to_memory(row)

    def set_legal_hold(
        self, principal: Principal, memory_id: str, *, hold: bool, reason: str
    ) -> Memory:
        """Admins only, with a reason: a held memory is never deleted or purged. The hold is a
        row in the one hold table (`memdesk holds list` shows it); lifting here lifts every
        active hold of the memory, exactly as `memdesk holds lift` would."""
        require(principal, Permission.ADMINISTER, "only an admin may set or lift a legal hold")
        if not reason.strip():
            raise InvalidInput("a reason is required for a legal hold change")
        reason = reason.strip()
        with self._db.write() as session:
            row = self._row(session, principal, memory_id, allow_expired=True, for_update=True)
            where = {"tenant_id": row.tenant_id, "record_type": "memory", "record_id": memory_id}
            if hold:
                changed = [
                    holds.place(
                        session, self._clock, **where, reason=reason, actor=principal.user_id
                    )
                ]
            else:
                changed = holds.lift_all(
                    session, self._clock, **where, actor=principal.user_id, reason=reason
                )
            still = holds.active(session, row.tenant_id, "memory", memory_id)
            row.legal_hold = bool(still)
            row.legal_hold_reason = still[0].reason if still else None
            self._writer.audit(
                session,
                principal,
                "legal_hold.set" if hold else "legal_hold.lifted",
                memory_id,
                after=",".join(f"hold:{h.id}" for h in changed) or None,
                detail={"reason": reason},
            )
            return to_memory(row)

    def mark_legal_hold(
        self,
        session: Session,
        principal: Principal,
        memory_id: str,
        *,
        held: bool,
        reason: str | None,
    ) -> None:
        """The retention service records a hold in its unit of work; the flag follows here."""
        require(principal, Permission.ADMINISTER, "only an admin may set or lift a legal hold")
        row = self._row(session, principal, memory_id, allow_expired=True, for_update=True)
        row.legal_hold = held
        row.legal_hold_reason = reason if held else None

    def purge_expired(
        self,
        *,
        actor: str,
        now: datetime | None = None,
        dry_run: bool = False,
        tenant_id: str | None = None,
    ) -> MemoryPurgeReport:
        """Retention's job (no principal: a system actor runs it for every tenant or one)."""
        return retention.purge_expired(
            self._db, self._clock, actor=actor, now=now, dry_run=dry_run, tenant_id=tenant_id
        )

    # ---- internals ------------------------------------------------------------------------
    def _scope_key(self, principal: Principal, scope: dict[str, str]) -> str:
        key = canonical_scope(scope)
        with self._db.read() as session:
            visible = self._scope_visible(session, principal, scope)
        if not visible:
            raise NotAuthorized(f"no access to memories of scope {key}")
        return key

    @staticmethod
    def _scope_visible(session: Session, principal: Principal, scope: dict[str, str]) -> bool:
        """can_read_scope, and a task's memories need the task's customer grant too: the
        task's own rule (services.records.tasks), so {task_id: Q43} of customer C-ACME is
        not readable by someone who may not see Q43."""
        if not can_read_scope(principal, scope):
            return False
        task_id = scope.get("task_id")
        if task_id is None:
            return True
        task = session.get(TaskRow, (principal.tenant_id, task_id))
        return task is None or may_see_customer(principal, task.customer_id)

    def _keeps_revisions(self, session: Session, row: MemoryRow) -> bool:
        config = config_for_scope(session, row.tenant_id, row.scope, self._defaults)
        return not config.disable_memory_revisions

    def _row(
        self,
        session: Session,
        principal: Principal,
        memory_id: str,
        *,
        allow_expired: bool = False,
        for_update: bool = False,
    ) -> MemoryRow:
        # Writers lock the row so two changes of one memory never race for a revision number.
        row = session.get(MemoryRow, memory_id, with_for_update=for_update or None)
        if (
            row is None
            or row.tenant_id != principal.tenant_id
            or not self._scope_visible(session, principal, row.scope)
            or not principal.can_read(tenant_id=row.tenant_id, acl=row.acl)
            or (not allow_expired and is_expired(utc(row.expire_at), self._clock.now()))
        ):
            raise NotFound("memory", memory_id)
        return row

    def _scope_rows(
        self,
        session: Session,
        tenant_id: str,
        scope_key: str,
        now: datetime,
        *,
        include_deleted: bool = False,
        reader: Principal | None = None,
        acl: list[str] | None = None,
    ) -> list[MemoryRow]:
        """Live rows of one scope: those `reader` may read (their ACL), or, for consolidation,
        exactly those of `acl` (memories of differently readable sources never merge)."""
        query = select(MemoryRow).where(
            MemoryRow.tenant_id == tenant_id,
            MemoryRow.scope_key == scope_key,
            or_(MemoryRow.expire_at.is_(None), MemoryRow.expire_at > now),
        )
        if not include_deleted:
            query = query.where(MemoryRow.state == "active")
        rows = list(session.scalars(query.order_by(MemoryRow.created_at, MemoryRow.memory_id)))
        if reader is not None:
            rows = [r for r in rows if reader.can_read(tenant_id=tenant_id, acl=r.acl)]
        if acl is not None:
            rows = [r for r in rows if sorted(r.acl) == acl]
        return rows

    def _candidates(
        self, session: Session, rows: list[MemoryRow], per_candidate: int
    ) -> list[consolidate.Candidate]:
        histories = _histories(session, [row.memory_id for row in rows], per_candidate)
        return [
            consolidate.Candidate(
                memory_id=row.memory_id,
                topic=row.topic,
                kind=row.kind,
                fact=row.fact,
                history=tuple(dict.fromkeys([row.fact, *histories.get(row.memory_id, [])]))[
                    :per_candidate
                ],
            )
            for row in rows
        ]

    def _vectors(self, rows: list[MemoryRow]) -> Vectors:
        """Stored vectors of this embedder's space; facts embedded by another model are redone."""
        dimension = self._embedder.dimension
        stored = [
            unpack(r.embedding, dimension) if r.embedding_model == self._embedder.name else None
            for r in rows
        ]
        missing = [i for i, v in enumerate(stored) if v is None]
        if missing:
            fresh = self._embedder.embed([rows[i].fact for i in missing])
            for j, i in enumerate(missing):
                stored[i] = fresh[j]
        return np.vstack([v for v in stored if v is not None]).astype(np.float32)


def _histories(session: Session, memory_ids: list[str], per_candidate: int) -> dict[str, list[str]]:
    """The latest `per_candidate` facts of each memory's revisions that did not delete it,
    newest first: one query for a scope's memories instead of one per memory (every query
    under the scope's lock is a round trip other generations wait for)."""
    found: dict[str, list[str]] = {}
    if per_candidate < 1:
        return found
    for start in range(0, len(memory_ids), HISTORY_BATCH):
        ranked = (
            select(
                MemoryRevisionRow.memory_id,
                MemoryRevisionRow.fact,
                func.row_number()
                .over(
                    partition_by=MemoryRevisionRow.memory_id,
                    order_by=MemoryRevisionRow.revision.desc(),
                )
                .label("newest"),
            )
            .where(
                MemoryRevisionRow.memory_id.in_(memory_ids[start : start + HISTORY_BATCH]),
                MemoryRevisionRow.action != "deleted",
            )
            .subquery()
        )
        for memory_id, fact in session.execute(
            select(ranked.c.memory_id, ranked.c.fact)
            .where(ranked.c.newest <= per_candidate)
            .order_by(ranked.c.memory_id, ranked.c.newest)
        ):
            found.setdefault(memory_id, []).append(fact)
    return found


def _acl(entries: Sequence[str]) -> list[str]:
    readers = sorted(set(entries))
    bad = [entry for entry in readers if not is_valid_acl_entry(entry)]
    if not readers or bad:
        raise InvalidInput(f"a memory's ACL needs valid entries, got {list(entries)!r}")
    return readers


def _described(component: Described) -> str:
    model = getattr(component, "model", None)
    return f"{component.name} ({model})" if isinstance(model, str) and model else component.name


def _run_of(item: Offer | OfferView, run_id: str) -> str:
    """An owed offer keeps the run that received it as its source."""
    return item.run_id if isinstance(item, OfferView) else run_id


def _reason(exc: Exception) -> str:
    reason = getattr(exc, "reason", None) or type(exc).__name__
    return f"{reason}: {exc}"[:500]
