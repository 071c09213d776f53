"""Governed retrieval (docs/product.md §4): eligible set first, hybrid ranking, SQL re-check."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from datetime import date
from types import MappingProxyType
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from services.contracts.evidence_id import evidence_id_for, parse_evidence_id
from services.contracts.span_reading import ReadingFailed, SpanReading, SpanToRead
from services.core.clock import Clock, today
from services.core.errors import IndexUnavailable, InvalidInput, MemdeskError, NotFound
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import IndexChunk
from services.language import tokens as text_analysis
from services.records import audit
from services.retrieval import answerability, spans
from services.retrieval.answerability import QueryProfile
from services.retrieval.caches import (
    EligibleSet,
    LexicalView,
    RetrievalCaches,
    TenantBlock,
    TextAnalyses,
)
from services.retrieval.conflicts import find_conflicts, make_room
from services.retrieval.coverage import unsearchable_relevant
from services.retrieval.eligibility import (
    ActiveIndex,
    ChunkRow,
    ChunkTable,
    Eligibility,
    IndexState,
    Verified,
    active_index,
    check_citation,
    current_versions,
    eligibility_key,
    eligible_documents,
    index_state,
    load_chunk_table,
    select_eligible,
    why_not_eligible,
)
from services.retrieval.embedders import Vectors
from services.retrieval.index import IndexManager
from services.retrieval.ranking import (
    Candidate,
    QueryAnalysis,
    document_frequency,
    rank,
    texts_naming,
)
from services.retrieval.records import next_chunk_id
from services.retrieval.relevance import SIBLING_TEXTS, Assessment, Item, assess
from services.retrieval.statements import question_conflicts
from services.retrieval.types import Evidence, RetrievalResult, SpanReader

MAX_K = 100
# Chunks of one document admitted to the top k before other documents get a turn.
PER_DOCUMENT = 2
# How many fused candidates are re-verified at most, as a multiple of k.
VERIFY_DEPTH = 4


class RetrievalService:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        index: IndexManager,
        reader: SpanReader | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._index = index
        # A model that reads the spans (span-reading@1); None: the offline judgement decides.
        self._reader = reader

    @property
    def caches(self) -> RetrievalCaches:
        return self._index.caches

    # ---- retrieve ----------------------------------------------------------------------------
    def retrieve(
        self,
        principal: Principal,
        query: str,
        *,
        k: int = 5,
        as_of: date | None = None,
        customer_id: str | None = None,
    ) -> RetrievalResult:
        """`customer_id`: the customer the work is for. Another customer's documents (their
        contract, quote or mail) are not this one's terms, even for a principal who may read
        both: they are ranked with everything else — words and the embedding are weighed over
        all the principal may read, whoever the work is for — but never returned."""
        if not query or not query.strip():
            raise InvalidInput("the query is empty")
        if not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be between 1 and {MAX_K}, got {k}")
        as_of = as_of or today(self._clock)
        started = time.perf_counter()
        timings: dict[str, float] = {}
        with self._db.read() as session:  # one snapshot for everything governance decides
            state = self._state(session, principal.tenant_id)
            active = state.active
            table = self._chunk_table(session, active, principal.tenant_id, state.generation)
            eligible_key = eligibility_key(principal, as_of, state.knowledge)
            documents = self._eligible_documents(session, principal, as_of, eligible_key)
        table_key = (active.index_version, principal.tenant_id, table.generation)
        eligibility = self._select_eligible(table, table_key, documents, eligible_key)
        timings["eligible_ms"] = _since(started)
        # Every candidate is one of the eligible chunks (the view holds only those).
        by_id = table.rows
        analysis = QueryAnalysis.of(query)
        block, view = self._view(active, principal.tenant_id, table, eligibility)
        candidates = self._ranked(active, view, block, analysis)
        timings["rank_ms"] = _since(started) - timings["eligible_ms"]
        vector_z = {c.chunk_id: c.vector_z for c in candidates}
        frequency = self._frequency(active, principal.tenant_id, block, view)
        profile = answerability.profile(query, frequency, len(view.rows))
        with _Verifier(self._db, principal, as_of) as verifier:
            chunks, dropped = self._verify(
                verifier, candidates, by_id, block, k=k, customer_id=customer_id
            )
            similarity = self._similarity(analysis.text)
            evidence = _narrow(chunks, verifier, profile, similarity, self.caches.analyses)
            bodies = _bodies(verifier, evidence)
            assessment = _judge(
                query, profile, evidence, block, vector_z, view, frequency, bodies, by_id.get, as_of
            )
            assessment, reading = self._read(query, evidence, block, assessment)
            conflicts, evidence = find_conflicts(
                evidence,
                verifier.lookup,
                relevant=assessment.relevant,
                by_vector_only=assessment.by_vector_only,
                query_units=text_analysis.key_units(query),
                candidates=candidates[: VERIFY_DEPTH * k],
                by_id=by_id,
                matched_text=lambda chunk_id: block.matched[block.row_of[chunk_id]],
                k=k,
                analyses=self.caches.analyses,
            )
            if not conflicts:  # documents that phrase the fact differently: ask the question
                conflicts, units = question_conflicts(
                    profile,
                    evidence,
                    relevant=assessment.relevant,
                    lookup=verifier.lookup,
                    chunk_of=by_id.get,
                    analyses=self.caches.analyses,
                    similarity=similarity,
                )
                evidence = make_room(evidence, units, conflicts, k) if conflicts else evidence
            if conflicts:
                bodies = _bodies(verifier, evidence)
        if conflicts and reading is None:  # partners may have joined the evidence
            assessment = _judge(
                query, profile, evidence, block, vector_z, view, frequency, bodies, by_id.get, as_of
            )
        status = (
            "insufficient_evidence"
            if not assessment.sufficient
            else "source_conflict"
            if conflicts
            else "ok"
        )
        missing = list(assessment.missing)
        if eligibility.not_indexed:
            dropped["not_indexed"] = len(eligibility.not_indexed)
            unsearchable = unsearchable_relevant(
                self._db,
                tenant_id=principal.tenant_id,
                not_indexed=eligibility.not_indexed,
                query=query,
            )
            if unsearchable and status == "ok":
                status = "insufficient_evidence"
            missing += [f"{ref} (approved, not searchable yet)" for ref in unsearchable]
        timings["verify_ms"] = _since(started) - timings["rank_ms"] - timings["eligible_ms"]
        timings["total_ms"] = _since(started)
        result = RetrievalResult(
            status=status,
            query=query,
            as_of=as_of,
            evidence=evidence,
            conflicts=conflicts,
            missing=missing,
            dropped=dict(dropped),
            index_version=active.index_version,
            timings_ms={key: round(value, 3) for key, value in timings.items()},
            reader=reading.reader if reading else "offline",
            model_calls=reading.model_calls if reading else 0,
            tokens=reading.tokens if reading else 0,
        )
        self._audit(principal, result, k=k)
        return result

    def _similarity(self, query: str) -> Callable[[str, list[str]], list[float]]:
        """Cosine similarity of a chunk's texts to the query, in the index's embedding space.
        The texts' vectors are remembered with the chunk (they do not depend on the query:
        embedding a chunk's candidate spans again for every question was a model call per
        cross-script hit)."""
        embedder = self._index.embedder
        kind = f"vector:{embedder.name}"

        def embed(texts: list[str]) -> list[Vectors]:
            # each row its own buffer: a view would keep the whole batch alive after the other
            # rows are evicted, unweighed
            return [row.copy() for row in embedder.embed(texts)]

        def similar(chunk_id: str, texts: list[str]) -> list[float]:
            vector = self.caches.query_vector(embedder.name, query, embedder.embed_query)
            rows = self.caches.analyses.get_many(chunk_id, kind, texts, embed)
            return [float(row @ vector) for row in rows]

        return similar

    def _read(
        self, query: str, evidence: list[Evidence], block: TenantBlock, offline: Assessment
    ) -> tuple[Assessment, SpanReading | None]:
        """With a model reader configured, its verdicts decide which spans answer; when it
        cannot answer, the offline judgement stands (and the result says so)."""
        if self._reader is None or not evidence:
            return offline, None
        spans = [
            SpanToRead(
                evidence_id=e.evidence_id,
                title=e.title,
                text=e.quote,
                context=block.texts[block.row_of[e.chunk_id]],
            )
            for e in evidence
        ]
        try:
            reading = self._reader.read(query, spans)
        except MemdeskError as exc:
            reader = f"offline ({self._reader.name} unavailable: {exc})"
            # A refused answer was still paid for: its calls and tokens are reported too.
            calls, tokens = (
                (exc.model_calls, exc.tokens) if isinstance(exc, ReadingFailed) else (0, 0)
            )
            return offline, SpanReading(
                reader=reader, verdicts=[], model_calls=calls, tokens=tokens
            )
        given = {e.evidence_id for e in evidence}
        return _from_reading(reading, given, offline, query=query), reading

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

    # ---- units ---------------------------------------------------------------------------------
    def units(
        self, principal: Principal, document_id: str, version: int, *, as_of: date | None = None
    ) -> list[Evidence]:
        """Every citable unit (sentence, clause, list item) of a document version, in order,
        each an ordinary citation: the version must be current, approved and readable by the
        principal, exactly as for `resolve`; NotFound otherwise. Lets the agents read the rest
        of a cited document (its exceptions, its lists) and cite those parts precisely."""
        as_of = as_of or today(self._clock)
        with self._db.read() as session:
            current = current_versions(
                session, principal, as_of=as_of, document_ids=[document_id]
            ).get(document_id)
            if current is None or current.version != version:
                raise NotFound("evidence", f"{document_id}@{version}")
            chunks = self._chunk_bounds(session, principal.tenant_id, document_id, version)
        found = []
        for start, end in spans.units(current.body):
            chunk_id = next((c for c, s, e in chunks if s <= start and end <= e), None)
            found.append(
                _evidence(
                    current,
                    chunk_id=chunk_id or f"{principal.tenant_id}/{document_id}@{version}",
                    start=start,
                    end=end,
                    rank=0,
                )
            )
        return found

    # ---- internals ----------------------------------------------------------------------------
    def _chunk_bounds(
        self, session: Session, tenant_id: str, document_id: str, version: int
    ) -> list[tuple[str, int, int]]:
        found = active_index(session, self._index.space, tenant_id)
        if found is None:
            return []
        rows = session.execute(
            select(IndexChunk.chunk_id, IndexChunk.start, IndexChunk.end).where(
                IndexChunk.index_version == found[0].index_version,
                IndexChunk.tenant_id == tenant_id,
                IndexChunk.document_id == document_id,
                IndexChunk.version == version,
            )
        )
        return [(str(c), int(s), int(e)) for c, s, e in rows]

    def _active(self, session: Session, tenant_id: str) -> tuple[ActiveIndex, int]:
        state = self._state(session, tenant_id)
        return state.active, state.generation

    def _state(self, session: Session, tenant_id: str) -> IndexState:
        found = index_state(session, self._index.space, tenant_id)
        if found is None:
            raise IndexUnavailable(
                f"no active index for {self._index.space} yet: run `memdesk index rebuild`"
            )
        return found

    def _eligible_documents(
        self, session: Session, principal: Principal, as_of: date, key: Hashable
    ) -> Mapping[str, int]:
        """The principal's eligible versions, read from SQL unless read already at this
        knowledge generation (the key holds it: any change to a version or an ACL moved it)."""
        cached = self.caches.eligible.get(key)
        if cached is None:
            documents = eligible_documents(session, principal, as_of)
            cached = EligibleSet(principal.tenant_id, MappingProxyType(documents))
            self.caches.eligible.put(key, cached)
        return cached.documents

    def _select_eligible(
        self,
        table: ChunkTable,
        table_key: tuple[str, str, int],
        documents: Mapping[str, int],
        key: Hashable,
    ) -> Eligibility:
        """`select_eligible`, kept for the chunk list (this very one: positions are in its
        order) and the eligible set it was made of."""
        selection_key = (table_key, key)
        cached: Eligibility | None = self.caches.selections.get(selection_key)
        if cached is None or cached.table is not table:
            cached = select_eligible(table, documents)
            self.caches.selections.put(selection_key, cached)
        return cached

    def _chunk_table(
        self, session: Session, active: ActiveIndex, tenant_id: str, at_generation: int
    ) -> ChunkTable:
        """The tenant's chunk list, re-read only when SQL's generation counter moved."""
        key = (active.index_version, tenant_id)
        table: ChunkTable | None = self.caches.chunk_tables.get(key)
        if table is None or table.generation != at_generation:
            table = load_chunk_table(session, active.index_version, tenant_id, at_generation)
            self.caches.chunk_tables.put(key, table)
        return table

    def _view(
        self, active: ActiveIndex, tenant_id: str, table: ChunkTable, eligibility: Eligibility
    ) -> tuple[TenantBlock, LexicalView]:
        blocks = self._index.blocks
        table_key = (active.index_version, tenant_id, table.generation)
        # Chunks the tenant's index no longer holds (removed by any process) leave the cache now.
        self.caches.drop_missing(
            active.index_version, tenant_id, table_key=table_key, table=table.rows
        )
        return self.caches.tenant_view(
            active.index_version,
            tenant_id,
            table_key=table_key,
            table_ids=table.ids,
            selected=eligibility.selected,
            load=lambda: blocks.block(active, tenant_id, table),
            fetch=lambda missing: blocks.fetch(active, tenant_id, table, missing),
        )

    def _ranked(
        self,
        active: ActiveIndex,
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

    def _frequency(
        self, active: ActiveIndex, tenant_id: str, block: TenantBlock, view: LexicalView
    ) -> Callable[[str], int]:
        """Document frequency of a query unit among the view's chunks, remembered for the view
        (its fingerprint names its rows, as for rankings): counting a common Chinese word reads
        every chunk that may hold it, as many as the tenant has."""

        def frequency(unit: str) -> int:
            key = (active.index_version, tenant_id, view.fingerprint, unit)
            cached = self.caches.frequencies.get(key)
            if cached is None:
                cached = document_frequency(unit, block, view)
                self.caches.frequencies.put(key, cached)
            return cached

        return frequency

    def _verify(
        self,
        verifier: _Verifier,
        candidates: list[Candidate],
        by_id: Mapping[str, ChunkRow],
        block: TenantBlock,
        *,
        k: int,
        customer_id: str | None = None,
    ) -> tuple[list[Evidence], Counter[str]]:
        """Re-check candidates against SQL in rank order, a round of 2k at a time, until k hold.
        With `customer_id`, a version that applies to another customer is passed over."""
        dropped: Counter[str] = Counter()
        accepted: list[Evidence] = []
        limit = min(len(candidates), VERIFY_DEPTH * k)
        position = 0
        while position < limit and len(_diversify(accepted, k)) < k:
            batch = candidates[position : position + 2 * k]
            position += len(batch)
            current = verifier.lookup([by_id[c.chunk_id].document_id for c in batch])
            for candidate in batch:
                chunk = by_id[candidate.chunk_id]
                row = block.row_of.get(candidate.chunk_id)
                if row is None:  # evicted by a concurrent purge after it was ranked
                    dropped["not_eligible"] += 1
                    continue
                doc = current.get(chunk.document_id)
                reason = check_citation(
                    doc,
                    version=chunk.version,
                    start=chunk.start,
                    end=chunk.end,
                    expected_text=block.texts[row],
                    indexed_hash=chunk.indexed_hash,
                )
                if reason is None and block.hashes[row] != getattr(doc, "content_hash", ""):
                    reason = "stale_vector"  # the vector was computed from other content
                if reason == "not_eligible":
                    reason = verifier.why_not(chunk.document_id, chunk.version)
                if reason is not None or doc is None:
                    dropped[reason or "not_eligible"] += 1
                    continue
                if customer_id is not None and doc.customer_id not in (None, customer_id):
                    dropped["other_customer"] += 1
                    continue
                accepted.append(
                    _evidence(
                        doc, chunk_id=chunk.chunk_id, start=chunk.start, end=chunk.end, rank=0
                    )
                )
        chosen = _diversify(accepted, k)
        return [e.model_copy(update={"rank": i + 1}) for i, e in enumerate(chosen)], dropped

    def _chunk_for(self, principal: Principal, doc: Verified, start: int, end: int) -> str:
        with self._db.read() as session:
            found = active_index(session, self._index.space, principal.tenant_id)
            if found is not None:
                active = found[0]
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
                    # Who judged the spans and what that cost: model calls made outside a run
                    # are visible here only.
                    "reader": result.reader,
                    "model_calls": result.model_calls,
                    "tokens": result.tokens,
                },
            )


class _Verifier:
    """Fresh SQL reads of the documents hits come from, at most once per document per query.

    One read transaction, opened after ranking (so it sees anything committed meanwhile) and
    closed when the result is assembled.
    """

    def __init__(self, db: Database, principal: Principal, as_of: date) -> None:
        self._db = db
        self._principal = principal
        self._as_of = as_of
        self._current: dict[str, Verified | None] = {}
        self._session: Session | None = None
        self._scope: Any = None

    def __enter__(self) -> _Verifier:
        self._scope = self._db.read()
        self._session = self._scope.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._scope.__exit__(*exc)
        self._session = None

    def lookup(self, document_ids: list[str]) -> dict[str, Verified]:
        assert self._session is not None
        needed = sorted({d for d in document_ids if d not in self._current})
        if needed:
            found = current_versions(
                self._session, self._principal, as_of=self._as_of, document_ids=needed
            )
            for document_id in needed:
                self._current[document_id] = found.get(document_id)
        return {d: doc for d in document_ids if (doc := self._current.get(d)) is not None}

    def why_not(self, document_id: str, version: int) -> str:
        assert self._session is not None
        return why_not_eligible(
            self._session,
            self._principal,
            as_of=self._as_of,
            document_id=document_id,
            version=version,
        )


def _narrow(
    chunks: list[Evidence],
    verifier: _Verifier,
    profile: QueryProfile,
    similarity: Callable[[str, list[str]], list[float]],
    analyses: TextAnalyses,
) -> list[Evidence]:
    """Each verified chunk hit becomes the minimal span of it that answers the query best. When
    none of a chunk's units shares a word with the query (a Chinese question, an English SOP),
    the embedding ranks them: across scripts it is the only signal there is. The units of each
    candidate span are remembered with its chunk (`analyses`): they do not depend on the query."""
    current = verifier.lookup([e.document_id for e in chunks])

    def prior_of(
        chunk_id: str, units_of: Callable[[str], text_analysis.TextUnits]
    ) -> Callable[[list[str]], list[float]]:
        def prior(texts: list[str]) -> list[float]:
            if any(profile.coverage_of(units_of(t)) for t in texts):
                return [float(sum(map(str.isalnum, t))) for t in texts]
            return similarity(chunk_id, texts)

        return prior

    narrowed: list[Evidence] = []
    seen: set[str] = set()
    for chunk in chunks:
        doc = current.get(chunk.document_id)
        if doc is None:  # verified a moment ago in the same snapshot: cannot happen
            continue
        units_of = _remembered_units(analyses, chunk.chunk_id)
        score = answerability.span_score(profile, units_of)
        # a table the chunk cuts is read whole: its header and the row asked about may be in
        # two chunks (a chunk may end after a table's first row)
        start, end = spans.whole_tables(doc.body, chunk.start, chunk.end)
        start, end = spans.best_span(
            doc.body, start, end, score, prior=prior_of(chunk.chunk_id, units_of)
        )
        if not any(ch.isalnum() for ch in doc.body[start:end]):
            continue  # a chunk of punctuation only (a hard cut before a full stop) says nothing
        span = _evidence(doc, chunk_id=chunk.chunk_id, start=start, end=end, rank=chunk.rank)
        if span.evidence_id not in seen:
            seen.add(span.evidence_id)
            narrowed.append(span)
    return [e.model_copy(update={"rank": i + 1}) for i, e in enumerate(narrowed)]


def _remembered_units(
    analyses: TextAnalyses, chunk_id: str
) -> Callable[[str], text_analysis.TextUnits]:
    def units_of(text: str) -> text_analysis.TextUnits:
        return analyses.get(chunk_id, "span_units", text, answerability.span_units)

    return units_of


def _bodies(verifier: _Verifier, evidence: list[Evidence]) -> dict[str, str]:
    """The current bodies of the evidence's documents (read once per query by verification)."""
    found = verifier.lookup([e.document_id for e in evidence])
    return {document_id: doc.body for document_id, doc in found.items()}


def _judge(
    query: str,
    profile: QueryProfile,
    evidence: list[Evidence],
    block: TenantBlock,
    vector_z: dict[str, float],
    view: LexicalView,
    frequency: Callable[[str], int],
    bodies: Mapping[str, str],
    chunk_of: Callable[[str], ChunkRow | None],
    as_of: date,
) -> Assessment:
    """Relevance reads each document's returned spans with the chunks they were cut from (and
    those holding the rest of a table one of them cuts: `_table_chunks`), and what the principal
    may read about the names the question asks about (relevance rule 9)."""
    by_doc: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_doc.setdefault(e.ref, []).append(e)
    items = []
    for parts in by_doc.values():
        body = bodies.get(parts[0].document_id, "")
        rows = list(
            dict.fromkeys(
                block.row_of[chunk_id]
                for e in parts
                for chunk_id in _table_chunks(e.chunk_id, body, chunk_of)
                if chunk_id in block.row_of
            )
        )
        items.append(
            Item(
                evidence_ids=tuple(e.evidence_id for e in parts),
                text="\n".join(block.matched[r] for r in rows),
                units=text_analysis.TextUnits.joined(block.units[r] for r in rows),
                quote="\n".join(e.quote for e in parts),
                section="\n".join(block.texts[r] for r in rows),
                vector_z=max(vector_z.get(e.chunk_id, 0.0) for e in parts),
                history=all(e.is_history for e in parts),
                title=parts[0].title,
                body=bodies.get(parts[0].document_id, ""),
            )
        )
    return assess(
        query,
        items,
        distinctive=profile.distinctive,
        unseen=profile.unseen,
        untranslated=profile.untranslated,
        texts_naming=lambda unit: texts_naming(unit, block, view, SIBLING_TEXTS),
        known=frequency,
        this_year=as_of.year,
    )


def _table_chunks(
    chunk_id: str, body: str, chunk_of: Callable[[str], ChunkRow | None]
) -> list[str]:
    """The chunk and those of its document version that hold the rest of a table it cuts
    (`spans.whole_tables`): a row is read with its header, as span narrowing reads it."""
    chunk = chunk_of(chunk_id)
    if chunk is None or not body:
        return [chunk_id]
    start, end = spans.whole_tables(body, chunk.start, chunk.end)
    if (start, end) == (chunk.start, chunk.end):
        return [chunk_id]
    found = [chunk_id]
    for step in (-1, 1):
        at = next_chunk_id(chunk_id, step)
        while at and (other := chunk_of(at)) is not None and _overlaps(other, start, end):
            found.append(at)
            at = next_chunk_id(at, step)
    return found


def _overlaps(chunk: ChunkRow, start: int, end: int) -> bool:
    return chunk.start < end and start < chunk.end


def _from_reading(
    reading: SpanReading, given: set[str], offline: Assessment, *, query: str
) -> Assessment:
    """Verdicts → an assessment. Only spans retrieval gave count; a verdict on anything else is
    ignored. Identifiers the evidence does not name stay missing whatever the reader says.
    Insufficient always says what is missing: when no span even partly answers and the offline
    rule had found an answer, the question itself is."""
    verdicts = {v.evidence_id: v for v in reading.verdicts if v.evidence_id in given}
    answering = {e for e, v in verdicts.items() if v.verdict == "answers"}
    partly = {e for e, v in verdicts.items() if v.verdict == "partly"}
    missing_ids = list(offline.missing_identifiers)
    sufficient = bool(answering) and not missing_ids
    missing: list[str] = []
    if not sufficient:
        missing = missing_ids + [m for e in sorted(partly) for m in verdicts[e].missing]
        missing = list(dict.fromkeys(missing)) or list(offline.missing) or [query.strip()]
    return Assessment(
        sufficient=sufficient,
        missing=missing,
        relevant=frozenset(answering | partly),
        by_vector_only=frozenset(),
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
