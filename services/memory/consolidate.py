"""Consolidation: each extracted fact against similar memories of the same scope and topic.

A fact equal to a memory, or one that says it again in other words or the other language
(close in meaning and carrying no value the memory lacks), changes nothing; a fact about the same
single-valued slot (material, quantity, lead time, currency, payment), one close enough in
meaning to a memory of its kind, or a related one that says it replaces something ("X takes
over", 「從 12 月 1 日起改為…」) updates it; anything else creates a memory. A "forget" or a
cancellation deletes the memories it names by kind, by similarity, or the related memory that
carries its names.
Similarity is taken against each candidate's latest `revisions_per_candidate_count` revisions,
so a value seen before is recognised. Pure: the caller loads candidates and applies the plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

from services.language.frequency import informativeness
from services.language.sentences import is_cjk
from services.language.tokens import key_units
from services.memory import statements
from services.memory.extract_offline import SINGLE_VALUED_KINDS
from services.memory.types import ExtractedFact, Extraction
from services.retrieval.embedders import Vectors

Embed = Callable[[Sequence[str]], Vectors]

# Cosine bars of the multilingual embedder, fitted on the dev and fit2 sets and checked on text
# of both domains: statements about the same thing score 0.50-0.83, across languages too;
# unrelated ones of one topic 0.07-0.41. RELATED admits a candidate only when the statement
# itself gives a second reason (it says it changes something, or it shares the memory's names).
RELATED = 0.45
# A paraphrase in the same language must also share half of its content words (by weight).
PARAPHRASE = 0.55
# Across languages only the embedding can tell; a different requirement scored 0.59 there.
CROSS_LANGUAGE = 0.62


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


def _current_similarity(vector: Vectors, candidate: Candidate) -> float:
    """Similarity to the candidate's current text (its first history entry), not its past."""
    if candidate.vectors is None or len(candidate.vectors) == 0:
        return 0.0
    return float(candidate.vectors[0] @ vector)


def _forget(
    item: ExtractedFact, live: list[Candidate], result: Plan, *, embed: Embed, threshold: float
) -> None:
    kinds = {k for k in item.kind.split(",") if k and k != "instruction"}
    vector = embed([item.fact])[0]
    scores = {id(c): _similarity(vector, c) for c in live}
    named = _named_target(item.fact, live, scores)
    hits = []
    for candidate in list(live):
        score = scores[id(candidate)]
        if (kinds and candidate.kind in kinds) or score >= threshold or candidate is named:
            hits.append(candidate)
            live.remove(candidate)
            result.steps.append(
                _on(candidate, "delete", item, similarity=score, reason="asked to forget")
            )
    if not hits:
        result.steps.append(Step(action="unchanged", fact=item, reason="nothing to forget matched"))


def _on(
    candidate: Candidate,
    action: Literal["update", "delete", "unchanged"],
    fact: ExtractedFact,
    *,
    similarity: float,
    reason: str,
) -> Step:
    """A step about an existing (or planned) memory: what it said, where it stands."""
    return Step(
        action=action,
        fact=fact,
        memory_id=candidate.memory_id,
        previous=candidate.fact,
        target=candidate.planned,
        similarity=similarity,
        reason=reason,
    )


def _named_target(text: str, live: list[Candidate], scores: dict[int, float]) -> Candidate | None:
    """The memory a 'forget the Jurong Port Road warehouse' means: the most similar related
    one, when it carries a name the request gives (the embedding alone is not enough)."""
    wanted = statements.names(text)
    related = [c for c in live if scores[id(c)] >= RELATED]
    best = max(related, key=lambda c: scores[id(c)], default=None)
    if best is None or not wanted & statements.names(best.fact):
        return None
    return best


def _repeats(text: str, candidate: Candidate, score: float, threshold: float) -> bool:
    """Whether a fact says again what the candidate says now: close in meaning to its current
    text (a fact equal to an older revision changes it back), no value (number, code, name)
    the memory lacks, and not presenting itself as a change."""
    if statements.states_change(text):
        return False
    old = candidate.fact
    cross = is_cjk(text) != is_cjk(old)
    new_values = _comparable_values(text, cross=cross)
    if not new_values <= statements.names(old):
        return False
    if not cross and _coverage(old, text) >= 0.8 > _coverage(text, old):
        return False  # it says all the memory says and more: an extension, not a repeat
    if score >= threshold or (new_values and score >= RELATED + 0.05):
        return True
    if cross:
        return score >= CROSS_LANGUAGE
    return score >= PARAPHRASE and _coverage(text, old) >= 0.5


def _comparable_values(text: str, *, cross: bool) -> set[str]:
    """The values of a fact that a memory in the other language would also write. Within one
    language all of them; across languages numbers and codes, and the Latin names a Chinese
    text keeps (PPAP, USD): an English text's names may be translated (VAT, 增值税)."""
    values = statements.names(text)
    if not cross:
        return values
    if is_cjk(text):
        return {v for v in values if not is_cjk(v)}
    return {v for v in values if any(ch.isdigit() for ch in v)}


def _coverage(text: str, other: str) -> float:
    """Share of the text's content units (identifiers, words, Chinese bigrams) found in the
    other, each weighted by how rare it is in the language (a rare word says more)."""
    units = key_units(text)
    if not units:
        return 0.0
    found = key_units(other)
    total = sum(informativeness(u) for u in units)
    shared = sum(informativeness(u) for u in units if u in found)
    return shared / total if total else 0.0


def _place(
    fact: ExtractedFact, live: list[Candidate], result: Plan, *, embed: Embed, threshold: float
) -> None:
    same_topic = [c for c in live if c.topic == fact.topic]
    key = normalise(fact.fact)
    for candidate in same_topic:
        if normalise(candidate.fact) == key:
            result.steps.append(
                _on(candidate, "unchanged", fact, similarity=1.0, reason="already remembered")
            )
            return
    vector = embed([fact.fact])[0]
    ranked = sorted(
        ((_similarity(vector, c), i, c) for i, c in enumerate(same_topic)),
        key=lambda t: (-t[0], t[1]),
    )
    for _, _, candidate in ranked:
        score = _current_similarity(vector, candidate)
        comparable = candidate.kind == fact.kind or not (
            {candidate.kind, fact.kind} & SINGLE_VALUED_KINDS
        )
        if comparable and _repeats(fact.fact, candidate, score, threshold):
            result.steps.append(
                _on(
                    candidate,
                    "unchanged",
                    fact,
                    similarity=score,
                    reason=f"says again ({score:.2f}) what is remembered",
                )
            )
            return
    scored = [t for t in ranked if t[2].kind == fact.kind]
    chosen: tuple[float, Candidate] | None = None
    if scored and fact.kind in SINGLE_VALUED_KINDS:
        chosen = (scored[0][0], scored[0][2])
        reason = f"replaces the {fact.kind} remembered before"
    elif scored and scored[0][0] >= threshold:
        chosen = (scored[0][0], scored[0][2])
        reason = f"similar ({scored[0][0]:.2f}) to a memory of the same kind"
    elif scored and scored[0][0] >= RELATED and statements.states_change(fact.fact):
        chosen = (scored[0][0], scored[0][2])
        reason = f"says it replaces a related ({scored[0][0]:.2f}) memory of the same kind"
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
    result.steps.append(_on(candidate, "update", fact, similarity=score, reason=reason))
    candidate.fact = fact.fact
    candidate.history = (fact.fact, *candidate.history)
    if candidate.vectors is not None:
        candidate.vectors = np.vstack([vector[None, :], candidate.vectors])
