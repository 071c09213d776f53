"""Cached rankings name rows of a tenant block: a block renumbered by an eviction drops them."""

from __future__ import annotations

import numpy as np

from services.retrieval.caches import Payload, RetrievalCaches
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
