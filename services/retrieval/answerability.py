"""The query's profile (IDF weights, its most distinctive unit, the answer types it asks for)
and span scoring, used by retrieval for every query; and `judge`, a single scoring rule over
(query, span) features that was measured against the deciding rule (services.retrieval.relevance)
on CMRC 2018, the demo, holdout and blind sets and did not beat it there (README "Retrieval"), so
relevance decides the status and `judge` is kept, with its tests, as the measured alternative.

Nothing here depends on a corpus's wording. The features of a query against one span (with its
document's title) are:

* **term coverage weighted by IDF over the principal's eligible set**: the query's content units
  (identifiers, stemmed English words — a hyphenated word with a function word in it whole,
  "cooling-off", "sign-off", "use-by", found hyphenated, solid or its parts apart:
  `text_analysis.compound_in` —, Chinese words from a general-purpose segmenter) each weigh
  their inverse document frequency among the chunks the principal may read now, so a word every
  document uses weighs little and the name of the thing asked about weighs most. A unit no
  eligible chunk contains keeps the highest weight;
* **the most distinctive unit must be covered**: the heaviest unit of the query that the
  principal's knowledge uses at all (電鍍 in 「電鍍外包前置時間」), among those of the sentences
  that ask when the query also tells, has to be in the span or its title;
* **identifiers** (part numbers, specs) must all be there;
* **the answer type**: a question that asks for a date (calendar, relative or weekday, Chinese
  or English), a duration, how often, an amount of money, a count, a percentage, a person or a
  temperature needs a span that states one (recognisers in services.language.answer_types);
* **across scripts**, where words cannot be compared, the embedding's rank: the span's chunk must
  be the embedding's first choice among everything the principal may read, or stand out from it
  by two standard deviations.

A span answers when it has every identifier, the distinctive unit and the asked answer type, and
its weighted coverage reaches COVERAGE_THRESHOLD, fitted on one public dataset and validated on
another (README "Retrieval"). Similarity is never a confidence: it only ranks, and decides alone
only across scripts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass

from services.language import answer_types, bilingual, frequency, sentences
from services.language import tokens as text_analysis

# Share of the query's IDF weight a span (with its title) must cover. Fitted on CMRC 2018 dev
# (answerable vs ACL-hidden answers), validated on the other datasets (see README).
COVERAGE_THRESHOLD = 0.6
# Across scripts only the embedding can compare: its pick must be an outlier among everything
# the principal may read (two standard deviations, the conventional cut-off).
OUTLIER_Z = 2.0


@dataclass(frozen=True)
class QueryProfile:
    """The query's content units with their weights, and what the question asks for."""

    query: str
    weights: dict[str, float]  # unit → IDF weight over the eligible set
    identifiers: tuple[str, ...]
    distinctive: str | None  # the heaviest unit
    asked: tuple[str, ...]  # answer types the question asks for
    script: str  # "cjk" | "latin"
    unseen: frozenset[str] = frozenset()  # units no eligible chunk contains
    # unseen units the dictionary translates, no translation of which an eligible chunk contains
    untranslated: frozenset[str] = frozenset()
    numbers: tuple[str, ...] = ()  # the numbers it writes (question_numbers)

    @property
    def total(self) -> float:
        return sum(self.weights.values())

    def coverage(self, normalized_text: str) -> float:
        """Share of the query's weight a normalised text covers (every unit compared)."""
        return self.coverage_of(text_analysis.TextUnits.of(normalized_text))

    def coverage_of(self, found: text_analysis.TextUnits) -> float:
        """`coverage` of the text `found` holds the units of."""
        if not self.weights:
            return 0.0
        covered = sum(w for u, w in self.weights.items() if present(u, found.text, found))
        return covered / (self.total or 1.0)

    def display(self, unit: str) -> str:
        """A unit as the question wrote it (units are folded to Simplified, lower case)."""
        folded = text_analysis.normalize(self.query)
        at = folded.find(unit)
        if at >= 0 and len(folded) == len(self.query):
            return self.query[at : at + len(unit)]
        return unit.upper() if unit in self.identifiers else unit


def profile(query: str, document_frequency: Callable[[str], int], size: int) -> QueryProfile:
    """Weigh the query's content units by IDF among `size` eligible chunks."""
    units: list[str] = []
    df: dict[str, int] = {}
    for unit in query_units(query):
        count = document_frequency(unit)
        parts = [unit] if count or not _CJK.match(unit) or len(unit) < 3 else []
        if not parts:
            # A longer Chinese word the knowledge never writes whole (保固期 where it says
            # 保固): its parts that do occur stand for it — the words the segmenter's
            # dictionary knows inside it (香港 and 艺人 of 香港艺人, not 港艺), else its
            # two-character runs.
            parts = [p for p in text_analysis.words_inside(unit) if document_frequency(p)]
            if not parts:
                parts = [unit[i : i + 2] for i in range(len(unit) - 1)]
                parts = [p for p in parts if document_frequency(p)] or [unit]
        for part in parts:
            if part not in df:
                df[part] = count if part == unit else document_frequency(part)
                units.append(part)
    # A unit no eligible chunk contains weighs the most (IDF at df 0): nothing the principal
    # may read says it, so the rest of the question must be covered all the better.
    weights = {unit: _idf(df[unit], size) for unit in units}
    known = [u for u in units if df[u] > 0]
    # Only what the principal's knowledge uses can be distinctive, and rarity there counts as
    # much as the word is specific in its language: a procedure rarely writes "inside" or
    # "put" because of its register, not because they are what the question is about (電鍍 is
    # rare in both). And only a word of what the question asks: 「中環診所星期六幾點收工呀？
    # 有病人問緊」 asks about the clinic's hours, whoever is asking (relevance reads the words
    # of the sentences that ask, too).
    candidates = _asked_units(query, known)
    distinctive = (
        max(candidates, key=lambda u: (weights[u] * frequency.informativeness(u), u))
        if candidates
        else None
    )
    return QueryProfile(
        query=query,
        weights=weights,
        identifiers=tuple(text_analysis.identifiers(query)),
        distinctive=distinctive,
        asked=answer_types.asked(query),
        script=text_analysis.script_of(query),
        unseen=frozenset(u for u in units if df[u] == 0),
        untranslated=frozenset(
            u for u in units if df[u] == 0 and _said_nowhere(u, document_frequency)
        ),
        numbers=question_numbers(query),
    )


def _asked_units(query: str, units: list[str]) -> list[str]:
    """Those of a query's units the sentences that ask say, or its identifiers, wherever they
    stand (`sentences.asking_and_told`); all of them when it only asks, or when the asking
    sentences say none."""
    asking, told = sentences.asking_and_told(query)
    if not told:
        return units
    said = {*query_units(asking), *text_analysis.identifiers(query)}
    folded = text_analysis.normalize(asking)
    asked = [u for u in units if u in said or (_CJK.match(u) and u in folded)]
    return asked or units


def _said_nowhere(unit: str, document_frequency: Callable[[str], int]) -> bool:
    """Whether a word rare in its language (a term: kosher, 洁食), which no chunk writes, is
    one the dictionary translates and no chunk writes any of its translations either: the
    knowledge does not mention what it names in either language. An everyday word has senses
    the dictionary does not list ("PM" for maintenance, not 午时), so it is never taken for
    absent."""
    if frequency.zipf(unit) >= frequency.NAME_ZIPF:
        return False
    translations = bilingual.meanings(unit) if _CJK.match(unit) else bilingual.stem_renderings(unit)
    return bool(translations) and not any(document_frequency(t) for t in translations)


def query_units(query: str) -> list[str]:
    """The query's content units: identifiers, stemmed content words, Chinese words from a
    general-purpose segmenter (content parts of speech only, two characters or more), and the
    words it does not know (names, terms), which it leaves as single characters."""
    found = list(text_analysis.identifiers(query))
    # an identifier is one unit, not the words inside it
    norm = _without(found, text_analysis.without_quantities(text_analysis.normalize(query)))
    # a hyphenated word with a function word in it is one unit (`text_analysis.compound_in`)
    compounds = text_analysis.function_compounds(norm)
    norm = _without(compounds, norm)
    words = [*text_analysis.content_words(norm, times=True), *frequency.unknown_words(norm)]
    found += [w for w in dict.fromkeys(text_analysis.unglued(words, norm)) if w not in found]
    return found + [c for c in compounds if c not in found]


def document_frequency(unit: str, texts: Sequence[str], units: Sequence[Container[str]]) -> int:
    """In how many of the chunks (normalised texts with their units) `unit` is present."""
    return sum(present(unit, text, found) for text, found in zip(texts, units, strict=True))


@dataclass(frozen=True)
class SpanVerdict:
    answers: bool
    coverage: float
    missing: tuple[str, ...]  # what the span lacks, as units or "a stated <type>"
    by_vector: bool = False


def judge(
    query: QueryProfile,
    span: str,
    title: str,
    *,
    section: str,
    vector_z: float,
    vector_rank: int | None = None,
) -> SpanVerdict:
    """Whether one span answers the query: the words are read in the section the span was cut
    from (with the document's title: a question names its context, which a one-sentence span
    need not repeat); the answer type must be stated in the span itself."""
    text = text_analysis.normalize(f"{title}\n{section}")
    found = text_analysis.TextUnits.of(text)
    missing_ids = tuple(
        i.upper() for i in query.identifiers if not text_analysis.contains_identifier(text, i)
    )
    compared = {u: w for u, w in query.weights.items() if comparable(u, section)}
    if not compared or sum(compared.values()) < 0.5 * query.total:
        # Another script: words cannot be compared; identifiers and the embedding can.
        types_ok = all(answer_types.states(t, span) for t in query.asked)
        # The embedding's own first choice, or an outlier among everything readable.
        chosen = vector_rank == 1 or vector_z >= OUTLIER_Z
        answers = not missing_ids and types_ok and chosen
        return SpanVerdict(answers, 0.0, missing_ids, by_vector=answers)
    covered = sum(w for u, w in compared.items() if present(u, text, found))
    coverage = covered / sum(compared.values())
    missing = list(missing_ids)
    distinctive = query.distinctive
    if distinctive in compared and not present(distinctive, text, found):
        missing.append(distinctive)
    missing += [f"a stated {t}" for t in query.asked if not answer_types.states(t, span)]
    if coverage < COVERAGE_THRESHOLD:
        missing += [u for u in compared if not present(u, text, found)]
    return SpanVerdict(not missing, round(coverage, 4), tuple(dict.fromkeys(missing)))


def span_units(text: str) -> text_analysis.TextUnits:
    """A span's units, over its normalised text (what `span_score` compares the query with)."""
    return text_analysis.TextUnits.of(text_analysis.normalize(text))


def span_score(
    query: QueryProfile,
    units_of: Callable[[str], text_analysis.TextUnits] = span_units,
) -> Callable[[str], float]:
    """Ranks candidate spans of one chunk: weighted coverage, plus the asked answer types.
    `units_of` is `span_units`, or a cache of it (a span's text is the same whatever the query)."""

    # The question's own numbers (「1968年徐家捐了多少件」) are no topic words, but a unit that
    # writes one is about what the question names: each weighs as its heaviest word.
    numbers = query.numbers
    heaviest = max(query.weights.values(), default=1.0)
    total = (query.total or (0.0 if numbers else 1.0)) + heaviest * len(numbers)

    def score(text: str) -> float:
        found = units_of(text)
        norm = found.text
        covered = sum(w for u, w in query.weights.items() if present(u, norm, found))
        if numbers:
            written = set(_NUMBER.findall(norm.replace(",", "")))
            covered += heaviest * sum(n in written for n in numbers)
        typed = sum(answer_types.strength(t, text) for t in query.asked)
        return covered / total + typed

    return score


# A number as written, without its thousands separators: 1968, 2.5, 1200.
_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")


def question_numbers(query: str) -> tuple[str, ...]:
    """The numbers a question writes outside its identifiers (a year, an amount it names)."""
    norm = _without(text_analysis.identifiers(query), text_analysis.normalize(query))
    return tuple(dict.fromkeys(_NUMBER.findall(norm.replace(",", ""))))


def _without(identifiers: Sequence[str], normalized: str) -> str:
    """A normalised text with the given identifiers blanked out as whole tokens."""
    for ident in identifiers:
        normalized = re.sub(rf"(?<![a-z0-9]){re.escape(ident)}(?![a-z0-9])", " ", normalized)
    return normalized


def _idf(df: int, size: int) -> float:
    return math.log(1 + (size - df + 0.5) / (df + 0.5))


def present(unit: str, text: str, found: Container[str]) -> bool:
    """Whether a query unit occurs in a normalised text (with its TextUnits)."""
    if _CJK.match(unit):
        return unit in text  # a Chinese word is present where its characters stand together
    if text_analysis.identifiers_in(unit) == [unit]:
        return text_analysis.contains_identifier(text, unit)
    if text_analysis.is_compound(unit):
        return text_analysis.compound_in(unit, text, found)
    return unit in found


def comparable(unit: str, section: str) -> bool:
    """Identifiers compare across languages; words only where the section writes that
    language (a Chinese SOP naming SUS304 and CNC does not write English)."""
    if text_analysis.identifiers_in(unit) == [unit]:
        return True
    if _CJK.search(unit):
        return len(_CJK.findall(section)) >= MIN_SCRIPT_CHARS
    words = [w for w in _LATIN_WORD.findall(section) if not any(c.isdigit() for c in w)]
    return len(words) >= MIN_LATIN_WORDS


_CJK = re.compile(f"[{text_analysis.CJK}]")
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9-])[A-Za-z]{3,}(?![A-Za-z0-9-])")
# How much of a language a section must write for words of that language to be compared.
MIN_SCRIPT_CHARS = 10
MIN_LATIN_WORDS = 4
