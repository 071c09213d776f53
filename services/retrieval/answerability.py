"""When retrieved evidence answers a query: one scoring rule over (query, span) features.

Nothing here depends on a corpus's wording. The features of a query against one span (with its
document's title) are:

* **term coverage weighted by IDF over the principal's eligible set**: the query's content units
  (CJK bigrams without function characters, stemmed words, identifiers) each weigh their
  inverse document frequency among the chunks the principal may read now, so a word every
  document uses weighs little and the name of the thing asked about weighs most. A unit no
  eligible chunk contains keeps the highest weight (nothing the principal may read can answer
  it). Chinese has no spaces, so a CJK bigram whose two characters both belong to other bigrams
  of the query straddles two words (面處 in 表面處理) and is left out;
* **the most distinctive unit must be covered**: the heaviest unit of the query (電鍍 in
  「電鍍外包前置時間」) has to be in the span or its title;
* **identifiers** (part numbers, specs) must all be there;
* **the answer type**: a question that asks for a date (calendar, relative or weekday, Chinese
  or English), a duration, an amount of money, a count, a percentage or a person needs a span
  that states one (recognisers in services.language.answer_types);
* **across scripts**, where words cannot be compared, the embedding's rank: the span's chunk must
  stand out among everything the principal may read (two standard deviations).

A span answers when it has every identifier, the distinctive unit and the asked answer type, and
its weighted coverage reaches COVERAGE_THRESHOLD, fitted on one public dataset and validated on
another (README "Retrieval"). Similarity is never a confidence: it only ranks, and decides alone
only across scripts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from services.language import answer_types
from services.language import tokens as text_analysis

# Share of the query's IDF weight a span (with its title) must cover. Fitted on CMRC 2018 dev
# (answerable vs ACL-hidden answers), validated on the other datasets (see README).
COVERAGE_THRESHOLD = 0.6
# Across scripts only the embedding can compare: its pick must be an outlier among everything
# the principal may read (two standard deviations, the conventional cut-off).
OUTLIER_Z = 2.0
# Units weighing at least this share of the heaviest one are the query's distinctive terms.
DISTINCTIVE_SHARE = 0.8


@dataclass(frozen=True)
class QueryProfile:
    """The query's content units with their weights, and what the question asks for."""

    query: str
    weights: dict[str, float]  # unit → IDF weight over the eligible set
    identifiers: tuple[str, ...]
    distinctive: str | None  # the heaviest unit
    asked: tuple[str, ...]  # answer types the question asks for
    script: str  # "cjk" | "latin"

    @property
    def total(self) -> float:
        return sum(self.weights.values())

    def distinctive_units(self) -> frozenset[str]:
        """The query's heaviest units (within DISTINCTIVE_SHARE of the heaviest): what facts
        must be about to be compared for a conflict."""
        if not self.weights:
            return frozenset()
        top = max(self.weights.values())
        return frozenset(u for u, w in self.weights.items() if w >= DISTINCTIVE_SHARE * top)

    def display(self, unit: str) -> str:
        """A unit as the question wrote it (units are folded to Simplified, lower case)."""
        folded = text_analysis.normalize(self.query)
        at = folded.find(unit)
        if at >= 0 and len(folded) == len(self.query):
            return self.query[at : at + len(unit)]
        return unit.upper() if unit in self.identifiers else unit


def profile(query: str, document_frequency: Callable[[str], int], size: int) -> QueryProfile:
    """Weigh the query's units by IDF among `size` eligible chunks."""
    units = sorted(text_analysis.key_units(query))
    df = {unit: document_frequency(unit) for unit in units}
    ceiling = _idf(0, size)
    weights: dict[str, float] = {}
    for unit in units:
        if _straddles(unit, units):
            continue  # 「鍍外」 in 「電鍍外包」: both characters belong to the words around it
        weights[unit] = _idf(df[unit], size) if df[unit] else ceiling
    identifiers = tuple(text_analysis.identifiers(query))
    distinctive = max(weights, key=lambda u: (weights[u], u)) if weights else None
    return QueryProfile(
        query=query,
        weights=weights,
        identifiers=identifiers,
        distinctive=distinctive,
        asked=answer_types.asked(query),
        script=text_analysis.script_of(query),
    )


@dataclass(frozen=True)
class SpanVerdict:
    answers: bool
    coverage: float
    missing: tuple[str, ...]  # what the span lacks, as units or "a stated <type>"
    by_vector: bool = False


def judge(query: QueryProfile, span: str, title: str, *, vector_z: float) -> SpanVerdict:
    """Whether one span (read with its document's title) answers the query."""
    text = text_analysis.normalize(f"{title}\n{span}")
    found = text_analysis.TextUnits.of(text)
    missing_ids = tuple(
        i.upper() for i in query.identifiers if not text_analysis.contains_identifier(text, i)
    )
    comparable = {u: w for u, w in query.weights.items() if _comparable(u, span)}
    if not comparable or sum(comparable.values()) < 0.5 * query.total:
        # Another script: words cannot be compared; identifiers and the embedding can.
        types_ok = all(answer_types.states(t, span) for t in query.asked)
        answers = not missing_ids and types_ok and vector_z >= OUTLIER_Z
        return SpanVerdict(answers, 0.0, missing_ids, by_vector=answers)
    covered = sum(w for u, w in comparable.items() if _present(u, text, found))
    coverage = covered / sum(comparable.values())
    missing = list(missing_ids)
    distinctive = query.distinctive
    if distinctive in comparable and not _present(distinctive, text, found):
        missing.append(distinctive)
    missing += [f"a stated {t}" for t in query.asked if not answer_types.states(t, span)]
    if coverage < COVERAGE_THRESHOLD:
        missing += [u for u in comparable if not _present(u, text, found)]
    return SpanVerdict(not missing, round(coverage, 4), tuple(dict.fromkeys(missing)))


def span_score(query: QueryProfile) -> Callable[[str], float]:
    """Ranks candidate spans of one chunk: weighted coverage, plus the asked answer types."""

    def score(text: str) -> float:
        norm = text_analysis.normalize(text)
        found = text_analysis.TextUnits.of(norm)
        total = query.total or 1.0
        covered = sum(w for u, w in query.weights.items() if _present(u, norm, found)) / total
        typed = sum(answer_types.states(t, text) for t in query.asked)
        # Shorter is better among equals: a span grows only when it gains something.
        return covered + typed - len(text) / 100_000

    return score


def _idf(df: int, size: int) -> float:
    return math.log(1 + (size - df + 0.5) / (df + 0.5))


def _straddles(unit: str, units: list[str]) -> bool:
    if len(unit) != 2 or not all(_CJK.fullmatch(ch) for ch in unit):
        return False
    others = [u for u in units if u != unit and len(u) == 2 and _CJK.match(u)]
    return all(any(ch in other for other in others) for ch in unit)


def _present(unit: str, text: str, found: text_analysis.TextUnits) -> bool:
    if text_analysis.identifiers_in(unit) == [unit]:
        return text_analysis.contains_identifier(text, unit)
    return unit in found


def _comparable(unit: str, span: str) -> bool:
    """Identifiers compare across languages; words only within their own script."""
    if text_analysis.identifiers_in(unit) == [unit]:
        return True
    unit_script = "cjk" if _CJK.search(unit) else "latin"
    return unit_script == text_analysis.script_of(span) or _mixed(span)


def _mixed(span: str) -> bool:
    """A span carrying enough of both scripts compares words of either."""
    cjk = len(_CJK.findall(span))
    latin = len(re.findall(r"[A-Za-z]", span))
    return cjk >= 4 and latin >= 8


_CJK = re.compile(f"[{text_analysis.CJK}]")
