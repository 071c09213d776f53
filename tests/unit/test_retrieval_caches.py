"""Cached rankings name rows of a tenant block: a block renumbered by an eviction drops them."""

from __future__ import annotations

import numpy as np

from services.retrieval.caches import Lru, Payload, RetrievalCaches, TenantBlock
from services.retrieval.ranking import Candidate


def payload(chunk_id: str) -> Payload:
    return Payload(
        chunk_id=chunk_id,
        vector=np.ones(4, dtype=np.float32),
        text=f"text of {chunk_id}",
        title="t",
        content_hash="h",
    )


def test_evicting_a_chunk_renumbers_the_block_and_drops_rankings_naming_its_rows() -> None:
    caches = RetrievalCaches()
    ids = ["A/SOP-A@1#0", "A/SOP-B@1#0"]
    block = caches.block("v1", "A", ids, dimension=4, fetch=lambda m: [payload(c) for c in m])
    view = caches.view("v1", "A", block, ["A/SOP-B@1#0"])
    survivor = Candidate(
        chunk_id="A/SOP-B@1#0",
        row=block.row_of["A/SOP-B@1#0"],
        fused=1.0,
        keyword_rank=None,
        bm25_rank=1,
        vector_rank=1,
        identifiers_matched=0,
    )
    assert survivor.row == 1
    caches.rankings.put(("v1", view.fingerprint, "q", 0), (survivor,))

    caches.evict_chunks(["A/SOP-A@1#0"])

    renumbered = caches.block("v1", "A", ["A/SOP-B@1#0"], dimension=4, fetch=lambda m: [])
    assert renumbered.row_of == {"A/SOP-B@1#0": 0}
    # Same eligible set, same fingerprint: a surviving cached ranking would point at row 1.
    again = caches.view("v1", "A", renumbered, ["A/SOP-B@1#0"])
    assert again.fingerprint == view.fingerprint
    assert caches.rankings.get(("v1", view.fingerprint, "q", 0)) is None


def tenant_payloads(tenant: str, n: int, dimension: int = 64) -> list[Payload]:
    rng = np.random.default_rng(abs(hash(tenant)) % 2**32)
    return [
        Payload(
            chunk_id=f"{tenant}/DOC-{i}@1#0",
            vector=rng.standard_normal(dimension).astype(np.float32),
            text=f"標準交期 {i % 30} 日，SUS304 零件 PN-{i}-A 依檢驗程序辦理",
            title=f"SOP {tenant}",
            content_hash=f"h{i}",
        )
        for i in range(n)
    ]


def fill(caches: RetrievalCaches, tenant: str, n: int = 300) -> tuple[int, int]:
    """Query-shaped use of one tenant: its block, a view, a ranking. Returns (fetches, rows)."""
    payloads = {p.chunk_id: p for p in tenant_payloads(tenant, n)}
    fetched: list[int] = []

    def fetch(missing: list[str]) -> list[Payload]:
        fetched.append(len(missing))
        return [payloads[c] for c in missing]

    block = caches.block("v1", tenant, list(payloads), dimension=64, fetch=fetch)
    view = caches.view("v1", tenant, block, list(payloads))
    caches.rankings.put(("v1", view.fingerprint, "q", 0), tuple(view.chunk_ids[:5]))
    return sum(fetched), len(block.ids)


def test_the_ceiling_drops_least_recently_used_tenant_blocks_and_they_are_rebuilt_on_demand():
    one_tenant = RetrievalCaches()
    fill(one_tenant, "T000")
    tenant_bytes = one_tenant.nbytes()
    caches = RetrievalCaches(budget_bytes=int(tenant_bytes * 3.5))
    for t in range(10):  # round-robin over more tenants than fit
        fill(caches, f"T{t:03d}")
        assert caches.nbytes() <= caches.budget_bytes
    assert caches.evicted_blocks == 7
    held = sorted(tenant for _version, tenant in caches._blocks)
    assert held == ["T007", "T008", "T009"]  # the most recently used
    assert caches.mentions("T000/") == 0  # block, view, ranking and chunk list all went
    # The next query of an evicted tenant fetches and indexes its chunks again, in full.
    assert fill(caches, "T000") == (300, 300)
    assert caches.nbytes() <= caches.budget_bytes
    # A tenant still held is not fetched again, and using it keeps it.
    assert fill(caches, "T009") == (0, 300)


def test_entries_keep_a_margin_under_the_ceiling_and_freed_memory_is_handed_back(monkeypatch):
    from services.retrieval import caches as module

    released: list[int] = []
    monkeypatch.setattr(module, "_MALLOC_TRIM", lambda pad: released.append(pad) or 1)
    one_tenant = RetrievalCaches()
    fill(one_tenant, "T000")
    tenant_bytes = one_tenant.nbytes()
    # Three tenants fit under the ceiling, but not under the ceiling less the margin.
    caches = RetrievalCaches(budget_bytes=int(tenant_bytes * 3.2))
    assert caches.held_bytes == int(caches.budget_bytes * (1 - module.ALLOCATOR_MARGIN))
    for t in range(3):
        fill(caches, f"T{t:03d}")
        assert caches.nbytes() <= caches.held_bytes
    assert caches.evicted_blocks == 1 and len(caches._blocks) == 2
    # Each eviction freed a whole tenant, more than an eighth of the ceiling: handed back.
    assert released == [0]


def test_without_a_ceiling_nothing_is_dropped():
    caches = RetrievalCaches()
    for t in range(6):
        fill(caches, f"T{t:03d}")
    assert caches.evicted_blocks == 0 and len(caches._blocks) == 6


def test_a_tenant_larger_than_the_ceiling_is_still_served():
    caches = RetrievalCaches(budget_bytes=1024)
    assert fill(caches, "T000") == (300, 300)
    assert fill(caches, "T001") == (300, 300)
    assert [tenant for _v, tenant in caches._blocks] == ["T001"]


def test_a_view_of_table_positions_holds_the_rows_a_view_of_their_ids_holds():
    payloads = tenant_payloads("T000", 50)
    ids = [p.chunk_id for p in payloads]
    by_id = {p.chunk_id: p for p in payloads}
    fetched: list[list[str]] = []

    def fetch(missing: list[str]) -> list[Payload]:
        fetched.append(missing)
        return [by_id[c] for c in missing if c != ids[7]]  # one chunk is gone from the store

    caches = RetrievalCaches()
    selected = np.array([3, 7, 9, 20, 41], dtype=np.int64)
    block, view = caches.tenant_view(
        "v1",
        "T000",
        table_key=("v1", "T000", 1),
        table_ids=ids,
        selected=selected,
        load=lambda: TenantBlock(dimension=64),
        fetch=fetch,
    )
    by_ids = caches.view("v1", "T000", block, [ids[i] for i in selected])
    assert list(view.rows) == list(by_ids.rows) and view.chunk_ids == by_ids.chunk_ids
    assert fetched == [[ids[i] for i in selected]]
    again_block, again = caches.tenant_view(
        "v1",
        "T000",
        table_key=("v1", "T000", 1),
        table_ids=ids,
        selected=selected,
        load=lambda: TenantBlock(dimension=64),
        fetch=fetch,
    )
    assert again is view and again_block is block
    assert fetched[1:] == [[ids[7]]]  # the missing one is asked for again, nothing else
    other = caches.tenant_view(
        "v1",
        "T000",
        table_key=("v1", "T000", 2),
        table_ids=ids,
        selected=selected,
        load=lambda: TenantBlock(dimension=64),
        fetch=fetch,
    )[1]
    assert other.fingerprint != view.fingerprint  # another generation of the chunk list


def test_selecting_eligible_chunks_by_document_version_matches_a_scan():
    import random

    from services.retrieval.eligibility import ChunkRow, ChunkTable, select_eligible

    rng = random.Random(5)
    rows = {}
    for d in range(40):
        for v in range(1, rng.randrange(2, 4)):
            for n in range(rng.randrange(0, 4)):
                rows[f"T/D{d}@{v}#{n}"] = ChunkRow(f"T/D{d}@{v}#{n}", f"D{d}", v, 0, 1, "h")
    table = ChunkTable(generation=1, rows=rows)
    for _ in range(20):
        documents = {f"D{d}": rng.randrange(1, 4) for d in rng.sample(range(50), 30)}
        chosen = select_eligible(table, documents)
        scanned = [r for r in rows.values() if documents.get(r.document_id) == r.version]
        indexed = {r.document_id for r in scanned}
        assert chosen.chunks == scanned
        assert chosen.not_indexed == sorted(
            f"{d}@{v}" for d, v in documents.items() if d not in indexed
        )


def test_document_frequencies_are_remembered_per_view_and_go_with_its_rows() -> None:
    caches = RetrievalCaches()
    block = caches.block(
        "v1",
        "A",
        ["A/SOP-A@1#0", "A/SOP-B@1#0"],
        dimension=4,
        fetch=lambda m: [payload(c) for c in m],
    )
    view = caches.view("v1", "A", block, ["A/SOP-A@1#0", "A/SOP-B@1#0"])
    key = ("v1", "A", view.fingerprint, "交期")
    caches.frequencies.put(key, 2)
    caches.frequencies.put(("v1", "B", "other view", "交期"), 5)
    assert caches.frequencies.get(key) == 2
    assert 0 < caches.frequencies.weight <= caches.nbytes() - block.nbytes

    caches.evict_chunks(["A/SOP-A@1#0"])  # renumbers A's block: its views' counts are stale

    assert caches.frequencies.get(key) is None
    assert caches.frequencies.get(("v1", "B", "other view", "交期")) == 5
    caches.evict_index_version("v1")
    assert len(caches.frequencies) == 0


def test_document_frequencies_keep_to_their_share_of_the_ceiling() -> None:
    caches = RetrievalCaches(budget_bytes=80_000)
    for n in range(5000):
        caches.frequencies.put(("v1", "A", "view", f"unit {n}"), n)
    assert 0 < caches.frequencies.weight <= 80_000 // 8
    assert caches.frequencies.get(("v1", "A", "view", "unit 4999")) == 4999


def test_an_entry_is_weighed_once_so_the_total_comes_back_to_zero_when_it_grew_since() -> None:
    # A cached value may grow after it is put (a view's lazily read rows); forgetting it takes
    # off what was added for it, not what it weighs now.
    lru: Lru[str, list[int]] = Lru(2, weigh=len)
    grows = [1, 2]
    lru.put("a", grows)
    grows.extend([3, 4, 5])
    lru.put("b", [1])
    lru.put("c", [1, 2, 3])  # past capacity: "a" goes first
    assert lru.get("a") is None and lru.weight == 4
    lru.evict_where(lambda _key, _value: True)
    assert lru.weight == 0 and lru.items() == []


def test_a_block_tells_its_english_rows_and_its_rows_added_later() -> None:
    caches = RetrievalCaches()
    vector = np.ones(4, dtype=np.float32)
    english = Payload("A/SOP-EN@1#0", vector, "Lead time is 15 days", "t", "h")
    chinese = Payload("A/SOP-ZH@1#0", vector, "標準交期為 15 日", "t", "h")
    block = caches.block(
        "v1", "A", [english.chunk_id], dimension=4, fetch=lambda missing: [english]
    )
    assert block.english.tolist() == [True]
    block.add([chinese])
    rows = np.array([block.row_of[p.chunk_id] for p in (chinese, english, chinese)])
    assert block.english[rows].tolist() == [False, True, False]
    assert block.without({english.chunk_id}).english.tolist() == [False]
