"""`memdesk bench retrieval|ingest`: numbers for the README, printed as one JSON object.

Both run in a throwaway MEMDESK_HOME. `retrieval` uses a synthetic corpus with realistic status,
validity and ACL mixes and synthetic vectors (the deterministic hashing embedder, so 100k chunks
build in minutes); `ingest` uses the real default embedder.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import random
import resource
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import insert, select

from services import bootstrap
from services.core.clock import FakeClock
from services.core.principals import Principal
from services.db.models import DocumentAcl, DocumentVersion, IndexChunk, Tenant, User
from services.lab.evaluation import fresh_store
from services.records.knowledge import content_hash
from services.retrieval.caches import release_freed_memory
from services.retrieval.chunker import MAX_CHARS
from services.retrieval.embedders import HashingEmbedder, UseEmbedder
from services.retrieval.ranking import vector_top
from services.retrieval.records import chunk_records, indexable_documents
from services.settings import Settings

AS_OF = date(2026, 11, 29)
K = 10
COLD_QUERY = "交期 排程"  # the first query of each principal, timed apart
# Made before the base is taken: each language's tokenizer and word-frequency dictionary is
# loaded once per process, on its first query (English's list alone is ~30 MB resident).
WARM_UP_QUERIES = (COLD_QUERY, "lead time inspection report")
CHUNKS_PER_DOC = 4
_TOPICS = [
    ("交期", "lead time", "標準交期", "工作日", "排程"),
    ("檢驗", "inspection", "抽樣", "量測", "報告"),
    ("包裝", "packing", "紙箱", "棧板", "防鏽"),
    ("付款", "payment", "月結", "訂金", "匯率"),
    ("陽極", "anodizing", "膜厚", "染黑", "遮蔽"),
    ("鈍化", "passivation", "鹽霧", "檸檬酸", "紅鏽"),
    ("熱處理", "heat treatment", "淬火", "回火", "硬度"),
    ("校正", "calibration", "量具", "證書", "週期"),
    ("報價", "quotation", "單價", "折扣", "有效期限"),
    ("出口", "export", "木箱", "報關", "海運"),
]
_FILLER = [
    "本公司",
    "作業",
    "程序",
    "依據",
    "客戶",
    "需求",
    "辦理",
    "確認",
    "工程部",
    "品保部",
    "業務",
    "文件",
    "版本",
    "規定",
    "應",
    "須",
]


@dataclass(frozen=True)
class _Doc:
    tenant_id: str
    document_id: str
    version: int
    status: str
    valid_from: date
    valid_to: date | None
    acl: list[str]
    topic: int
    body: str


# Chunks per tenant of `bench retrieval --curve`.
CURVE_SIZES = (1_000, 3_000, 10_000, 30_000)


def curve(
    settings: Settings, *, tenants: int, queries: int, sizes: tuple[int, ...] = CURVE_SIZES
) -> dict[str, Any]:
    """`retrieval` at each size per tenant, each in a process of its own (so peak RSS and the
    first query of a principal are that size's alone)."""
    points = []
    context = multiprocessing.get_context("spawn")
    for size in sizes:
        # (an executor's worker may start the builder of its own; a pool's daemon may not)
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            point = pool.submit(
                retrieval, settings, chunks=size * tenants, tenants=tenants, queries=queries
            ).result()
        points.append({"chunks_per_tenant": size, **_curve_point(point)})
        # A long run shows each size as it is measured (the JSON comes at the end).
        print(json.dumps(points[-1]), file=sys.stderr, flush=True)
    smallest = next((p for p in points if p["chunks_per_tenant"] == 3_000), points[0])
    return {
        "tenants": tenants,
        "queries_per_size": queries,
        "points": points,
        "p95_ratio_largest_to_3k": round(
            points[-1]["governed_p95_ms"] / smallest["governed_p95_ms"], 2
        )
        if smallest["governed_p95_ms"]
        else None,
        "notes": "each size in a fresh process and store, built by a child of its own as in "
        "`bench retrieval`; ratios compare sizes measured in separate processes of one run",
    }


_CURVE_FIELDS = (
    "chunks",
    "governed_p50_ms",
    "governed_p95_ms",
    "governed_cold_p50_ms",
    "baseline_p50_ms",
    "baseline_p95_ms",
    "speedup_p95",
    "recall_at_10",
    "forbidden_hits",
    "baseline_forbidden_hits",
    "peak_rss_mb",
    "cache_bytes_per_chunk",
)


def _curve_point(result: dict[str, Any]) -> dict[str, Any]:
    return {key: result[key] for key in _CURVE_FIELDS}


def retrieval(
    settings: Settings,
    *,
    chunks: int,
    tenants: int,
    queries: int,
    round_robin: bool = False,
    baseline: bool = True,
) -> dict[str, Any]:
    """Governed retrieval vs the naive baseline; `round_robin` queries tenant after tenant (the
    memory ceiling's worst case) instead of random principals.

    As deployed, one process indexes and others serve: a child process builds the store, works
    out the exact-search truth and times the baseline (Chroma, with its collection loaded); this
    process then serves the governed queries from the same store, so its RSS is a serving
    process's (`peak_rss_mb`), and the builder's is reported apart (`build_peak_rss_mb`)."""
    with tempfile.TemporaryDirectory(prefix="memdesk-bench-") as home:
        scratch = settings.model_copy(
            update={"home": Path(home), "database_url": None, "chroma_url": None}
        )
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as builder:
            built: _Built = builder.submit(
                _build,
                scratch,
                chunks=chunks,
                tenants=tenants,
                queries=queries,
                round_robin=round_robin,
                baseline=baseline,
            ).result()
        services = bootstrap.build(scratch, clock=_clock(), embedder=_embedder())
        try:
            return _serve(services, built, tenants=tenants, round_robin=round_robin)
        finally:
            services.close()


def _clock() -> FakeClock:
    return FakeClock(datetime(2026, 11, 29, 9, tzinfo=UTC))


def _embedder() -> HashingEmbedder:
    return HashingEmbedder(dimension=512)


@dataclass(frozen=True)
class _Built:
    """What the building process hands the serving one: the store is on disk, the rest here."""

    chunks: int
    build_s: float
    plan: list[tuple[str, str]]  # (user id, query)
    truths: dict[tuple[str, str], tuple[list[str], set[str]]]
    baseline_ms: list[float]
    baseline_recall: list[float]
    baseline_forbidden: int
    peak_rss_mb: float


def _build(
    settings: Settings,
    *,
    chunks: int,
    tenants: int,
    queries: int,
    round_robin: bool,
    baseline: bool,
) -> _Built:
    """The building process: the store, the query plan, the exact-search truth of each query
    and the naive baseline's timings (it queries Chroma, which the serving process never
    loads)."""
    rng = random.Random(7)
    services = bootstrap.build(settings, clock=_clock(), embedder=_embedder())
    try:
        bootstrap.initialise(services)
        docs = _synthetic_corpus(rng, chunks=chunks, tenants=tenants)
        _insert(services, docs, tenants=tenants)
        started = time.perf_counter()
        active = services.index.rebuild()
        build_s = time.perf_counter() - started
        principals = [
            services.directory.principal(f"t{t:03d}.{role}")
            for t in range(tenants)
            for role in ("sales", "engineer")
        ]
        if round_robin:
            plan = [(principals[i % len(principals)], _query(rng)) for i in range(queries)]
        else:
            plan = [(rng.choice(principals), _query(rng)) for _ in range(queries)]
        truths = _truths(services, plan, active.collection)
        baseline_ms: list[float] = []
        base_recall: list[float] = []
        base_forbidden = 0
        if baseline:
            _label_for_baseline(services, active.index_version, active.collection)
            for principal, query in plan:
                truth_ids, eligible_refs = truths[(principal.user_id, query)]
                vector = services.index.embedder.embed_query(query)
                ms, hits = _timed(
                    lambda p=principal, v=vector: services.index.store.query(
                        active.collection, embedding=v, n_results=K, where=_baseline_where(p)
                    )
                )
                baseline_ms.append(ms)
                base_recall.append(_overlap([h for h, _ in hits], truth_ids))
                base_forbidden += sum(1 for h, _ in hits if _ref(h) not in eligible_refs)
        return _Built(
            chunks=active.chunk_count,
            build_s=build_s,
            plan=[(p.user_id, q) for p, q in plan],
            truths=truths,
            baseline_ms=baseline_ms,
            baseline_recall=base_recall,
            baseline_forbidden=base_forbidden,
            peak_rss_mb=_peak_rss_mb(),
        )
    finally:
        services.close()


def _serve(services: Any, built: _Built, *, tenants: int, round_robin: bool) -> dict[str, Any]:
    """The serving process: governed queries on the store the builder left."""
    ceiling_mb = services.settings.retrieval_cache_mb
    by_user = {user_id: services.directory.principal(user_id) for user_id, _ in built.plan}
    plan = [(by_user[user_id], query) for user_id, query in built.plan]
    first = services.directory.principal("t000.sales")
    # Queries in Chinese, in English and with a part number load what every process loads
    # once (the tokenizer's and each language's word-frequency dictionary, as a worker's
    # warm-up does, with the bilingual dictionary); the caches they filled are emptied
    # again before the base is taken, so the first query of each principal still reads
    # its tenant's block.
    bootstrap.warm_up(services)
    for warm_up in (*WARM_UP_QUERIES, _query(random.Random(0))):
        _governed(services, first, warm_up)
    services.retrieval.caches.clear()
    _release_freed_memory()
    base_rss = _rss_mb()
    cold: list[float] = []
    warmed: set[str] = set()
    for principal, _q in plan:  # first query per principal fills its caches: timed apart
        if round_robin:
            break  # every query of a round-robin may be a first one: none is set apart
        if principal.user_id not in warmed:
            warmed.add(principal.user_id)
            cold.append(_timed(lambda p=principal: _governed(services, p, COLD_QUERY))[0])
    governed, recall = [], []
    forbidden = 0
    for principal, query in plan:
        ms, result = _timed(lambda p=principal, q=query: _governed(services, p, q))
        governed.append(ms)
        truth_ids, eligible_refs = built.truths[(principal.user_id, query)]
        forbidden += sum(1 for e in result.evidence if e.ref not in eligible_refs)
        recall.append(_overlap(_vector_stage(services, principal, query), truth_ids))
    rss_after = _rss_mb()
    g95, b95 = _p(governed, 95), _p(built.baseline_ms, 95)
    caches = services.retrieval.caches
    cached = caches.nbytes()
    held = caches.cached_chunks()
    return {
        "vectors": f"synthetic ({services.index.embedder.name}, 512-d feature hashing)",
        "chunks": built.chunks,
        "tenants": tenants,
        "queries": len(plan),
        "governed_p50_ms": _p(governed, 50),
        "governed_p95_ms": g95,
        "governed_p99_ms": _p(governed, 99),
        "governed_max_ms": round(max(governed), 2) if governed else 0.0,
        "governed_cold_p50_ms": _p(cold, 50),
        "baseline_p50_ms": _p(built.baseline_ms, 50),
        "baseline_p95_ms": b95,
        "speedup_p95": round(b95 / g95, 1) if g95 and b95 else None,
        "recall_at_10": round(statistics.mean(recall), 4),
        "baseline_recall_at_10": round(statistics.mean(built.baseline_recall), 4)
        if built.baseline_recall
        else None,
        "forbidden_hits": forbidden,
        "baseline_forbidden_hits": built.baseline_forbidden,
        "peak_rss_mb": _peak_rss_mb(),
        "build_peak_rss_mb": built.peak_rss_mb,
        "rss_before_queries_mb": base_rss,
        "rss_after_queries_mb": rss_after,
        "rss_growth_mb": round(rss_after - base_rss, 1),
        "cache_ceiling_mb": ceiling_mb,
        "rss_within_ceiling_plus_base": rss_after <= base_rss + ceiling_mb,
        "cache_mb": round(cached / 2**20, 1),
        "cached_chunks": held,
        "cache_bytes_per_chunk": round(cached / held) if held else None,
        "evicted_tenant_blocks": caches.evicted_blocks,
        "round_robin": round_robin,
        "index_build_chunks_per_s": round(built.chunks / built.build_s, 1),
        "notes": "governed = full retrieve(): SQL eligibility, exact vector + BM25 + "
        "keyword fusion, SQL re-verification, audit write; baseline = one shared Chroma "
        "collection queried with a where filter on tenant/status/validity/ACL (labels the "
        "bench adds for it: the product stores none in Chroma); "
        "recall_at_10 = governed vector stage vs exact search over the eligible chunks; "
        "the store is built, and the truth and the baseline computed, by a child process: "
        "peak_rss_mb is the serving process's, build_peak_rss_mb the builder's",
    }


def ingest(settings: Settings, *, chunks: int, rounds: int = 3) -> dict[str, Any]:
    """The raw model vs a full rebuild over the same texts, interleaved round by round.

    Each round embeds every chunk text with the bare model, then rebuilds the index (read SQL,
    chunk, embed, write Chroma + SQL, verify, switch, drop the previous version). Both run warm
    (model loaded, Chroma client connected: process start-up is not ingest). The headline
    efficiency is on CPU seconds of the whole process (every thread, Chroma's included), which a
    busy shared machine disturbs far less than wall time; the wall-time ratio is reported beside
    it. Each figure is the median over the rounds of the ratio within one round.
    """
    rng = random.Random(11)
    embedder = UseEmbedder()
    docs = _synthetic_corpus(rng, chunks=chunks, tenants=1, approved_only=True)
    clock = FakeClock(datetime(2026, 11, 29, 9, tzinfo=UTC))
    with fresh_store(settings, clock=clock, embedder=embedder) as services:
        _insert(services, docs, tenants=1)
        with services.db.read() as session:
            texts = [r.embed_text for d in indexable_documents(session) for r in chunk_records(d)]
        embedder.embed(texts[:8])
        services.index.store.collections()
        raw: list[_Cost] = []
        full: list[_Cost] = []
        indexed = 0
        for _ in range(rounds):
            raw.append(_cost(lambda: embedder.embed(texts))[0])
            cost, active = _cost(services.index.rebuild)
            full.append(cost)
            indexed = active.chunk_count
    if indexed != len(texts):
        raise RuntimeError(f"rebuild indexed {indexed} chunks of {len(texts)}")
    med = statistics.median
    return {
        "embedder": embedder.name,
        "chunks": indexed,
        "rounds": rounds,
        "embedder_chunks_per_s": round(med(indexed / r.wall for r in raw), 1),
        "ingest_chunks_per_s": round(med(indexed / f.wall for f in full), 1),
        "embedder_chunks_per_cpu_s": round(med(indexed / r.cpu for r in raw), 1),
        "ingest_chunks_per_cpu_s": round(med(indexed / f.cpu for f in full), 1),
        "ingest_efficiency": round(med(r.cpu / f.cpu for r, f in zip(raw, full, strict=True)), 3),
        "ingest_efficiency_wall": round(
            med(r.wall / f.wall for r, f in zip(raw, full, strict=True)), 3
        ),
        # What the index adds to the model, per chunk: the model's own spread from round to
        # round can be wider than this on a busy host, and then the ratio above cannot show it.
        "overhead_cpu_ms_per_chunk": round(
            med((f.cpu - r.cpu) / indexed for r, f in zip(raw, full, strict=True)) * 1000, 3
        ),
        "peak_rss_mb": _peak_rss_mb(),
        "notes": "ingest = read SQL + chunk + embed + Chroma/SQL writes + verify + switch + drop "
        "previous; *_per_s on wall time, *_per_cpu_s on process CPU time; ingest_efficiency = "
        "median over rounds of embed CPU s / ingest CPU s (ingest_efficiency_wall: same on wall); "
        "overhead_cpu_ms_per_chunk = median over rounds of (ingest - embed) CPU per chunk",
    }


# ---- synthetic corpus -------------------------------------------------------------------------
def _synthetic_corpus(
    rng: random.Random, *, chunks: int, tenants: int, approved_only: bool = False
) -> list[_Doc]:
    """Documents until `chunks` indexable chunks exist, with a realistic mix of the rest.

    Per tenant: ~70% current approved, ~10% superseded by a newer approved version, 5% revoked,
    5% drafts, 5% expired, 5% not yet valid; ACLs 60% tenant, 20% engineer role, 15% a
    customer grant, 5% one user.
    """
    docs: list[_Doc] = []
    indexed = 0
    n = 0
    while indexed < chunks:
        tenant = f"T{n % tenants:03d}"
        topic = rng.randrange(len(_TOPICS))
        roll = 0.0 if approved_only else rng.random()
        acl = _acl(rng, n % tenants)
        body = _body(rng, topic, n)
        doc_id = f"DOC-{n:06d}"
        start = date(2025, 1, 1) + timedelta(days=rng.randrange(600))
        if roll < 0.10:  # superseded v1 + current v2
            docs.append(_Doc(tenant, doc_id, 1, "superseded", start, None, acl, topic, body))
            docs.append(
                _Doc(tenant, doc_id, 2, "approved", start, None, acl, topic, _body(rng, topic, n))
            )
        elif roll < 0.15:
            docs.append(_Doc(tenant, doc_id, 1, "revoked", start, None, acl, topic, body))
        elif roll < 0.20:
            docs.append(_Doc(tenant, doc_id, 1, "draft", start, None, acl, topic, body))
        elif roll < 0.25:
            docs.append(
                _Doc(tenant, doc_id, 1, "approved", date(2024, 1, 1), start, acl, topic, body)
            )
        elif roll < 0.30:
            docs.append(
                _Doc(tenant, doc_id, 1, "approved", date(2027, 3, 1), None, acl, topic, body)
            )
        else:
            docs.append(_Doc(tenant, doc_id, 1, "approved", start, None, acl, topic, body))
        if docs[-1].status == "approved":
            indexed += CHUNKS_PER_DOC
        n += 1
    return docs


def _acl(rng: random.Random, tenant: int) -> list[str]:
    roll = rng.random()
    if roll < 0.60:
        return ["tenant"]
    if roll < 0.80:
        return ["role:engineer"]
    if roll < 0.95:
        return [f"customer:C-{tenant:03d}-{rng.randrange(3)}"]
    return [f"user:t{tenant:03d}.engineer"]


def _body(rng: random.Random, topic: int, n: int) -> str:
    words = _TOPICS[topic]
    paragraphs = []
    for _ in range(CHUNKS_PER_DOC):
        sentences: list[str] = []
        while sum(len(s) for s in sentences) < MAX_CHARS * 0.75:
            picked = [rng.choice(words) for _ in range(3)] + [rng.choice(_FILLER) for _ in range(3)]
            rng.shuffle(picked)
            # About one sentence in four states a quantity, as SOPs do.
            quantity = f" {rng.randrange(1, 90)} 日" if rng.random() < 0.25 else ""
            sentences.append(
                f"{''.join(picked[:3])}{quantity}，{' '.join(picked[3:])}"
                f"（PN-{n % 9000 + 1000}-{'ABC'[n % 3]}）。"
            )
        paragraphs.append("".join(sentences))
    return "\n\n".join(paragraphs)


def _insert(services: Any, docs: list[_Doc], *, tenants: int) -> None:
    """Straight SQL inserts: the import path's per-record validation is not what is measured."""
    now = services.clock.now()
    with services.db.write() as session:
        session.execute(
            insert(Tenant),
            [
                {"tenant_id": f"T{t:03d}", "name": f"Tenant {t}", "created_at": now}
                for t in range(tenants)
            ],
        )
        session.execute(
            insert(User),
            [
                {
                    "user_id": f"t{t:03d}.{role}",
                    "tenant_id": f"T{t:03d}",
                    "display_name": role,
                    "roles": [role],
                    "grants": [f"customer:C-{t:03d}-0"] if role == "sales" else [],
                    "created_at": now,
                }
                for t in range(tenants)
                for role in ("sales", "engineer")
            ],
        )
        for start in range(0, len(docs), 2000):
            batch = docs[start : start + 2000]
            session.execute(insert(DocumentVersion), [_row(d, now) for d in batch])
            session.execute(
                insert(DocumentAcl),
                [
                    {
                        "tenant_id": d.tenant_id,
                        "document_id": d.document_id,
                        "version": d.version,
                        "tag": tag,
                    }
                    for d in batch
                    for tag in d.acl
                ],
            )


def _row(doc: _Doc, now: datetime) -> dict[str, Any]:
    return {
        "tenant_id": doc.tenant_id,
        "document_id": doc.document_id,
        "version": doc.version,
        "doc_type": "sop",
        "knowledge_class": "fact",
        "status": doc.status,
        "valid_from": doc.valid_from,
        "valid_to": doc.valid_to,
        "language": "zh-Hant",
        "title": f"{_TOPICS[doc.topic][0]}作業標準 {doc.document_id}",
        "body": doc.body,
        "content_hash": content_hash(doc.body),
        "acl": doc.acl,
        "approved_by": "bench",
        "approved_at": now,
        "created_by": "bench",
        "created_at": now,
        "status_changed_at": now,
    }


def _query(rng: random.Random) -> str:
    words = _TOPICS[rng.randrange(len(_TOPICS))]
    parts = rng.sample(list(words), 2)
    if rng.random() < 0.3:
        parts.append(f"PN-{rng.randrange(1000, 9999)}-{rng.choice('ABC')}")
    return " ".join(parts) + "是多少？"


# ---- measurement helpers ----------------------------------------------------------------------
def _governed(services: Any, principal: Principal, query: str) -> Any:
    return services.retrieval.retrieve(principal, query, k=K, as_of=AS_OF)


def _vector_stage(services: Any, principal: Principal, query: str) -> list[str]:
    """The governed path's own vector ranking (same caches, same eligible set)."""
    from services.retrieval import eligibility as el

    retrieval = services.retrieval
    with services.db.read() as session:
        active, at_generation = retrieval._active(session, principal.tenant_id)
        table = retrieval._chunk_table(session, active, principal.tenant_id, at_generation)
        eligible = el.select_eligible(table, el.eligible_documents(session, principal, AS_OF))
    block, view = retrieval._view(active, principal.tenant_id, table, eligible)
    embedder = services.index.embedder
    vector = retrieval.caches.query_vector(embedder.name, query, embedder.embed_query)
    return vector_top(vector, block, view, K)


@dataclass(frozen=True)
class _Truth:
    """A principal's eligible chunks and their vectors, read independently of the pipeline."""

    refs: set[str]
    ids: list[str]
    matrix: Any


def _truths(
    services: Any, plan: list[tuple[Principal, str]], collection: str
) -> dict[tuple[str, str], tuple[list[str], set[str]]]:
    """Exact top-k over each principal's eligible chunks for each of its queries, computed
    independently of the pipeline (nothing changes the eligible sets during the benchmark).
    One principal's vectors are held at a time and dropped once its queries are answered."""
    queries: dict[str, tuple[Principal, list[str]]] = {}
    for principal, query in plan:
        queries.setdefault(principal.user_id, (principal, []))[1].append(query)
    found: dict[tuple[str, str], tuple[list[str], set[str]]] = {}
    for principal, asked in queries.values():
        truth = _eligible_vectors(services, principal, collection)
        for query in asked:
            found[(principal.user_id, query)] = _top(services, truth, query), truth.refs
    return found


def _top(services: Any, truth: _Truth, query: str) -> list[str]:
    if not truth.ids:
        return []
    scores = truth.matrix @ services.index.embedder.embed_query(query)
    order = np.argsort(-scores, kind="stable")[:K]
    return [truth.ids[i] for i in order]


def _eligible_vectors(services: Any, principal: Principal, collection: str) -> _Truth:
    eligible = services.knowledge.eligible(principal, as_of=AS_OF)
    refs = {f"{d.document_id}@{d.version}" for d in eligible}
    with services.db.read() as session:
        ids = [
            c
            for c, d, v in session.execute(
                select(IndexChunk.chunk_id, IndexChunk.document_id, IndexChunk.version).where(
                    IndexChunk.tenant_id == principal.tenant_id
                )
            )
            if f"{d}@{v}" in refs
        ]
    records = services.index.store.inner.get(collection, ids=ids, embeddings=True)
    if not records:
        return _Truth(refs=refs, ids=[], matrix=None)
    matrix = np.vstack([r.embedding for r in records])
    return _Truth(refs=refs, ids=[r.id for r in records], matrix=matrix)


def _label_for_baseline(services: Any, index_version: str, collection: str) -> None:
    """The naive design keeps governance in Chroma's metadata and filters on it there. The
    product stores none (SQL decides, and every key Chroma indexes costs ingest time), so the
    bench adds those labels to its own collection before the baseline queries it."""
    with services.db.read() as session:
        documents = {
            (d.tenant_id, d.document_id, d.version): d for d in indexable_documents(session)
        }
        rows = session.execute(
            select(
                IndexChunk.chunk_id,
                IndexChunk.tenant_id,
                IndexChunk.document_id,
                IndexChunk.version,
            ).where(IndexChunk.index_version == index_version)
        ).all()
    ids = [row[0] for row in rows]
    store = services.index.store
    held = {r.id: r.metadata for r in store.get(collection, ids=ids)}
    labels = []
    for chunk_id, tenant_id, document_id, version in rows:
        document = documents[(tenant_id, document_id, version)]
        labels.append(
            {
                **held[chunk_id],
                "status": document.status,
                "valid_from": _day(document.valid_from),
                "valid_to": _day(document.valid_to) if document.valid_to else _OPEN_END,
                "acl": sorted(document.acl),
            }
        )
    store.update_metadata(collection, ids=ids, metadatas=labels)


_OPEN_END = 99991231  # valid_to of an open-ended version, as an integer Chroma can compare


def _day(value: date) -> int:
    return value.year * 10000 + value.month * 100 + value.day


def _baseline_where(principal: Principal) -> dict[str, Any]:
    day = _day(AS_OF)
    return {
        "$and": [
            {"tenant_id": principal.tenant_id},
            {"status": "approved"},
            {"valid_from": {"$lte": day}},
            {"valid_to": {"$gt": day}},
            {"$or": [{"acl": {"$contains": tag}} for tag in principal.acl_tags]},
        ]
    }


def _ref(chunk_id: str) -> str:
    return chunk_id.split("/", 1)[1].split("#", 1)[0]


def _overlap(found: list[str], truth: list[str]) -> float:
    if not truth:
        return 1.0
    return len(set(found) & set(truth)) / len(truth)


@dataclass(frozen=True)
class _Cost:
    wall: float
    cpu: float


def _cost(fn: Any) -> tuple[_Cost, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return _Cost(wall=time.perf_counter() - wall, cpu=time.process_time() - cpu), value


def _timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = fn()
    return (time.perf_counter() - started) * 1000, value


def _p(values: list[float], pct: int) -> float:
    ordered = sorted(values)
    return round(ordered[max(0, round(pct / 100 * len(ordered)) - 1)], 2) if ordered else 0.0


def _rss_mb() -> float:
    """Resident memory now (Linux), unlike the peak the kernel keeps."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _release_freed_memory() -> None:
    """Collect garbage and hand the freed heap back to the OS (glibc), so the base RSS is what
    the process holds, not what the truth computation freed and the caches could reuse."""
    gc.collect()
    release_freed_memory()


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
