"""Consolidation: each extracted fact against similar memories of the same scope and topic.

A fact equal to a memory changes nothing; a fact about the same single-valued slot (material,
quantity, lead time) or one close enough in meaning to a memory of its kind updates it; anything
else creates a memory. A "forget" deletes the memories it names by kind or by similarity.
Similarity is taken against each candidate's latest `revisions_per_candidate_count` revisions,
so a value seen before is recognised. Pure: the caller loads candidates and applies the plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

from services.memory.extract_offline import SINGLE_VALUED_KINDS
from services.memory.types import ExtractedFact, Extraction
from services.retrieval.embedders import Vectors

Embed = Callable[[Sequence[str]], Vectors]


@dataclass
class Candidate:
    """An existing memory (or one planned earlier in this batch) that a fact may change."""

    memory_id: str | None
    topic: str
    kind: str
    fact: str
    history: tuple[str, ...]  # the latest N revision facts, newest first
    vectors: Vectors | None = None
    planned: int | None = None  # index of the plan step that created it


@dataclass
class Step:
    action: Literal["create", "update", "delete", "unchanged"]
    fact: ExtractedFact
    memory_id: str | None = None
    previous: str | None = None
    reason: str = ""
    target: int | None = None  # an earlier create step this one changes
    similarity: float | None = None


@dataclass
class Plan:
    steps: list[Step] = field(default_factory=list)


class Consolidator(Protocol):
    """Decides what the extracted facts change. `remote` ones (a model) run outside the write
    transaction, and the Memory Bank re-checks their candidates under the scope lock."""

    name: str
    remote: bool

    def decide(
        self,
        extraction: Extraction,
        candidates: Sequence[Candidate],
        *,
        embed: Embed,
        threshold: float,
    ) -> tuple[Plan, int, int]: ...


class SimilarityConsolidator:
    """The default: `plan` below, with the configured embedder; no model call."""

    name = "similarity"
    remote = False

    def decide(
        self,
        extraction: Extraction,
        candidates: Sequence[Candidate],
        *,
        embed: Embed,
        threshold: float,
    ) -> tuple[Plan, int, int]:
        return plan(extraction, candidates, embed=embed, threshold=threshold), 0, 0


def normalise(text: str) -> str:
    return re.sub(r"[\s。！？!?.,，、；;：:]+", "", text).lower()


def plan(
    extraction: Extraction,
    candidates: Sequence[Candidate],
    *,
    embed: Embed,
    threshold: float,
) -> Plan:
    live = list(candidates)
    texts = [h for c in live for h in c.history]
    if texts:
        vectors = embed(texts)
        offset = 0
        for candidate in live:
            candidate.vectors = vectors[offset : offset + len(candidate.history)]
            offset += len(candidate.history)
    result = Plan()
    for item in extraction.forget:
        _forget(item, live, result, embed=embed, threshold=threshold)
    for fact in extraction.facts:
        _place(fact, live, result, embed=embed, threshold=threshold)
    return result


def _similarity(vector: Vectors, candidate: Candidate) -> float:
    if candidate.vectors is None or len(candidate.vectors) == 0:
        return 0.0
    return float(np.max(candidate.vectors @ vector))


def _forget(
    item: ExtractedFact, live: list[Candidate], result: Plan, *, embed: Embed, threshold: float
) -> None:
    kinds = {k for k in item.kind.split(",") if k and k != "instruction"}
    vector = embed([item.fact])[0]
    hits = []
    for candidate in list(live):
        score = _similarity(vector, candidate)
        if (kinds and candidate.kind in kinds) or score >= threshold:
            hits.append(candidate)
            live.remove(candidate)
            result.steps.append(
                Step(
                    action="delete",
                    fact=item,
                    memory_id=candidate.memory_id,
                    previous=candidate.fact,
                    target=candidate.planned,
                    similarity=score,
                    reason="asked to forget",
                )
            )
    if not hits:
        result.steps.append(Step(action="unchanged", fact=item, reason="nothing to forget matched"))


def _place(
    fact: ExtractedFact, live: list[Candidate], result: Plan, *, embed: Embed, threshold: float
) -> None:
    same_topic = [c for c in live if c.topic == fact.topic]
    key = normalise(fact.fact)
    for candidate in same_topic:
        if normalise(candidate.fact) == key:
            result.steps.append(
                Step(
                    action="unchanged",
                    fact=fact,
                    memory_id=candidate.memory_id,
                    previous=candidate.fact,
                    target=candidate.planned,
                    similarity=1.0,
                    reason="already remembered",
                )
            )
            return
    vector = embed([fact.fact])[0]
    scored = sorted(
        ((_similarity(vector, c), i, c) for i, c in enumerate(same_topic) if c.kind == fact.kind),
        key=lambda t: (-t[0], t[1]),
    )
    chosen: tuple[float, Candidate] | None = None
    if scored and fact.kind in SINGLE_VALUED_KINDS:
        chosen = (scored[0][0], scored[0][2])
        reason = f"replaces the {fact.kind} remembered before"
    elif scored and scored[0][0] >= threshold:
        chosen = (scored[0][0], scored[0][2])
        reason = f"similar ({scored[0][0]:.2f}) to a memory of the same kind"
    if chosen is None:
        live.append(
            Candidate(
                memory_id=None,
                topic=fact.topic,
                kind=fact.kind,
                fact=fact.fact,
                history=(fact.fact,),
                vectors=vector[None, :],
                planned=len(result.steps),
            )
        )
        result.steps.append(Step(action="create", fact=fact, reason="new information"))
        return
    score, candidate = chosen
    result.steps.append(
        Step(
            action="update",
            fact=fact,
            memory_id=candidate.memory_id,
            previous=candidate.fact,
            target=candidate.planned,
            similarity=score,
            reason=reason,
        )
    )
    candidate.fact = fact.fact
    candidate.history = (fact.fact, *candidate.history)
    if candidate.vectors is not None:
        candidate.vectors = np.vstack([vector[None, :], candidate.vectors])
