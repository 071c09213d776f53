"""Conflicts read through the question: what each authoritative document answers, compared.

The attribute rule of facts.py finds a conflict when two documents phrase the same attribute
the same way (「硬陽極膜厚為 25 µm」 / 「硬陽極膜厚為 35 µm」). Documents written by different
people rarely do: "The VGM must reach the carrier no later than 24 hours before the CY cut-off"
and "VGM to carrier | 48 hrs before CY cut-off" state one deadline in two ways. Here the question
itself is the attribute:

* each relevant `fact` document's **answer** is the unit (sentence, clause, list item) of its
  retrieved sections that states a quantity and covers the question best — read with its heading
  and the document's title, weighted as answerability weighs the question's words;
* two documents **disagree** when, in the same customer scope, their answers state quantities of
  the same measure (durations in one scale, shares, lengths, one currency, ...) and no value in
  common, each answer names every identifier of the question, and both contain the question's
  most distinctive word found in either of them (a titanium lead time does not answer a
  question about the standard lead time, though both are lead times);
* when the question asks for a type of answer (a duration, an amount), only quantities of that
  type are compared.
History never conflicts (it is a past decision), and similarity plays no part.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from services.contracts.evidence_id import evidence_id_for
from services.language import answer_types
from services.language import tokens as text_analysis
from services.retrieval import facts, spans
from services.retrieval.answerability import QueryProfile, present
from services.retrieval.eligibility import ChunkRow, Verified
from services.retrieval.types import Conflict, ConflictValue, Evidence

# Quantities are compared in one scale per measure: days for durations (a working day is its
# own measure: it is not a fixed number of calendar days).
_MEASURE: dict[str, tuple[str, float]] = {
    "day": ("duration", 1.0),
    "hour": ("duration", 1 / 24),
    "minute": ("duration", 1 / 1440),
    "week": ("duration", 7.0),
    "month": ("duration", 30.0),
    "year": ("duration", 365.0),
    "working_day": ("working_days", 1.0),
    "%": ("share", 1.0),
    "µm": ("length", 0.001),
    "mm": ("length", 1.0),
    "cm": ("length", 10.0),
    "m": ("length", 1000.0),
    "kg": ("mass", 1000.0),
    "g": ("mass", 1.0),
    "t": ("mass", 1_000_000.0),
}
# Which measures answer which asked type (services.language.answer_types).
_ANSWERS: dict[str, frozenset[str]] = {
    answer_types.DURATION: frozenset({"duration", "working_days"}),
    answer_types.PERCENTAGE: frozenset({"share"}),
    answer_types.MONEY: frozenset({"money", "share"}),  # surcharges are often a share
    answer_types.COUNT: frozenset({"count"}),
}
_HEADING_MAX_CHARS = 60
_SENTENCE_PUNCTUATION = re.compile(r"[。！？!?；;.,，]$")


@dataclass(frozen=True)
class Quantity:
    measure: str
    amount: float  # in the measure's scale
    shown: str  # as written, normalised ("48 hour")


@dataclass(frozen=True)
class Answer:
    """A document's best-covering statement of a quantity, and what it covers."""

    evidence: Evidence  # the unit itself, citable
    context: str  # normalised: title + heading + unit
    coverage: float
    quantities: tuple[Quantity, ...]


def question_conflicts(
    profile: QueryProfile,
    evidence: list[Evidence],
    *,
    relevant: frozenset[str],
    lookup: Callable[[list[str]], dict[str, Verified]],
    chunk_of: Callable[[str], ChunkRow | None],
) -> list[Conflict]:
    """Conflicts between the answers of the relevant authoritative documents in `evidence`."""
    measures = _asked_measures(profile)
    by_document: dict[str, list[Evidence]] = {}
    for item in evidence:
        if item.knowledge_class == "fact" and item.evidence_id in relevant:
            by_document.setdefault(item.document_id, []).append(item)
    if len(by_document) < 2:
        return []
    current = lookup(list(by_document))
    answers = {
        document_id: answer
        for document_id, items in by_document.items()
        if (doc := current.get(document_id)) is not None
        and (answer := _answer(profile, doc, items, chunk_of, measures)) is not None
    }
    return _disagreements(profile, answers)


def _asked_measures(profile: QueryProfile) -> frozenset[str] | None:
    if not profile.asked:
        return None
    wanted = frozenset().union(*(_ANSWERS.get(kind, frozenset()) for kind in profile.asked))
    return wanted or None


def _answer(
    profile: QueryProfile,
    doc: Verified,
    items: list[Evidence],
    chunk_of: Callable[[str], ChunkRow | None],
    measures: frozenset[str] | None,
) -> Answer | None:
    best: Answer | None = None
    for start, end in _sections(items, chunk_of):
        parts = spans.units(doc.body[start:end], offset=start)
        heading = ""
        for s, e in parts:
            text = doc.body[s:e]
            quantities = tuple(
                q for q in quantities_in(text) if measures is None or q.measure in measures
            )
            if not quantities:
                if _is_heading(doc.body, e, text):
                    heading = text
                continue
            context = text_analysis.normalize(f"{doc.title}\n{heading}\n{text}")
            coverage = profile.coverage(context)
            if best is None or coverage > best.coverage:
                best = Answer(
                    evidence=_unit_evidence(doc, items[0], s, e),
                    context=context,
                    coverage=coverage,
                    quantities=quantities,
                )
    return best


def _sections(
    items: list[Evidence], chunk_of: Callable[[str], ChunkRow | None]
) -> list[tuple[int, int]]:
    """The chunks the document's spans were cut from, each once."""
    found: list[tuple[int, int]] = []
    for item in items:
        chunk = chunk_of(item.chunk_id)
        bounds = (chunk.start, chunk.end) if chunk is not None else (item.start, item.end)
        if bounds not in found:
            found.append(bounds)
    return found


def _is_heading(body: str, end: int, text: str) -> bool:
    """A short line of its own without sentence punctuation ("3. Verified Gross Mass (VGM)")."""
    line_ends = end >= len(body) or body[end : end + 1] in ("\n", "\r")
    return (
        line_ends
        and len(text) <= _HEADING_MAX_CHARS
        and not _SENTENCE_PUNCTUATION.search(text.strip())
    )


def _unit_evidence(doc: Verified, like: Evidence, start: int, end: int) -> Evidence:
    return like.model_copy(
        update={
            "evidence_id": evidence_id_for(doc.document_id, doc.version, start, end),
            "start": start,
            "end": end,
            "quote": doc.body[start:end],
        }
    )


def _disagreements(profile: QueryProfile, answers: dict[str, Answer]) -> list[Conflict]:
    found: list[Conflict] = []
    documents = sorted(answers)
    for i, first in enumerate(documents):
        for second in documents[i + 1 :]:
            a, b = answers[first], answers[second]
            if a.evidence.customer_id != b.evidence.customer_id:
                continue
            if not (_names_identifiers(profile, a) and _names_identifiers(profile, b)):
                continue
            anchor = _anchor(profile, a, b)
            if anchor is None:
                continue
            measure = _disagreeing_measure(a.quantities, b.quantities)
            if measure is None:
                continue
            found.append(_conflict(profile.display(anchor), measure, a, b))
    return _merged(found)


def _names_identifiers(profile: QueryProfile, answer: Answer) -> bool:
    return all(text_analysis.contains_identifier(answer.context, i) for i in profile.identifiers)


def _anchor(profile: QueryProfile, a: Answer, b: Answer) -> str | None:
    """The question's heaviest word found in either answer; it must be in both."""
    found_a, found_b = text_analysis.TextUnits.of(a.context), text_analysis.TextUnits.of(b.context)
    in_either = [
        unit
        for unit in profile.weights
        if present(unit, a.context, found_a) or present(unit, b.context, found_b)
    ]
    if not in_either:
        return None
    heaviest = max(in_either, key=lambda unit: (profile.weights[unit], unit))
    both = present(heaviest, a.context, found_a) and present(heaviest, b.context, found_b)
    return heaviest if both else None


def _disagreeing_measure(first: Iterable[Quantity], second: Iterable[Quantity]) -> str | None:
    """A measure both state with no amount in common."""
    amounts_a: dict[str, set[float]] = {}
    amounts_b: dict[str, set[float]] = {}
    for q in first:
        amounts_a.setdefault(q.measure, set()).add(q.amount)
    for q in second:
        amounts_b.setdefault(q.measure, set()).add(q.amount)
    for measure in sorted(set(amounts_a) & set(amounts_b)):
        if not amounts_a[measure] & amounts_b[measure]:
            return measure
    return None


def _conflict(fact: str, measure: str, *answers: Answer) -> Conflict:
    return Conflict(
        fact=fact,
        unit=measure,
        values=[
            ConflictValue(
                value=", ".join(q.shown for q in answer.quantities),
                evidence_id=answer.evidence.evidence_id,
                document_id=answer.evidence.document_id,
                version=answer.evidence.version,
                quote=answer.evidence.quote,
            )
            for answer in answers
        ],
    )


def _merged(conflicts: list[Conflict]) -> list[Conflict]:
    """Pairs about the same fact become one conflict with every document's value."""
    merged: dict[tuple[str, str | None], Conflict] = {}
    for conflict in conflicts:
        key = (conflict.fact, conflict.unit)
        if key not in merged:
            merged[key] = conflict
            continue
        known = {v.evidence_id for v in merged[key].values}
        values = [*merged[key].values, *(v for v in conflict.values if v.evidence_id not in known)]
        merged[key] = merged[key].model_copy(update={"values": values})
    return list(merged.values())


def quantities_in(text: str) -> list[Quantity]:
    """Every quantity with a unit in `text` (dates and the digits of identifiers are not)."""
    found = []
    for value, unit in facts.quantities(text):
        amount = _amount(value)
        if amount is None:
            continue
        if unit in _MEASURE:
            measure, scale = _MEASURE[unit]
        elif unit in facts.CURRENCY_UNITS:
            measure, scale = f"money:{unit}", 1.0
        elif unit == "pcs":
            measure, scale = "count", 1.0
        else:
            measure, scale = unit, 1.0
        found.append(Quantity(measure, round(amount * scale, 6), f"{value} {unit}"))
    return found


def _amount(value: str) -> float | None:
    """A single amount; a range or a tolerance (8-12, ±0.01) is not compared."""
    if "-" in value.lstrip("-") or value[:1] in "±":
        return None
    try:
        return float(value.lstrip("<>≤≥"))
    except ValueError:
        return None
