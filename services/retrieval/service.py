"""Governed retrieval (SPEC §3 steps 1-5): eligible set first, hybrid ranking, SQL re-check."""

from __future__ import annotations

import time
from collections import Counter
from datetime import date

from services import audit
from services.clock import Clock, today
from services.db.engine import Database
from services.errors import IndexUnavailable, InvalidInput, NotFound
from services.principals import Principal
from services.retrieval import text as text_analysis
from services.retrieval.caches import LexicalView, Payload, RetrievalCaches, TenantBlock
from services.retrieval.conflicts import find_conflicts
from services.retrieval.eligibility import (
    EligibleChunk,
    Verified,
    check_citation,
    current_versions,
    eligible_chunks,
    why_not_eligible,
)
from services.retrieval.embedders import Vectors
from services.retrieval.index import IndexManager, IndexVersionInfo
from services.retrieval.ranking import Candidate, QueryAnalysis, rank
from services.retrieval.relevance import Assessment, Item, assess
from services.retrieval.types import Evidence, RetrievalResult, evidence_id_for, parse_evidence_id

MAX_K = 100
# Chunks of one document admitted to the top k before other documents get a turn.
PER_DOCUMENT = 2
# How many fused candidates are re-verified at most, as a multiple of k.
VERIFY_DEPTH = 4


class RetrievalService:
    def __init__(self, *, db: Database, clock: Clock, index: IndexManager) -> None:
        self._db = db
        self._clock = clock
        self._index = index

    @property
    def caches(self) -> RetrievalCaches:
        return self._index.caches

    # ---- retrieve ----------------------------------------------------------------------------
    def retrieve(
        self, principal: Principal, query: str, *, k: int = 5, as_of: date | None = None
    ) -> RetrievalResult:
        if not query or not query.strip():
            raise InvalidInput("the query is empty")
        if not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be between 1 and {MAX_K}, got {k}")
        as_of = as_of or today(self._clock)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        active = self._active()
        with self._db.read() as session:
            eligibility = eligible_chunks(
                session, principal, as_of=as_of, index_version=active.index_version
            )
        timings["eligible_ms"] = _since(started)
        by_id = {c.chunk_id: c for c in eligibility.chunks}
        analysis = QueryAnalysis.of(query)
        block, view = self._view(active, principal.tenant_id, eligibility)
        timings["fetch_ms"] = _since(started) - timings["eligible_ms"]
        candidates = self._ranked(active, view, block, analysis)
        timings["rank_ms"] = _since(started) - timings["fetch_ms"] - timings["eligible_ms"]
        evidence, dropped, verified = self._verify(principal, as_of, candidates, by_id, block, k=k)
        vector_z = {c.chunk_id: c.vector_z for c in candidates}

        def judge(items: list[Evidence]) -> Assessment:
            by_doc: dict[str, list[Evidence]] = {}
            for e in items:
                by_doc.setdefault(e.ref, []).append(e)
            grouped = []
            for parts in by_doc.values():
                rows = [block.row_of[e.chunk_id] for e in parts]
                grouped.append(
                    Item(
                        evidence_ids=tuple(e.evidence_id for e in parts),
                        text="\n".join(block.matched[r] for r in rows),
                        units=frozenset().union(*(block.units[r] for r in rows)),
                        quote="\n".join(e.quote for e in parts),
                        vector_z=max(vector_z.get(e.chunk_id, 0.0) for e in parts),
                    )
                )
            return assess(query, grouped)

        assessment = judge(evidence)
        conflicts, evidence = find_conflicts(
            evidence,
            verified,
            relevant=assessment.relevant,
            by_vector_only=assessment.by_vector_only,
            query_units=text_analysis.key_units(query),
            candidates=candidates[: VERIFY_DEPTH * k],
            by_id=by_id,
            k=k,
        )
        if conflicts:
            assessment = judge(evidence)
        status = (
            "insufficient_evidence"
            if not assessment.sufficient
            else "source_conflict"
            if conflicts
            else "ok"
        )
        if eligibility.not_indexed:
            dropped["not_indexed"] = len(eligibility.not_indexed)
        timings["total_ms"] = _since(started)
        result = RetrievalResult(
            status=status,
            query=query,
            as_of=as_of,
            evidence=evidence,
            conflicts=conflicts,
            missing=assessment.missing,
            dropped=dict(dropped),
            index_version=active.index_version,
            timings_ms={key: round(value, 3) for key, value in timings.items()},
        )
        self._audit(principal, result, k=k)
        return result

    # ---- resolve ------------------------------------------------------------------------------
    def resolve(
        self, principal: Principal, evidence_id: str, *, as_of: date | None = None
    ) -> Evidence:
        """Re-fetch a citation from SQL and re-check it; NotFound when it no longer holds."""
        parsed = parse_evidence_id(evidence_id)
        if parsed is None:
            raise NotFound("evidence", evidence_id)
        document_id, version, start, end = parsed
        as_of = as_of or today(self._clock)
        with self._db.read() as session:
            current = current_versions(
                session, principal, as_of=as_of, document_ids=[document_id]
            ).get(document_id)
        reason = check_citation(
            current, version=version, start=start, end=end, expected_text=None, indexed_hash=None
        )
        if reason is not None or current is None:
            raise NotFound("evidence", evidence_id)
        return _evidence(
            current,
            chunk_id=self._chunk_for(principal, current, start, end),
            start=start,
            end=end,
            rank=0,
        )

    # ---- internals ----------------------------------------------------------------------------
    def _active(self) -> IndexVersionInfo:
        active = self._index.active()
        if active is None:
            raise IndexUnavailable("no active index version yet: run `memdesk index rebuild`")
        if active.embedding_model != self._index.embedder.name:
            raise IndexUnavailable(
                f"the active index was built with {active.embedding_model}, not "
                f"{self._index.embedder.name}: run `memdesk index rebuild`"
            )
        return active

    def _view(
        self, active: IndexVersionInfo, tenant_id: str, eligibility: object
    ) -> tuple[TenantBlock, LexicalView]:
        from services.retrieval.eligibility import Eligibility

        assert isinstance(eligibility, Eligibility)
        chunk_ids = [c.chunk_id for c in eligibility.chunks]
        titles = {c.chunk_id: c.title for c in eligibility.chunks}
        block = self.caches.block(
            active.index_version,
            tenant_id,
            chunk_ids,
            dimension=active.dimension,
            fetch=lambda missing: self._fetch(active, missing, titles),
        )
        # Chunks the tenant's index no longer holds (removed by any process) leave the cache now.
        stale = [c for c in block.ids if c not in eligibility.tenant_chunk_ids]
        if stale:
            self.caches.evict_chunks(stale)
            block = self.caches.block(
                active.index_version,
                tenant_id,
                chunk_ids,
                dimension=active.dimension,
                fetch=lambda missing: self._fetch(active, missing, titles),
            )
        return block, self.caches.view(active.index_version, tenant_id, block, chunk_ids)

    def _fetch(
        self, active: IndexVersionInfo, chunk_ids: list[str], titles: dict[str, str]
    ) -> list[Payload]:
        records = self._index.store.get(active.collection, ids=chunk_ids, embeddings=True)
        return [
            Payload(
                chunk_id=r.id,
                vector=r.embedding,
                text=r.document or "",
                title=str(r.metadata.get("title") or titles.get(r.id, "")),
            )
            for r in records
            if r.embedding is not None
        ]

    def _ranked(
        self,
        active: IndexVersionInfo,
        view: LexicalView,
        block: TenantBlock,
        analysis: QueryAnalysis,
    ) -> list[Candidate]:
        key = (active.index_version, view.fingerprint, analysis.text, 0)
        cached = self.caches.rankings.get(key)
        if cached is not None:
            return list(cached)
        query_vector: Vectors = self.caches.query_vector(
            self._index.embedder.name, analysis.text, self._index.embedder.embed_query
        )
        candidates = rank(analysis, query_vector, block, view)
        self.caches.rankings.put(key, tuple(candidates))
        return candidates

    def _verify(
        self,
        principal: Principal,
        as_of: date,
        candidates: list[Candidate],
        by_id: dict[str, EligibleChunk],
        block: TenantBlock,
        *,
        k: int,
    ) -> tuple[list[Evidence], Counter[str], dict[str, Verified]]:
        """Re-check the best candidates against SQL, in rank order, until k hold."""
        pool = candidates[: VERIFY_DEPTH * k]
        documents = sorted({by_id[c.chunk_id].document_id for c in pool})
        with self._db.read() as session:
            current = current_versions(session, principal, as_of=as_of, document_ids=documents)
            dropped: Counter[str] = Counter()
            accepted: list[tuple[Candidate, Evidence]] = []
            for candidate in pool:
                chunk = by_id[candidate.chunk_id]
                reason = check_citation(
                    current.get(chunk.document_id),
                    version=chunk.version,
                    start=chunk.start,
                    end=chunk.end,
                    expected_text=block.texts[candidate.row],
                    indexed_hash=chunk.indexed_hash,
                )
                if reason == "not_eligible":
                    reason = why_not_eligible(
                        session,
                        principal,
                        as_of=as_of,
                        document_id=chunk.document_id,
                        version=chunk.version,
                    )
                if reason is not None:
                    dropped[reason] += 1
                    continue
                doc = current[chunk.document_id]
                accepted.append(
                    (
                        candidate,
                        _evidence(
                            doc, chunk_id=chunk.chunk_id, start=chunk.start, end=chunk.end, rank=0
                        ),
                    )
                )
        chosen = _diversify([e for _, e in accepted], k)
        ranked = [e.model_copy(update={"rank": i + 1}) for i, e in enumerate(chosen)]
        return ranked, dropped, current

    def _chunk_for(self, principal: Principal, doc: Verified, start: int, end: int) -> str:
        from sqlalchemy import select

        from services.db.models import IndexChunk

        active = self._index.active()
        if active is not None:
            with self._db.read() as session:
                chunk_id = session.scalar(
                    select(IndexChunk.chunk_id).where(
                        IndexChunk.index_version == active.index_version,
                        IndexChunk.tenant_id == principal.tenant_id,
                        IndexChunk.document_id == doc.document_id,
                        IndexChunk.version == doc.version,
                        IndexChunk.start <= start,
                        IndexChunk.end >= end,
                    )
                )
                if chunk_id:
                    return str(chunk_id)
        return f"{principal.tenant_id}/{doc.document_id}@{doc.version}:{start}-{end}"

    def _audit(self, principal: Principal, result: RetrievalResult, *, k: int) -> None:
        with self._db.write() as session:
            audit.record(
                session,
                clock=self._clock,
                tenant_id=principal.tenant_id,
                actor=principal.user_id,
                action="retrieval.performed",
                subject_type="retrieval",
                subject_id=result.query[:300],
                after_ref=result.status,
                detail={
                    "k": k,
                    "as_of": result.as_of.isoformat(),
                    "evidence_ids": [e.evidence_id for e in result.evidence],
                    "dropped": result.dropped,
                    "index_version": result.index_version,
                },
            )


def _evidence(doc: Verified, *, chunk_id: str, start: int, end: int, rank: int) -> Evidence:
    return Evidence(
        evidence_id=evidence_id_for(doc.document_id, doc.version, start, end),
        document_id=doc.document_id,
        version=doc.version,
        chunk_id=chunk_id,
        knowledge_class=doc.knowledge_class,
        doc_type=doc.doc_type,
        title=doc.title,
        start=start,
        end=end,
        quote=doc.body[start:end],
        content_hash=doc.content_hash,
        customer_id=doc.customer_id,
        valid_from=doc.valid_from,
        valid_to=doc.valid_to,
        rank=rank,
    )


def _diversify(evidence: list[Evidence], k: int) -> list[Evidence]:
    """At most PER_DOCUMENT chunks per document, unless fewer than k documents qualify."""
    first: list[Evidence] = []
    rest: list[Evidence] = []
    per_doc: Counter[str] = Counter()
    for item in evidence:
        if per_doc[item.ref] < PER_DOCUMENT:
            per_doc[item.ref] += 1
            first.append(item)
        else:
            rest.append(item)
    chosen = first[:k]
    if len(chosen) < k:
        chosen += rest[: k - len(chosen)]
    return chosen


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


__all__ = ["RetrievalService", "text_analysis"]
