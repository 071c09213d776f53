"""Authoritative evidence that disagrees on one fact, put side by side (rule: see facts.py).

Only `fact` evidence that passed re-verification and is relevant to the query takes part, and of
its facts only those whose attribute shares the most words (or CJK bigrams, or identifiers) with
the query, and at least one (a relevant SOP also states facts nobody asked about, and a calendar
states every freeze: asked about one, the others are not compared); when the evidence was
relevant only as the vector signal's pick (another language), all its facts take part. History
is a past decision and never makes a conflict. Facts are compared within one customer scope
(customer_id, or none). A conflicting statement found among the next re-verified candidates is
added to the evidence, so both sides can be cited.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from services.contracts.evidence_id import evidence_id_for
from services.language.tokens import key_units
from services.retrieval import spans
from services.retrieval.caches import TextAnalyses
from services.retrieval.eligibility import ChunkRow, Verified, check_citation
from services.retrieval.facts import (
    Fact,
    aligned_normalize,
    conflicting,
    extract_facts,
    same_attribute,
)
from services.retrieval.moments import MOMENTS
from services.retrieval.ranking import Candidate
from services.retrieval.types import Conflict, ConflictValue, Evidence

_SENTENCE_END = re.compile(r"[。！？!?；;\n]|\.(?=\s|$)")


@dataclass(frozen=True)
class _Stated:
    fact: Fact
    evidence: Evidence


def find_conflicts(
    evidence: list[Evidence],
    lookup: Callable[[list[str]], dict[str, Verified]],
    *,
    relevant: frozenset[str],
    by_vector_only: frozenset[str],
    query_units: frozenset[str],
    candidates: list[Candidate],
    by_id: Mapping[str, ChunkRow],
    matched_text: Callable[[str], str],
    k: int,
    analyses: TextAnalyses | None = None,
) -> tuple[list[Conflict], list[Evidence]]:
    """`analyses` remembers each quote's facts with its chunk (they depend on the text alone)."""
    facts_of = _facts_reader(analyses if analyses is not None else TextAnalyses(0))
    stated = [
        s
        for e in evidence
        if e.knowledge_class == "fact" and e.evidence_id in relevant
        for s in facts_of(e)
        # A relevant SOP states many facts; only those about what was asked are compared.
        if e.evidence_id in by_vector_only or key_units(s.fact.attribute) & query_units
    ]
    stated = _closest(stated, query_units, by_vector_only)
    if not stated:
        return [], evidence
    # The other side of a conflict need not match the query's words (it may be written in
    # another language): stating the same attribute is what makes it part of the answer.
    buckets = {s.fact.bucket for s in stated}
    others = [
        s
        for e in evidence
        if e.knowledge_class == "fact" and e.evidence_id not in relevant
        for s in facts_of(e)
        if s.fact.bucket in buckets and any(_disagree(r, s) or _agree(r, s) for r in stated)
    ]
    by_bucket: dict[tuple[str, str], list[_Stated]] = {}
    for s in stated:
        by_bucket.setdefault(s.fact.bucket, []).append(s)
    chosen = {e.evidence_id for e in evidence}
    extra: list[Evidence] = []
    tails = {bucket[1] for bucket in by_bucket}
    # Only chunks whose text contains the ending of an attribute in question can state it; the
    # documents of those few are read from SQL, nothing else.
    hopeful = [
        by_id[c.chunk_id]
        for c in candidates
        if any(tail in matched_text(c.chunk_id) for tail in tails)
    ]
    current = lookup([chunk.document_id for chunk in hopeful])
    for chunk in hopeful:
        doc = current.get(chunk.document_id)
        if doc is None or doc.knowledge_class != "fact":
            continue
        eid = evidence_id_for(chunk.document_id, chunk.version, chunk.start, chunk.end)
        if eid in chosen:
            continue
        if check_citation(
            doc,
            version=chunk.version,
            start=chunk.start,
            end=chunk.end,
            expected_text=None,
            indexed_hash=chunk.indexed_hash,
        ):
            continue
        partner = Evidence(
            evidence_id=eid,
            document_id=doc.document_id,
            version=doc.version,
            chunk_id=chunk.chunk_id,
            knowledge_class=doc.knowledge_class,
            doc_type=doc.doc_type,
            title=doc.title,
            start=chunk.start,
            end=chunk.end,
            quote=doc.body[chunk.start : chunk.end],
            content_hash=doc.content_hash,
            customer_id=doc.customer_id,
            valid_from=doc.valid_from,
            valid_to=doc.valid_to,
        )
        disagreeing = [
            p
            for p in facts_of(partner)
            for s in by_bucket.get(p.fact.bucket, ())
            if _disagree(s, p)
        ]
        if disagreeing:
            partner = _narrow_to(partner, disagreeing[0].fact)
            if partner.evidence_id not in chosen:
                extra.append(partner)
                chosen.add(partner.evidence_id)
    stated += others
    stated += [s for e in extra for s in facts_of(e)]
    conflicts = _group(stated)
    if extra:
        evidence = make_room(evidence, extra, conflicts, k)
    return conflicts, evidence


def _closest(
    stated: list[_Stated], query_units: frozenset[str], by_vector_only: frozenset[str]
) -> list[_Stated]:
    """Of the facts whose attribute shares words with the question, those sharing the most:
    asked when the spring freeze starts (「春节封网从哪天开始」), a calendar's 「春节封网」 is what
    is asked, not its 「年末封网」, though both are freezes. Facts of evidence relevant only
    across scripts, whose words cannot be compared, all stay."""

    def shared(s: _Stated) -> int:
        return len(key_units(s.fact.attribute) & query_units)

    compared = [s for s in stated if s.evidence.evidence_id not in by_vector_only]
    best = max(map(shared, compared), default=0)
    return [s for s in stated if s.evidence.evidence_id in by_vector_only or shared(s) == best]


def _narrow_to(evidence: Evidence, fact: Fact) -> Evidence:
    """The unit of a partner chunk that states the disagreeing fact: cited like any span."""
    _, index = aligned_normalize(evidence.quote)
    at = index[fact.start] if fact.start < len(index) else 0
    for start, end in spans.units(evidence.quote):
        if start <= at < end:
            return evidence.model_copy(
                update={
                    "evidence_id": evidence_id_for(
                        evidence.document_id,
                        evidence.version,
                        evidence.start + start,
                        evidence.start + end,
                    ),
                    "start": evidence.start + start,
                    "end": evidence.start + end,
                    "quote": evidence.quote[start:end],
                }
            )
    return evidence


def _facts_reader(analyses: TextAnalyses) -> Callable[[Evidence], list[_Stated]]:
    """The facts an evidence's quote states, remembered in `analyses` under its chunk (so a
    purge of the chunk forgets the quote too, and the ceiling counts them)."""

    def facts_of(evidence: Evidence) -> list[_Stated]:
        found = analyses.get(evidence.chunk_id, "facts", evidence.quote, _extract)
        return [_Stated(fact=f, evidence=evidence) for f in found]

    return facts_of


def _extract(quote: str) -> tuple[Fact, ...]:
    return tuple(extract_facts(quote))


def _disagree(a: _Stated, b: _Stated) -> bool:
    return (
        a.evidence.document_id != b.evidence.document_id
        and a.evidence.customer_id == b.evidence.customer_id
        and conflicting(a.fact, b.fact)
    )


def _group(stated: list[_Stated]) -> list[Conflict]:
    """One conflict per attribute: every document's value side by side."""
    buckets: dict[tuple[str, str], list[_Stated]] = {}
    for s in stated:
        buckets.setdefault(s.fact.bucket, []).append(s)
    conflicts: list[Conflict] = []
    for members in buckets.values():
        used: set[int] = set()
        for i, first in enumerate(members):
            if i in used:
                continue
            side = [first]
            for j in range(i + 1, len(members)):
                if j not in used and any(
                    _disagree(s, members[j]) or _agree(s, members[j]) for s in side
                ):
                    side.append(members[j])
            if not any(_disagree(a, b) for a in side for b in side):
                continue
            used.update(members.index(s) for s in side)
            conflicts.append(_conflict(side))
    return conflicts


def _conflict(side: list[_Stated]) -> Conflict:
    values: dict[tuple[str, str], ConflictValue] = {}
    for s in side:
        values.setdefault(
            (s.evidence.document_id, s.fact.value),
            ConflictValue(
                # a date or a time of day shows as itself (12-24~01-03), without its measure
                value=s.fact.value if s.fact.unit in MOMENTS else f"{s.fact.value} {s.fact.unit}",
                evidence_id=s.evidence.evidence_id,
                document_id=s.evidence.document_id,
                version=s.evidence.version,
                quote=_sentence(s.evidence.quote, s.fact),
            ),
        )
    attribute = min((s.fact.attribute for s in side), key=len)
    return Conflict(fact=attribute, unit=side[0].fact.unit, values=list(values.values()))


def _agree(a: _Stated, b: _Stated) -> bool:
    """Same attribute in another document of the same scope, same value: one side of a conflict."""
    return (
        a.evidence.document_id != b.evidence.document_id
        and a.evidence.customer_id == b.evidence.customer_id
        and a.fact.unit == b.fact.unit
        and a.fact.value == b.fact.value
        and same_attribute(a.fact, b.fact)
    )


def _sentence(quote: str, fact: Fact) -> str:
    """The sentence of the quote that states the fact (offsets mapped back from normalisation)."""
    _, index = aligned_normalize(quote)
    start = index[fact.start] if fact.start < len(index) else 0
    end = index[fact.end - 1] + 1 if 0 < fact.end <= len(index) else len(quote)
    left = 0
    for match in _SENTENCE_END.finditer(quote, 0, start):
        left = match.end()
    right_match = _SENTENCE_END.search(quote, end)
    right = right_match.end() if right_match else len(quote)
    return quote[left:right].strip()


def make_room(
    evidence: list[Evidence], extra: list[Evidence], conflicts: list[Conflict], k: int
) -> list[Evidence]:
    """Both sides of a conflict must be citable: partners replace the weakest other hits."""
    in_conflict = {v.evidence_id for c in conflicts for v in c.values}
    present = {e.evidence_id for e in evidence}
    wanted = [e for e in extra if e.evidence_id in in_conflict and e.evidence_id not in present]
    merged = list(evidence)
    for partner in wanted:
        if len(merged) < k:
            merged.append(partner)
            continue
        for i in range(len(merged) - 1, -1, -1):
            if merged[i].evidence_id not in in_conflict:
                merged[i] = partner
                break
    return [e.model_copy(update={"rank": i + 1}) for i, e in enumerate(merged)]
