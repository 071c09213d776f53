"""Tenant blocks on disk: a block read back ranks exactly as the one written, a publish or revoke
makes the next generation's block (the old one is never read again and is removed), and a
process with empty caches answers from the persisted block as one that built it in memory."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from services.bootstrap import Services
from services.language import tokens as text_analysis
from services.retrieval import blocks
from services.retrieval.blocks import BlockFiles
from services.retrieval.caches import Payload, RetrievalCaches, TenantBlock
from services.retrieval.eligibility import active_index
from services.retrieval.embedders import HashingEmbedder
from services.retrieval.ranking import QueryAnalysis, document_frequency, rank
from tests.support.corpus import write_corpus
from tests.support.publishing import (
    AS_OF,
    LEADTIME_QUERY,
    approved_leadtime,
    publishing_corpus,
    who,
)
from tests.support.retrieval import fake_services, fake_store
from tests.support.vectors import InMemoryVectorStore
from tests.unit.test_ranking_equivalence import (
    assert_same,
    block_of,
    demo_chunks,
    golden_queries,
    synthetic_chunks,
    synthetic_queries,
    units_of,
)

__all__ = ["fake_services", "fake_store"]

EMBEDDER = HashingEmbedder(dimension=64)


def saved_and_loaded(block: TenantBlock, root: Path) -> TenantBlock:
    files = BlockFiles(root)
    files.save("v1", "T", 1, block)
    loaded = files.load("v1", "T", 1)
    assert loaded is not None
    return loaded


def assert_ranks_alike(
    written: TenantBlock, read: TenantBlock, eligible: list[str], queries: list[str]
) -> None:
    view = RetrievalCaches().view("v1", "T", written, eligible)
    read_view = RetrievalCaches().view("v1", "T", read, eligible)
    for query in queries:
        analysis = QueryAnalysis.of(query)
        vector = EMBEDDER.embed_query(query)
        assert rank(analysis, vector, read, read_view) == rank(analysis, vector, written, view)
        for unit in units_of(query):
            assert document_frequency(unit, read, read_view) == document_frequency(
                unit, written, view
            ), (query, unit)


def test_a_block_read_back_holds_and_ranks_what_was_written(tmp_path: Path) -> None:
    chunks = demo_chunks()
    _caches, block = block_of(chunks)
    loaded = saved_and_loaded(block, tmp_path)
    assert loaded.ids == block.ids and loaded.row_of == block.row_of
    for column in ("texts", "titles", "hashes", "matched"):
        assert list(getattr(loaded, column)) == list(getattr(block, column)), column
    assert np.array_equal(loaded.matrix, block.matrix)
    assert np.array_equal(loaded.lexicon.lengths, block.lexicon.lengths)
    scripts = [text_analysis.script_of(text) == "latin" for text in block.matched]
    assert loaded.english.tolist() == block.english.tolist() == scripts
    assert any(scripts) and not all(scripts)  # the demo writes both
    rng = random.Random(5)
    ids = [c[0] for c in chunks]
    queries = golden_queries() + synthetic_queries(rng, 30)
    assert_ranks_alike(block, loaded, ids, queries)
    assert_ranks_alike(block, loaded, rng.sample(ids, len(ids) // 2), queries[:20])


@pytest.mark.parametrize("seed", range(3))
def test_a_block_read_back_then_grown_and_shrunk_ranks_as_a_scan_does(
    seed: int, tmp_path: Path
) -> None:
    rng = random.Random(seed)
    chunks = synthetic_chunks(rng, 300)
    _caches, block = block_of(chunks[:200])
    loaded = saved_and_loaded(block, tmp_path)
    _more, grown = block_of(chunks[200:])
    loaded.add([payload_of(grown, row) for row in range(len(grown.ids))])
    caches = RetrievalCaches()
    caches._blocks[("v1", "T")] = loaded
    doomed = rng.sample(loaded.ids, 40)
    caches.evict_chunks(doomed)
    survivor = caches._blocks[("v1", "T")]
    assert len(survivor.ids) == 260 and not set(doomed) & set(survivor.ids)
    assert assert_same(caches, survivor, survivor.ids, synthetic_queries(rng, 30)) == 30


def payload_of(block: TenantBlock, row: int) -> Payload:
    return Payload(
        chunk_id=block.ids[row],
        vector=block.matrix[row],
        text=block.texts[row],
        title=block.titles[row],
        content_hash=block.hashes[row],
    )


# ---- with the services ---------------------------------------------------------------------
@pytest.fixture
def published(fake_services: Services, tmp_path: Path) -> Services:
    fake_services.importer.import_file(write_corpus(tmp_path / "c.json", publishing_corpus()))
    return fake_services


def answer(services: Services) -> tuple[str, list[str]]:
    result = services.retrieval.retrieve(who(services, "a.sales"), LEADTIME_QUERY, as_of=AS_OF)
    return result.status, [e.evidence_id for e in result.evidence]


def on_disk(services: Services) -> tuple[BlockFiles, str, int]:
    """The block files, the active index version and tenant A's generation in it."""
    files = services.index.blocks.files
    assert files is not None
    with services.db.read() as session:
        found = active_index(session, services.index.space, "A")
    assert found is not None
    return files, found[0].index_version, found[1]


def fresh_process_answer(services: Services) -> tuple[str, list[str]]:
    """What a process with empty caches answers."""
    services.retrieval.caches.clear()
    return answer(services)


def built_without_files_answer(services: Services) -> tuple[str, list[str]]:
    files, _version, _generation = on_disk(services)
    shutil.rmtree(files.root)
    return fresh_process_answer(services)


def test_after_publish_and_revoke_a_fresh_process_answers_from_the_new_generation_only(
    published: Services, fake_store: InMemoryVectorStore
) -> None:
    s = published
    files, version, generation = on_disk(s)
    assert files.generations(version, "A") == [generation]  # written by the import's sync
    warm = answer(s)
    calls = len(fake_store.calls)
    assert fresh_process_answer(s) == warm and warm[1]
    assert fake_store.calls[calls:] == []  # the block came from disk, not the store

    candidate = approved_leadtime(s)
    s.publisher.publish(who(s, "a.owner"), candidate.candidate_id)
    files, version, published_generation = on_disk(s)
    assert published_generation > generation
    assert files.generations(version, "A") == [published_generation]  # the old one is gone
    block = files.load(version, "A", published_generation)
    assert block is not None
    assert not [c for c in block.ids if c.startswith("A/SOP-LEADTIME@2#")]  # superseded
    assert [c for c in block.ids if c.startswith("A/SOP-LEADTIME@3#")]
    after_publish = fresh_process_answer(s)
    assert any(e.startswith("SOP-LEADTIME@3:") for e in after_publish[1])
    assert not any(e.startswith("SOP-LEADTIME@2:") for e in after_publish[1])
    assert built_without_files_answer(s) == after_publish

    s.index.sync(["A"])  # writes the block again (the previous call removed the files)
    result = s.publisher.revoke(who(s, "a.owner"), "SOP-LEADTIME", version=3, reason="wrong")
    assert result.purge_verified
    files, version, revoked_generation = on_disk(s)
    assert revoked_generation > published_generation
    assert files.generations(version, "A") == [revoked_generation]
    assert files.holding("A", "A/SOP-LEADTIME@") == []  # no text of it left on disk
    after_revoke = fresh_process_answer(s)
    assert not any(e.startswith("SOP-LEADTIME@") for e in after_revoke[1])
    assert built_without_files_answer(s) == after_revoke


def test_a_block_of_an_older_generation_is_never_served(published: Services) -> None:
    s = published
    files, version, generation = on_disk(s)
    old = files.load(version, "A", generation)
    assert old is not None
    s.publisher.revoke(who(s, "a.owner"), "SOP-LEADTIME", version=2, reason="wrong")
    files, version, now = on_disk(s)
    shutil.rmtree(files.root)
    files.save(version, "A", generation, old)  # only a stale block is on disk
    assert files.holding("A", "A/SOP-LEADTIME@2#")
    s.retrieval.caches.clear()
    _status, evidence = answer(s)
    assert not any(e.startswith("SOP-LEADTIME@2:") for e in evidence)
    assert files.generations(version, "A") == [now]  # made from it without the revoked rows
    block = files.load(version, "A", now)
    assert block is not None and not [c for c in block.ids if "SOP-LEADTIME@2#" in c]


def test_a_block_written_by_other_analysis_code_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _caches, block = block_of(synthetic_chunks(random.Random(1), 20))
    files = BlockFiles(tmp_path)
    files.save("v1", "T", 1, block)
    monkeypatch.setattr(blocks, "ANALYSIS", "changed-tokenizer")
    assert files.load("v1", "T", 1) is None and files.generations("v1", "T") == []
    files.save("v1", "T", 1, block)
    files.prune("v1", "T", keep=1)  # the other code's block goes
    assert [p.name for p in (tmp_path / "v1" / "T").iterdir()] == ["1.changed-tokenizer"]
