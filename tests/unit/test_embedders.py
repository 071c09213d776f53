"""Embedders: one Protocol, the Gemini SDK through a recorded HTTP transport, hashing for tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from services.core.errors import InvalidInput
from services.retrieval.embedders import GeminiEmbedder, HashingEmbedder, UseEmbedder, make_embedder
from services.settings import Settings

RECORDED = json.loads(
    (Path(__file__).parents[1] / "support" / "recorded" / "gemini-embed-2x768.json").read_text()
)


class Replay:
    """Answers batchEmbedContents with the recorded vectors, one per content asked for."""

    def __init__(self, *, dimension: int = 768, drop: int = 0) -> None:
        self.requests: list[dict[str, Any]] = []
        self.dimension = dimension
        self.drop = drop

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append({"url": str(request.url), "body": body})
        recorded = RECORDED["embeddings"]
        wanted = len(body["requests"]) - self.drop
        values = [recorded[i % len(recorded)]["values"][: self.dimension] for i in range(wanted)]
        return httpx.Response(200, json={"embeddings": [{"values": v} for v in values]})


def gemini(replay: Replay) -> GeminiEmbedder:
    client = httpx.Client(transport=httpx.MockTransport(replay))
    return GeminiEmbedder(api_key="test-key", dimension=768, http_client=client)


def test_gemini_embeds_documents_through_the_sdk_and_normalises_rows() -> None:
    replay = Replay()
    vectors = gemini(replay).embed(["標準交期 15 日", "lead time is 15 days"])
    assert vectors.shape == (2, 768)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    request = replay.requests[0]
    assert request["url"].endswith("models/gemini-embedding-001:batchEmbedContents")
    first = request["body"]["requests"][0]
    assert first["taskType"] == "RETRIEVAL_DOCUMENT"
    assert first["outputDimensionality"] == 768
    assert first["content"]["parts"][0]["text"] == "標準交期 15 日"


def test_gemini_queries_use_the_query_task_type() -> None:
    replay = Replay()
    vector = gemini(replay).embed_query("交期是幾天")
    assert vector.shape == (768,)
    assert replay.requests[0]["body"]["requests"][0]["taskType"] == "RETRIEVAL_QUERY"


def test_gemini_batches_at_most_one_hundred_texts_per_request() -> None:
    replay = Replay()
    assert gemini(replay).embed([f"chunk {i}" for i in range(230)]).shape == (230, 768)
    assert [len(r["body"]["requests"]) for r in replay.requests] == [100, 100, 30]


@pytest.mark.parametrize("replay", [Replay(drop=1), Replay(dimension=512)], ids=["count", "dim"])
def test_a_malformed_gemini_answer_is_rejected_not_repaired(replay: Replay) -> None:
    with pytest.raises(ValueError, match="gemini-embedding-001"):
        gemini(replay).embed(["a", "b"])


def test_hashing_embedder_is_deterministic_normalised_and_lexical() -> None:
    embedder = HashingEmbedder(dimension=256)
    a, b, c = embedder.embed(["標準交期 15 日", "標準交期 15 日", "Passivation salt spray"])
    assert np.array_equal(a, b)
    assert abs(float(np.linalg.norm(a)) - 1.0) < 1e-5
    near = float(embedder.embed_query("标准交期") @ a)
    far = float(embedder.embed_query("标准交期") @ c)
    assert near > far


def test_embedders_name_their_vector_space() -> None:
    assert (UseEmbedder.name, UseEmbedder.dimension) == ("use-multilingual-v3", 512)
    assert HashingEmbedder(dimension=64).dimension == 64


def test_make_embedder_follows_the_setting(tmp_path: Path) -> None:
    assert isinstance(
        make_embedder(Settings(home=tmp_path, embedding_backend="hashing")), HashingEmbedder
    )
    assert isinstance(make_embedder(Settings(home=tmp_path)), UseEmbedder)  # nothing loaded yet
    with pytest.raises(InvalidInput, match="GEMINI_API_KEY"):
        make_embedder(Settings(home=tmp_path, embedding_backend="gemini"))
