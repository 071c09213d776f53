"""Conflicts read through the question: what each authoritative document answers, compared.

The attribute rule of facts.py finds a conflict when two documents phrase the same attribute
the same way (「硬陽極膜厚為 25 µm」 / 「硬陽極膜厚為 35 µm」). Documents written by different
people rarely do: "The VGM must reach the carrier no later than 24 hours before the CY cut-off"
and "VGM to carrier | 48 hrs before CY cut-off" state one deadline in two ways. Here the question
itself is the attribute:

* each relevant `fact` document's **answer** is the unit (sentence, clause, list item) of its
  retrieved sections that states a quantity and covers the question best — read with its heading
  and the document's title, weighted as answerability weighs the question's words. A section
  that cuts a table takes the whole table (a chunk may end after a table's first row), and a
  line or row about other members of a numbered series than the one the question names ("L1
  Bakery" for Line 4; relevance's rule 5) is not an answer. Between units that cover the
  question equally (its words are often in the title, over every unit), the one whose own
  clause covers more, then the one the retrieval's embedding finds closest to the question
  (`_chosen`). Where a statement of no quantity in another section (numbered clause, heading or
  paragraph) covers the question better, that is the document's answer and it has none to
  compare: asked for the PPAP submission level ("3.1 … submission Level 3"), an agreement's
  record retention (5.2, 15 years) answers another question;
* what a quantity is **said of** (its clause before it and its line's label, without what
  brackets hold: "Metal detector (CEIA THS)") must be mostly what the question says (a Chinese
  word of which the question says half, as relevance finds a term: 差旅費 for 旅費; a word of
  an answer in the other script, in a translation the general dictionary gives: "detector"
  for 探测器 — and the question's words are found in such an answer so too: `_written`); when
  the question asks a kind of amount, a word the other answer's quantity is said of too counts
  as said (「每箱毛重」 beside "gross weight per carton": a qualifier both state tells neither
  apart; `Answer.said_of_beside`);
* two documents **disagree** when, in the same customer scope, their answers state quantities of
  the same measure (durations in one scale, shares, lengths, one currency, ...) and no value in
  common, each answer names every identifier of the question, in its unit or the line the unit
  stands on (「M6×30 十字沉頭機械螺絲 黑鋅，單價 NT$ 0.45／支」; save one that an answering
  document bears in its title: it names that document, 「PO-HY-2026-0415 有沒有另外規定？」),
  and both contain the question's most distinctive word found in either of them (a titanium
  lead time does not answer a question about the standard lead time, though both are lead
  times) — between answers of two scripts, the most distinctive that can be looked for in
  both: a word the general dictionary cannot render (「每箱」 beside "per carton") is not;
* when the question asks for a type of answer (a duration, an amount), only quantities of that
  type are compared;
* two answers that **restate one sentence with another amount** disagree even where the
  question names what they state otherwise (`_restated`: the same statement, a question word
  among what both say, the question's topic in both, half the question covered between them).
History never conflicts (it is a past decision), and similarity decides no conflict: it only
chooses a document's answer among equals.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from functools import cached_property

from services.contracts.evidence_id import evidence_id_for
from services.language import answer_types, bilingual, sentences, units
from services.language import tokens as text_analysis
from services.language.frequency import NAME_ZIPF, informativeness, zipf
from services.retrieval import facts, moments, relevance, spans
from services.retrieval.answerability import QueryProfile, comparable, present
from services.retrieval.caches import TextAnalyses
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
    # lengths in mm, volumes in ml, masses in g; what each measures is units.MEASURES
    **{
        unit: (units.MEASURES[unit], scale)
        for unit, scale in {
            "µm": 0.001,
            "mm": 1.0,
            "cm": 10.0,
            "m": 1000.0,
            "km": 1_000_000.0,
            "l": 1000.0,
            "ml": 1.0,
            "kg": 1000.0,
            "g": 1.0,
            "t": 1_000_000.0,
        }.items()
    },
}
# Which measures answer which asked type (services.language.answer_types).
_ANSWERS: dict[str, frozenset[str]] = {
    answer_types.DURATION: frozenset({"duration", "working_days"}),
    answer_types.FREQUENCY: frozenset({"duration"}),  # an interval: every 2 hours, 60 min
    answer_types.PERCENTAGE: frozenset({"share"}),
    answer_types.MONEY: frozenset({"money", "share"}),  # surcharges are often a share
    answer_types.COUNT: frozenset({"count"}),
    answer_types.TEMPERATURE: frozenset({"°C"}),
    answer_types.TIME: frozenset({moments.CLOCK}),
}
_HEADING_MAX_CHARS = 60
# A four-digit number of years in this range names a calendar year.
_CALENDAR_YEARS = (1000.0, 2999.0)
# At least this share of what each side's quantity is said of must be in the question.
SAID_OF_SHARE = 0.5
# Where one statement ends and the next begins inside a unit (not inside a parenthesis or a
# number such as 1,200).
_CLAUSE_BREAK = re.compile(r"(?<=[，；;、。！？!?])|(?<=,)(?!\d{3})|(?<=[^\s\d.]\.)\s+")
_FIRST_QUANTITY = re.compile(r"[$€£¥]?\s*\d")
# Section and list numbers ("4.2", "(三)", "b)", 「第四條」, "Article 7") say where a statement
# is, not what it is about.
_ENUMERATOR = re.compile(
    r"(?:^|\s)(?:\d+(?:\.\d+)*\.?|[(（]?[一二三四五六七八九十]+[、.)）]|[(（]?[a-z][.)）]|"
    r"第[一二三四五六七八九十百零〇\d]+[条章节款项篇]|(?:article|section|clause)\s+\d+(?:\.\d+)*)"
    r"(?=\s|$)"
)
_LABEL = re.compile(r"^\s*([^|:：]{2,60}?)\s*(?:\||:|：|\.{3,}|…+)")
_SENTENCE_PUNCTUATION = re.compile(r"[。！？!?；;.,，]$")
_ROW_SEPARATOR = re.compile(r"\.{3,}|…+|\|")


@dataclass(frozen=True)
class Quantity:
    measure: str
    amount: float  # in the measure's scale
    shown: str  # as written, normalised ("48 hour")


@dataclass(frozen=True)
class Answer:
    """A document's best-covering statement of a quantity, and what it covers. What only a
    pair of disagreeing answers needs (`said_of`, `statement`, `asked`) is read on first use:
    most pairs state no amounts of one measure and are never compared further."""

    evidence: Evidence  # the unit itself, citable
    context: str  # normalised: title + heading + unit
    coverage: float
    quantities: tuple[Quantity, ...]
    line: str  # normalised: title + heading + the whole line the quantity stands on
    reading: _Reading
    chunk_id: str
    label: str  # the line's label ("VGM to carrier" of "VGM to carrier | 48 hrs")
    clause: str  # the clause stating the quantities
    sentence: str  # the sentence holding that clause
    # the section's text from the heading the line stands under (or the chunk's start) to the
    # chunk's end, as written: `block` cuts it at the next heading
    below_heading: str = ""
    # the document's lines stating no quantity outside the answer's section
    silent: tuple[_Silent, ...] = ()

    @cached_property
    def answers_without_quantity(self) -> bool:
        """Whether a statement of no quantity in another section covers the question better:
        that is the document's answer ("3.1 PPAP: … submission Level 3" for the submission
        level), and its quantities (a record retention in 5.2) answer other questions. Read
        only for a pair of disagreeing answers."""
        return any(_plain_coverage(self.reading, line) > self.coverage for line in self.silent)

    @cached_property
    def attribute(self) -> frozenset[str]:
        """What the quantity is said of (`_attribute_words`)."""
        return _attribute_words(self.reading, self.chunk_id, self.label, self.clause)

    @cached_property
    def said_of(self) -> float:
        """Share of what the quantity is said of that the question also says."""
        return _said_of(self.reading, self.attribute)

    def said_of_beside(self, other: Answer) -> float:
        """Share of what the quantity is said of that the question, or what the other answer's
        quantity is said of, also says: a qualifier both state (「每箱毛重」 beside "gross weight
        per carton") tells neither apart from the other; one only this side states (「鈦合金零件」
        beside the standard lead time) does."""
        if self.said_of >= SAID_OF_SHARE or not self.reading.measures:
            # a question asking no kind of amount (「…的俗名是什么？」) compares only quantities
            # said of what it says: two fish's lengths, each said of 体长, are not its answer
            return self.said_of
        return _said_of(self.reading, self.attribute, beside=other.attribute)

    @cached_property
    def statement(self) -> frozenset[str]:
        """Content words of its label and sentence."""
        return _statement(self.reading, self.chunk_id, self.label, self.sentence)

    @property
    def asked(self) -> frozenset[str]:
        """Those of the statement's words the question says too."""
        return self.statement & self.reading.asked

    @cached_property
    def context_units(self) -> text_analysis.TextUnits:
        return text_analysis.TextUnits.of(self.context)

    @cached_property
    def line_units(self) -> text_analysis.TextUnits:
        return text_analysis.TextUnits.of(self.line)

    @cached_property
    def block(self) -> str:
        """Normalised: title + the heading the line stands under and every line under it, the
        rule's conditions with its amount (「3. 非不良品退貨」 over 「3.1 …未拆封。」 and 「3.2 收取
        restocking fee 15%」)."""
        lines = self.below_heading.split("\n")
        kept = lines[:1]
        for line in lines[1:]:
            if _is_heading(line) and not quantities_in(line):
                break
            kept.append(line)
        return self.reading.normalized(self.chunk_id, "\n".join([self.evidence.title, *kept]))

    @cached_property
    def block_units(self) -> text_analysis.TextUnits:
        return text_analysis.TextUnits.of(self.block)


def question_conflicts(
    profile: QueryProfile,
    evidence: list[Evidence],
    *,
    relevant: frozenset[str],
    lookup: Callable[[list[str]], dict[str, Verified]],
    chunk_of: Callable[[str], ChunkRow | None],
    analyses: TextAnalyses | None = None,
    similarity: Callable[[str, list[str]], list[float]] | None = None,
) -> tuple[list[Conflict], list[Evidence]]:
    """Conflicts between the answers of the relevant authoritative documents in `evidence`,
    and the answering units they cite (to be added to the evidence, so both sides are cited).
    `analyses` remembers what is read of each chunk's clauses (the same whatever the query);
    `similarity` (a chunk's texts against the question) chooses between clauses that cover
    the question equally."""
    measures = _asked_measures(profile)
    # Either side may be the one the question's words found; the other need only state the
    # same thing (the anchor test below), as a table or a note states it tersely.
    by_document: dict[str, list[Evidence]] = {}
    for item in evidence:
        if item.knowledge_class == "fact":
            by_document.setdefault(item.document_id, []).append(item)
    relevant_documents = {e.document_id for e in evidence if e.evidence_id in relevant}
    if len(by_document) < 2 or not relevant_documents:
        return [], []
    current = lookup(list(by_document))
    sections = {
        document_id: _sections(items, chunk_of, doc.body)
        for document_id, items in by_document.items()
        if (doc := current.get(document_id)) is not None
    }
    spelled = acronyms(
        current[document_id].body[s:e]
        for document_id, found in sections.items()
        for _c, s, e in found
    )
    reading = _Reading(
        profile,
        measures,
        spelled,
        analyses if analyses is not None else TextAnalyses(0),
        asked=frozenset(_words(_expanded(text_analysis.normalize(profile.query), spelled))),
        series=relevance.asked_series(profile.query),
        similarity=similarity,
    )
    answers = {
        document_id: answer
        for document_id, found in sections.items()
        if (answer := _answer(reading, current[document_id], by_document[document_id], found))
        is not None
    }
    conflicts = _disagreements(profile, answers, relevant_documents)
    cited = {v.evidence_id for c in conflicts for v in c.values}
    answering = [a.evidence for a in answers.values() if a.evidence.evidence_id in cited]
    return conflicts, answering


def _asked_measures(profile: QueryProfile) -> frozenset[str] | None:
    if not profile.asked:
        # a question asking where, why or what a thing means compares no amount (two passages
        # giving the lengths of one railway do not disagree on the places it passes)
        return frozenset() if answer_types.asks_no_amount(profile.query) else None
    wanted = frozenset().union(*map(_measures_answering, profile.asked))
    return wanted or None


def _measures_answering(kind: str) -> frozenset[str]:
    """The measures whose quantities answer an asked type: an amount asked in a unit
    ("measure:length") is answered by its measure alone."""
    if kind.startswith(answer_types.MEASURE_PREFIX):
        return frozenset({kind.removeprefix(answer_types.MEASURE_PREFIX)})
    return _ANSWERS.get(kind, frozenset())


@dataclass(frozen=True)
class _Reading:
    """What one question's reading of the answers shares: the question, the measures it asks
    for, the abbreviations the retrieved sections define, the question's own words (the same
    for every clause it is compared with) and the remembered analyses of the chunks' texts."""

    profile: QueryProfile
    measures: frozenset[str] | None
    spelled: dict[str, str]
    analyses: TextAnalyses
    asked: frozenset[str]
    # the members of numbered series the question names ("Line 4": {"line": {"4"}})
    series: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    # cosine similarity of a chunk's texts to the question (the retrieval's embedding), which
    # chooses between clauses that cover the question equally (`_chosen`)
    similarity: Callable[[str, list[str]], list[float]] | None = None

    def normalized(self, chunk_id: str, text: str) -> str:
        return self.analyses.get(chunk_id, "normalize", text, text_analysis.normalize)

    @cached_property
    def asked_units(self) -> text_analysis.TextUnits:
        question = _expanded(text_analysis.normalize(self.profile.query), self.spelled)
        return text_analysis.TextUnits.of(question)

    def half_asked(self, word: str) -> bool:
        """A Chinese word of which the question says at least half, as relevance counts a
        term found (relevance.TERM_SHARE): 差旅費 in a question about 旅費, 返回後 in 回來之後."""
        if not _CJK_UNIT.match(word) or len(word) < 2:
            return False
        term = text_analysis.Term(word, word, "cjk")
        return term.coverage(self.asked_units) >= relevance.TERM_SHARE

    @cached_property
    def asked_meanings(self) -> frozenset[str]:
        """The English stems the dictionary gives the question's Chinese words."""
        return frozenset(m for w in self.asked if _CJK_UNIT.match(w) for m in bilingual.meanings(w))

    def asked_in_translation(self, word: str) -> bool:
        """A word of an answer in the other script than the question's, which the question
        says in translation: "glass" of an English rule for 玻璃 in a Chinese question, 通知
        of a Chinese notice rule for "notice" in an English one."""
        if self.profile.script == "cjk":
            return _CJK_UNIT.match(word) is None and word in self.asked_meanings
        return _CJK_UNIT.match(word) is not None and bool(
            self.asked & frozenset(bilingual.meanings(word))
        )

    def stated(self, chunk_id: str, clause: str) -> tuple[Quantity, ...]:
        """Every quantity the clause states, whatever the question asks for."""
        return self.analyses.get(chunk_id, "quantities", clause, _quantities)

    def asked_of(self, found: tuple[Quantity, ...]) -> tuple[Quantity, ...]:
        """The quantities of the measures the question asks for (all, when it asks for none);
        dates and times of day only when it asks for a date or a time: a passage's dates are
        mostly when its story happened, not what a question about something else asks."""
        asks_when = bool({answer_types.DATE, answer_types.TIME} & set(self.profile.asked))
        return tuple(
            q
            for q in found
            if (
                asks_when
                if q.measure in moments.MOMENTS
                # money is one measure per currency ("money:gbp"): the family is what is asked
                else self.measures is None or q.measure.split(":")[0] in self.measures
            )
        )

    def words(self, chunk_id: str, normalized: str) -> tuple[str, ...]:
        def analyse(text: str) -> tuple[str, ...]:
            return tuple(_words(text, self.analyses.shared(chunk_id, "tagged_run")))

        return self.analyses.get(chunk_id, "words", normalized, analyse)

    def units(self, chunk_id: str, normalized: str) -> text_analysis.TextUnits:
        return self.analyses.get(chunk_id, "units", normalized, text_analysis.TextUnits.of)


def _quantities(clause: str) -> tuple[Quantity, ...]:
    return tuple(quantities_in(clause))


def _answer(
    reading: _Reading,
    doc: Verified,
    items: list[Evidence],
    sections: list[tuple[str, int, int]],
) -> Answer | None:
    """The document's answer, read in its `sections` (`_sections` of its `items`)."""
    offered: list[_Candidate] = []
    # its lines stating no quantity, each with its section (the leading number of a numbered
    # clause, the heading it stands under, or its paragraph)
    silent: list[_Silent] = []
    section = ""
    previous_end = 0
    for chunk_id, start, end in sections:
        heading = ""
        heading_start = start
        columns: list[str] = []  # the header row of the table being read, if any
        for line_start, line_end in _lines(doc.body, start, end):
            line = doc.body[line_start:line_end]
            label = _label(line)
            cells = spans.table_cells(line)
            # (clause offset, clause, what it is said of, its quantities) of each candidate
            candidates: list[tuple[int, str, str, tuple[Quantity, ...]]] = []
            # A line stating any quantity is a value, not a heading ("Handling .... 18.00 per
            # W/M" under "B. Felixstowe CFS (import LCL)"), whatever measure is asked for.
            stated = False
            for clause_start, clause in _clauses(line):
                found = reading.stated(chunk_id, clause)
                stated = stated or bool(found)
                if quantities := reading.asked_of(found):
                    candidates.append((clause_start, clause, label, quantities))
            if columns and len(cells) == len(columns):
                candidates += [
                    (0, line, header, (quantity,))
                    for header, quantity in _table_cells(
                        reading, chunk_id, columns, cells, doc.body
                    )
                ]
            elif cells and not any(ch.isdigit() for ch in line):
                columns = cells  # a header row names the columns of the rows under it
            elif not cells:
                columns = []
            heads = not (stated or candidates) and _is_heading(line)
            number = _SECTION_NUMBER.match(line)
            if number is not None:
                section = number.group(1) or number.group(2)
            elif heads:
                section = line.strip()
            elif "\n\n" in doc.body[previous_end:line_start]:
                section = f"paragraph {line_start}"  # a blank line before: a paragraph of its own
            previous_end = line_start + len(line)
            if candidates and not _about_other_members(reading, doc, chunk_id, heading, line_start):
                place = _Place(
                    doc, items[0], chunk_id, heading, line_start, line, heading_start, end, section
                )
                offered += [_candidate(reading, place, *candidate) for candidate in candidates]
            if not stated and line.strip() and not cells and not answer_types.bare_amount(line):
                silent.append(_Silent(section, chunk_id, f"{doc.title}\n{heading}\n{label}", line))
            if heads:
                heading, heading_start = line.strip(), line_start
    chosen = _chosen(reading, offered)
    if chosen is None:
        return None
    # A line of the chosen one's own section is its condition or scope ("5.1 Applies to …
    # Tilbury" over "5.2 … 5 days"); the others may answer the question without a quantity.
    elsewhere = tuple(line for line in silent if line.section != chosen.place.section)
    return dataclasses.replace(_answer_of(reading, chosen), silent=elsewhere)


@dataclass(frozen=True)
class _Silent:
    """A line of a document that states no quantity, with what it is read with."""

    section: str
    chunk_id: str
    context: str  # the document's title, the line's heading and label
    line: str


# A numbered clause's section: 「5.」 of 「5.1」 or 「5.2」, 「三」 of 「三、」, "9" of "Section 9".
_SECTION_NUMBER = re.compile(
    r"\s*(?:(?:section|article|clause)\s+([0-9]+)|([0-9]+|[一二三四五六七八九十]+)(?=[.．、)）]))",
    re.IGNORECASE,
)


def _plain_coverage(reading: _Reading, silent: _Silent) -> float:
    """How well the best sentence of a line stating no quantity covers the question, read with
    the document's title, its heading and its label, as a candidate is."""
    return max(
        (
            _covered(reading, silent.chunk_id, f"{silent.context}\n{silent.line[start:end]}")
            for start, end in spans.units(silent.line)
        ),
        default=0.0,
    )


def _covered(reading: _Reading, chunk_id: str, text: str) -> float:
    """How well a chunk's text (abbreviations spelled out) covers the question."""
    read = _spelled_out(reading.normalized(chunk_id, text), reading.spelled)
    # a text of the other script covers the question's words it writes in translation: "Parts:
    # 15% off list price." covers 料件 of 「速聯的料件折扣是幾%？」, "Labour: 10% off …" does not
    return _coverage(reading.profile, read, reading.units(chunk_id, read), said=_written)


def _about_other_members(
    reading: _Reading, doc: Verified, chunk_id: str, heading: str, line_start: int
) -> bool:
    """Whether a line (read whole where its section starts inside it) is about other members of
    a series the question names one member of ("L1 Bakery" for Line 4): it answers for them, as
    relevance's rule 5 reads an item."""
    if not reading.series:
        return False
    whole = doc.body[spans.line_start(doc.body, line_start) : spans.line_end(doc.body, line_start)]
    named = reading.normalized(chunk_id, f"{doc.title}\n{heading}\n{whole}")
    return relevance.another_member(reading.series, named)


@dataclass(frozen=True)
class _Place:
    """Where a candidate answer stands: its document, chunk, heading and line."""

    doc: Verified
    like: Evidence  # an evidence item of the document, the citation's model
    chunk_id: str
    heading: str
    line_start: int
    line: str
    heading_start: int  # where the heading's line (or the chunk) starts
    section_end: int  # where the chunk ends
    section: str = ""  # its numbered clause, heading or paragraph (`_answer`)


def _candidate(
    reading: _Reading,
    place: _Place,
    clause_start: int,
    clause: str,
    label: str,
    quantities: tuple[Quantity, ...],
) -> _Candidate:
    """A clause stating a quantity, with how well its sentence covers the question."""
    # Which statement answers is read over its whole sentence: 「清洁完成后7天内未使用的，使用前
    # 须重新清洁」 says what happens after the 7 days in its next clause.
    sentence = _sentence(place.line, clause_start)
    coverage = _covered(
        reading, place.chunk_id, f"{place.doc.title}\n{place.heading}\n{label}\n{sentence}"
    )
    return _Candidate(place, clause_start, clause, label, quantities, sentence, coverage)


@dataclass(frozen=True)
class _Candidate:
    place: _Place
    clause_start: int
    clause: str
    label: str
    quantities: tuple[Quantity, ...]
    sentence: str
    coverage: float

    @property
    def text(self) -> str:
        """What the embedding compares with the question: the sentence under its heading."""
        return "\n".join(t for t in (self.place.heading, self.label, self.sentence) if t)


def _chosen(reading: _Reading, candidates: list[_Candidate]) -> _Candidate | None:
    """The candidate covering the question best. Where several cover it equally (the words a
    question shares with a document are often in its title, over every clause), the one whose
    sentence the embedding finds closest to the question: 「4. 抵扣上限：每月服务抵扣合计不超过
    当月服务费的 50%」 for 「…每个月服务抵扣最多能抵多少」, which no word of the question says,
    over 「5. 申请方式：…30 日内书面申请服务抵扣」; without an embedding, the first."""
    if not candidates:
        return None
    tied = _best_covering(candidates, lambda c: c.coverage)
    if len(tied) > 1:
        # the clause itself before its sentence's other clauses: 「3.1 A类供应商每24个月进行一次
        # 现场审计」 over 「近12个月到货拒收≥2批的，」 of a sentence that goes on to an audit
        tied = _best_covering(tied, lambda c: _clause_coverage(reading, c))
    if len(tied) == 1 or reading.similarity is None:
        return tied[0]
    # one embedding call per chunk for its tied sentences; of equals, the first (max keeps it)
    texts: dict[str, list[str]] = {}
    for candidate in tied:
        texts.setdefault(candidate.place.chunk_id, []).append(candidate.text)
    similar: dict[tuple[str, str], float] = {}
    for chunk_id, written in texts.items():
        unique = list(dict.fromkeys(written))
        scores = reading.similarity(chunk_id, unique)
        similar.update(((chunk_id, t), score) for t, score in zip(unique, scores, strict=True))
    return max(tied, key=lambda c: similar[(c.place.chunk_id, c.text)])


def _best_covering(
    candidates: list[_Candidate], coverage: Callable[[_Candidate], float]
) -> list[_Candidate]:
    scored = [(coverage(c), c) for c in candidates]
    top = max(score for score, _c in scored)
    return [c for score, c in scored if score == top]


def _clause_coverage(reading: _Reading, candidate: _Candidate) -> float:
    return _covered(reading, candidate.place.chunk_id, f"{candidate.label}\n{candidate.clause}")


def _answer_of(reading: _Reading, candidate: _Candidate) -> Answer:
    place, label, clause = candidate.place, candidate.label, candidate.clause
    doc, chunk_id, heading, spelled = place.doc, place.chunk_id, place.heading, reading.spelled
    line_end = place.line_start + len(place.line)
    return Answer(
        evidence=_cited(
            doc, place.like, place.line_start, line_end, place.line_start + candidate.clause_start
        ),
        # What the quantity is said of: its clause, its line's label ("VGM to carrier | 48
        # hrs"), the heading above and the document's title.
        context=_spelled_out(
            reading.normalized(chunk_id, f"{doc.title}\n{heading}\n{label}\n{clause}"), spelled
        ),
        coverage=candidate.coverage,
        quantities=candidate.quantities,
        line=_spelled_out(
            reading.normalized(chunk_id, f"{doc.title}\n{heading}\n{place.line}"), spelled
        ),
        reading=reading,
        chunk_id=chunk_id,
        label=label,
        clause=clause,
        sentence=candidate.sentence,
        below_heading=doc.body[place.heading_start : place.section_end],
    )


# a cell holding one number and nothing else (350, 1,380, 45.00)
_NUMBER_CELL = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _table_cells(
    reading: _Reading,
    chunk_id: str,
    columns: list[str],
    cells: list[str],
    body: str,
) -> list[tuple[str, Quantity]]:
    """Bare numbers of a table row, each said of its column's header: as money (「1｜LH-1932-017｜
    青花纏枝蓮紋大盤｜2,400,000」) in the currency the header names (「单价（元，含税）」, any
    number under it), or the one the document names once without an amount (「單位：新臺幣」)
    under a header that names a price (保險金額), an amount in a price list's form; else in the
    unit the header names (`_in_header_unit`: 3.0 under "Std hours"). A cell that states its own
    unit is read as written already. `body`: the document as written (its
    script says which yuan 元 alone is: `facts.yuan`)."""
    found: list[tuple[str, Quantity]] = []
    for header, cell in zip(columns, cells, strict=True):
        listed = answer_types.bare_amount(cell)  # in a price list's form: 18,000, 45.00
        if not (listed or _NUMBER_CELL.fullmatch(cell)) or reading.stated(chunk_id, cell):
            continue
        folded = reading.normalized(chunk_id, header)
        word = answer_types.declared_currency(folded)
        # Under a header naming its currency every number of the column is an amount (「價格
        # （元）」 over 350); under one naming a price only, in a price list's form (18,000).
        if word is None and listed and answer_types.names_a_price(folded):
            word = answer_types.declared_in(body)
        code = facts.currency_code(word, body) if word else None
        amount = _amount(cell.replace(",", ""))
        if code is not None and amount is not None:
            quantity: Quantity | None = Quantity(f"money:{code}", amount, f"{cell} {code}")
        else:
            quantity = _in_header_unit(reading, chunk_id, header, cell)
        if quantity is not None and reading.asked_of((quantity,)):
            found.append((header, quantity))
    return found


# a header's bracketed unit, 「標準工時(hr)」, and the words outside brackets
_BRACKETED_UNIT = re.compile(r"\(([^()]{1,12})\)|（([^（）]{1,12})）")
_HEADER_WORD = re.compile(r"[^\s()（）/]+")


def _in_header_unit(reading: _Reading, chunk_id: str, header: str, cell: str) -> Quantity | None:
    """A bare number under a header that names its unit (「標準工時(hr)」 over 1.2, "Std hours"
    over 3.0, "Days before arrival" over 30): the quantity the number states in the first of
    the header's words (its bracketed unit first) that is, whole, a unit the quantity reader
    knows — not a word that starts with one (周一至周五, Monday to Friday, is no week)."""
    bracketed = [m.group(1) or m.group(2) for m in _BRACKETED_UNIT.finditer(header)]
    for word in [*bracketed, *_HEADER_WORD.findall(_BRACKETED_UNIT.sub(" ", header))]:
        if word.strip().lower() not in units.UNITS:
            continue
        found = reading.stated(chunk_id, f"{cell} {word}")
        if len(found) == 1:
            return found[0]
    return None


def _said_of(
    reading: _Reading, attribute: frozenset[str], beside: frozenset[str] = frozenset()
) -> float:
    """How much of what a quantity is said of (`_attribute_words`) the question also says, or
    the words `beside` (as written or in translation), each word weighed by how rare it is in
    the language."""
    if not attribute:
        return 1.0
    total = sum(informativeness(w) for w in attribute)
    if not total:
        return 1.0
    said = [
        w
        for w in attribute
        if w in reading.asked
        or reading.half_asked(w)
        or reading.asked_in_translation(w)
        or (beside and _among(w, beside))
    ]
    return sum(informativeness(w) for w in said) / total


# What brackets hold beside a name is an aside (the model of a machine: "Metal detector (CEIA
# THS)"), not what the quantity is said of.
_ASIDE = re.compile(r"\([^()]*\)|（[^（）]*）")


def _attribute_words(reading: _Reading, chunk_id: str, label: str, clause: str) -> frozenset[str]:
    """What a quantity is said of: the content words of its clause before the quantity and of
    its line's label. 「鈦合金零件之加工交期為 25 日」 is said of titanium parts, which a
    question about the standard lead time never mentions."""
    # An aside is left out before the quantity is looked for: the digit of a list number in
    # brackets (「（3）防水層完成後應辦理試水48小時」) is not the quantity.
    norm = _ASIDE.sub(" ", reading.normalized(chunk_id, clause))
    first = _FIRST_QUANTITY.search(norm)
    before = norm[: first.start()] if first else norm
    said = _ENUMERATOR.sub(" ", f"{reading.normalized(chunk_id, label)} {before}")
    said = _ASIDE.sub(" ", said)
    return frozenset(reading.words(chunk_id, _expanded(said, reading.spelled)))


def _among(word: str, words: frozenset[str]) -> bool:
    """Whether a statement's content words hold a word, as written or in translation."""
    if word in words:
        return True
    if _CJK_UNIT.match(word):
        return bool(words & frozenset(bilingual.meanings(word)))
    return any(word in bilingual.meanings(w) for w in words if _CJK_UNIT.match(w))


def _sentence(line: str, at: int) -> str:
    """The sentence (citable unit) of a line that holds offset `at`."""
    return next((line[s:e] for s, e in spans.units(line) if s <= at < e), line)


def _statement(reading: _Reading, chunk_id: str, label: str, sentence: str) -> frozenset[str]:
    """What a statement is about: the content words of its label and sentence (abbreviations
    spelled out, unit words left out) and the calendar years it names."""
    said = _ENUMERATOR.sub(" ", reading.normalized(chunk_id, f"{label} {sentence}"))
    words = reading.words(chunk_id, _expanded(said, reading.spelled))
    years = _YEAR.findall(said)
    return frozenset([*(w for w in words if not facts.is_unit_word(w)), *years])


_YEAR = re.compile(r"(?<![\d.,])(?:1[0-9]|2[0-9])\d\d(?![\d.,])")


def same_statement(first: frozenset[str], second: frozenset[str]) -> bool:
    """Two statements of one thing: the shorter says mostly what the longer says, by how
    specific its words are (「供應商應於接獲通知後24小時內派員到場」 within 「緊急故障…承攬人應於
    接獲通知後48小時內派員到場」), so only the amount tells them apart."""
    if not (first and second):
        return False
    shared = sum(_weight(w) for w in first & second)
    return shared * 2 > min(sum(map(_weight, first)), sum(map(_weight, second)))


def _weight(word: str) -> float:
    return 1.0 if word.isdigit() else informativeness(word)


def _words(
    normalized: str,
    remember: Callable[[str, Callable[[str], text_analysis.Tagged]], text_analysis.Tagged]
    | None = None,
) -> list[str]:
    """Identifiers and content words (stemmed English, Chinese words of the general segmenter);
    `remember` may serve the tagger's unknown runs from a cache (`content_words`)."""
    identifiers = text_analysis.identifiers_in(normalized)
    return [*identifiers, *text_analysis.content_words(normalized, remember)]


def _expanded(normalized: str, spelled: dict[str, str]) -> str:
    """Abbreviations replaced by what they stand for (both sides then use the same words)."""
    for short, long_form in spelled.items():
        normalized = re.sub(rf"(?<![a-z0-9]){re.escape(short)}(?![a-z0-9])", long_form, normalized)
    return normalized


def _lines(body: str, start: int, end: int) -> list[tuple[int, int]]:
    found = []
    cursor = start
    for piece in body[start:end].split("\n"):
        piece_start, cursor = cursor, cursor + len(piece) + 1
        if piece.strip():
            found.append((piece_start, piece_start + len(piece)))
    return found


def _label(line: str) -> str:
    """A line's label, when it has one before a separator ("Free time ......", "交期：")."""
    match = _LABEL.match(line)
    return match.group(1) if match else ""


def _cited(doc: Verified, like: Evidence, line_start: int, line_end: int, at: int) -> Evidence:
    """The line, when it is short enough to read as one citation; else its unit holding `at`."""
    if line_end - line_start <= spans.MAX_UNIT_CHARS:
        s, e = line_start, line_end
    else:
        s, e = next(
            (
                (s, e)
                for s, e in spans.units(doc.body[line_start:line_end], offset=line_start)
                if s <= at < e
            ),
            (line_start, line_end),
        )
    while s < e and doc.body[s].isspace():
        s += 1
    while e > s and doc.body[e - 1].isspace():
        e -= 1
    return _unit_evidence(doc, like, s, e)


def _clauses(line: str) -> list[tuple[int, str]]:
    """A line cut at sentence and clause punctuation, with each clause's offset."""
    found = []
    cursor = 0
    for part in _CLAUSE_BREAK.split(line):
        if part.strip():
            found.append((cursor, part))
        cursor += len(part)
    return found


def _sections(
    items: list[Evidence], chunk_of: Callable[[str], ChunkRow | None], body: str
) -> list[tuple[str, int, int]]:
    """The chunks the document's spans were cut from, each once (chunk id, start, end), each
    widened to the whole of a table it cuts through (a chunk may hold a table's header and its
    first rows, the next one the rest): a row is read with its header and its sibling rows.
    Sections that then overlap are read as one."""
    found: list[tuple[str, int, int]] = []
    for item in items:
        chunk = chunk_of(item.chunk_id)
        start, end = (chunk.start, chunk.end) if chunk is not None else (item.start, item.end)
        start, end = spans.whole_tables(body, start, end)
        for at, (chunk_id, s, e) in enumerate(found):
            if s < end and start < e:
                found[at] = (chunk_id, min(s, start), max(e, end))
                break
        else:
            found.append((item.chunk_id, start, end))
    return found


def _salience(profile: QueryProfile) -> dict[str, float]:
    """The question's words weighed against each other: rare in the knowledge the person may
    read (IDF) and rare in the language (a name or a term, not "get" or "these days")."""
    return {unit: weight * informativeness(unit) for unit, weight in profile.weights.items()}


def _coverage(
    profile: QueryProfile,
    context: str,
    found: text_analysis.TextUnits,
    among: list[str] | None = None,
    said: Callable[[str, str, text_analysis.TextUnits], bool] = present,
) -> float:
    """Share of the question's salience (`_salience`; of the units `among` only, if given) that
    a normalised text says: as written (`present`), unless `said` reads it otherwise."""
    salience = _salience(profile)
    if among is not None:
        salience = {unit: salience[unit] for unit in among}
    total = sum(salience.values())
    if not total:
        return 0.0
    return sum(w for unit, w in salience.items() if said(unit, context, found)) / total


def _is_heading(line: str) -> bool:
    """A short line without sentence punctuation ("3. Verified Gross Mass (VGM)"); a row of a
    table or price list ("Handling ...... 18.00 per W/M", "SI to carrier | 48 hrs") is a value
    under the heading, not one."""
    text = line.strip()
    return (
        len(text) <= _HEADING_MAX_CHARS
        and not _SENTENCE_PUNCTUATION.search(text)
        and not _ROW_SEPARATOR.search(text)
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


def _disagreements(
    profile: QueryProfile, answers: dict[str, Answer], relevant_documents: set[str]
) -> list[Conflict]:
    found: list[Conflict] = []
    documents = sorted(answers)
    # What the question asks about, as a pair of answers reads it (_Asked), by the identifiers
    # that name one of the two documents and are left out.
    asked: dict[frozenset[str], _Asked] = {}
    for i, first in enumerate(documents):
        for second in documents[i + 1 :]:
            if first not in relevant_documents and second not in relevant_documents:
                continue
            a, b = answers[first], answers[second]
            if a.evidence.customer_id != b.evidence.customer_id:
                continue
            names = _document_names(profile, a, b)
            if names not in asked:
                asked[names] = _Asked.of(_without(profile, names))
            pair = asked[names]
            if not (_names_identifiers(pair.profile, a) and _names_identifiers(pair.profile, b)):
                continue
            measure = _disagreeing_measure(a.quantities, b.quantities)
            if measure is None or a.answers_without_quantity or b.answers_without_quantity:
                continue
            anchor = _anchor(pair.profile, a, b, pair.subject)
            if anchor is None or min(a.said_of_beside(b), b.said_of_beside(a)) < SAID_OF_SHARE:
                # The question may name what they say otherwise, and they may still say one
                # thing twice: the same statement, of the question's subject, in both.
                anchor = _restated(pair.profile, a, b, pair.topic, pair.named)
                if anchor is None:
                    continue
            found.append(_conflict(profile.display(anchor), measure, a, b))
    return _merged(found)


@dataclass(frozen=True)
class _Asked:
    """A question's profile with its subject, topic and naming words (`_heaviest`, `_topic`,
    `_named`), read once per set of identifiers left out."""

    profile: QueryProfile
    named: list[str]
    subject: str | None
    topic: str | None

    @classmethod
    def of(cls, profile: QueryProfile) -> _Asked:
        named = _named(profile)
        return cls(profile, named, _heaviest(profile, named), _topic(profile))


def _document_names(profile: QueryProfile, a: Answer, b: Answer) -> frozenset[str]:
    """The question's identifiers that one of two answering documents bears in its title: it
    names that document (「PO-HY-2026-0415 有沒有另外規定？」), whose answer is compared with the
    other's, which need not name it."""
    if not profile.identifiers:
        return frozenset()
    titles = [
        answer.reading.normalized(answer.chunk_id, answer.evidence.title) for answer in (a, b)
    ]
    return frozenset(
        i
        for i in profile.identifiers
        if any(text_analysis.contains_identifier(t, i) for t in titles)
    )


def _without(profile: QueryProfile, names: frozenset[str]) -> QueryProfile:
    """The profile without identifiers that name a document (nor their weight)."""
    if not names:
        return profile
    return dataclasses.replace(
        profile,
        identifiers=tuple(i for i in profile.identifiers if i not in names),
        weights={u: w for u, w in profile.weights.items() if u not in names},
        distinctive=None if profile.distinctive in names else profile.distinctive,
    )


def _names_identifiers(profile: QueryProfile, answer: Answer) -> bool:
    """Whether an answer names every identifier of the question: its unit, or the line it
    stands on (「M6×30 十字沉頭機械螺絲 黑鋅，單價 NT$ 0.45／支」: the price's clause does not
    repeat the part its line opens with)."""
    return all(
        text_analysis.contains_identifier(answer.context, i)
        or text_analysis.contains_identifier(answer.line, i)
        for i in profile.identifiers
    )


def _anchor(profile: QueryProfile, a: Answer, b: Answer, subject: str | None) -> str | None:
    """The question's heaviest word found in either answer; it must be in both. And the
    question's subject, its heaviest word that names something (`_named`), must be in one of
    them: answers that never name it
    are about something else (two fish of other species, each with its length). A word nothing
    readable says is the subject only when it is a name or a term (rare in its language, as
    frequency.NAME_ZIPF has it: the third species); an everyday word the documents happen not
    to use ("before storage starts") is nobody's subject."""
    found_a, found_b = a.context_units, b.context_units
    # The word must be written in one of them; the other may write the longer word it
    # shortens (`_said`). A shortening on both sides is no evidence the word is there at all:
    # 「內報」, which a segmenter cuts from 「幾天內報掉」, is not in 「14日內檢據報支」.
    in_either = [
        unit
        for unit in profile.weights
        if not facts.is_unit_word(unit)  # 「多少公分」: every length states its unit
        and (_written(unit, a.context, found_a) or _written(unit, b.context, found_b))
    ]
    if not in_either:
        return None
    salience = _salience(profile)
    if subject is None:
        return None
    if not any(
        _said(subject, answer.line, answer.line_units)
        or _said(subject, answer.block, answer.block_units)
        for answer in (a, b)
    ):
        return None
    # Between answers of two scripts, a word the general dictionary cannot render is not
    # looked for in the other one (「每箱」 of 「每箱毛重」 beside "gross weight per carton"):
    # its absence there says nothing; the heaviest word that can be looked for in both decides.
    checkable = [u for u in in_either if _checkable(u, a.context) and _checkable(u, b.context)]
    heaviest = max(checkable or in_either, key=lambda unit: (salience[unit], unit))
    both = _said(heaviest, a.context, found_a) and _said(heaviest, b.context, found_b)
    return heaviest if both else None


def _checkable(unit: str, text: str) -> bool:
    """Whether an answer's text can say one of the question's units: it is written in the
    unit's script (a Chinese clause as short as 「每箱 25 公斤」 too), or the general dictionary
    gives the unit a translation to look for."""
    if _CJK_UNIT.match(unit):
        return _CJK_UNIT.search(text) is not None or bool(bilingual.meanings(unit))
    return comparable(unit, text) or bool(bilingual.stem_renderings(unit))


def _said(unit: str, text: str, found: text_analysis.TextUnits) -> bool:
    """Whether an answer says one of the question's units: as written, or in translation in
    an answer of the other script (`_written`), or, a two-character Chinese word, as the longer
    word it shortens (停班 in 停止上班), as relevance finds it. Read only for a pair of
    disagreeing answers (span scoring keeps `present`)."""
    return _written(unit, text, found) or (
        _CJK_UNIT.match(unit) is not None and text_analysis.shortened_in(unit, text)
    )


def _written(unit: str, text: str, found: text_analysis.TextUnits) -> bool:
    """Whether an answer writes one of the question's units: as written (`present`), or, in an
    answer of the other script (`comparable`, as relevance reads it), as a translation the
    general dictionary gives for it ("glass" for 玻璃, 通知 for "notice")."""
    if present(unit, text, found):
        return True
    return not comparable(unit, text) and _translated(unit, text, found)


def _translated(unit: str, text: str, found: Container[str]) -> bool:
    if _CJK_UNIT.match(unit):
        return any(stem in found for stem in bilingual.meanings(unit))
    return any(word in text for word in bilingual.stem_renderings(unit))


def _restated(
    profile: QueryProfile, a: Answer, b: Answer, topic: str | None, named: list[str]
) -> str | None:
    """Two answers that make the same statement (same_statement) and both name the question's
    most distinctive word (the heaviest the readable knowledge uses): the question's heaviest
    word they share, which names the conflict. Passages giving the length of two fish say
    「體長可達 … 公分」 alike, but only one names the fish asked about. `topic` is `_topic`'s,
    `named` is `_named`'s."""
    if topic is None or not same_statement(a.statement, b.statement):
        return None
    if not a.asked & b.asked:
        return None  # what both say is not what the question asks about (a fish's length)
    both = f"{a.line}\n{b.line}"
    if _coverage(profile, both, text_analysis.TextUnits.of(both), named) * 2 < 1:
        return None  # most of the question is in neither: a third fish, whose name they lack
    if not all(_said(topic, answer.line, answer.line_units) for answer in (a, b)):
        return None
    shared = [
        u
        for u in profile.weights
        if _said(u, a.context, a.context_units) and _said(u, b.context, b.context_units)
    ]
    return _heaviest(profile, shared) or topic


def _topic(profile: QueryProfile) -> str | None:
    """The question's most distinctive word that the readable knowledge uses, leaving out words
    that name a price: "handling fee" is about handling, not about every fee."""
    known = [
        unit
        for unit in profile.weights
        if unit not in profile.unseen and not answer_types.names_a_price(unit)
    ]
    return _heaviest(profile, known)


def _heaviest(profile: QueryProfile, units: list[str]) -> str | None:
    """The most salient of some of the question's units (ties broken by the unit itself)."""
    salience = _salience(profile)
    return max(units, key=lambda unit: (salience[unit], unit)) if units else None


def _named(profile: QueryProfile) -> list[str]:
    """The question's words that can name what it is about: those the readable knowledge uses,
    and words nothing readable says that are names or terms — rare in their language and, in
    Chinese, a noun to the tagger (「膨趾膜鱈」, not 「壓完」)."""
    question = text_analysis.normalize(profile.query)
    return [
        unit
        for unit in profile.weights
        if unit not in profile.unseen
        or (
            zipf(unit) < NAME_ZIPF
            and (not _CJK_UNIT.search(unit) or text_analysis.nominal(unit, question))
        )
    ]


_CJK_UNIT = re.compile(f"[{text_analysis.CJK}]")


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
                # the values of the measure they disagree on (a table row also states others)
                value=", ".join(q.shown for q in answer.quantities if q.measure == measure)
                or ", ".join(q.shown for q in answer.quantities),
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


_LATIN_DEFINITION = re.compile(
    r"((?:[A-Za-z][\w'-]*\s+){1,7}[A-Za-z][\w'-]*)\s*[(（]([A-Z][A-Z0-9&]{1,7})[)）]"
)
_CJK_DEFINITION = re.compile(
    rf"([{text_analysis.CJK}]{{2,12}})\s*[(（]([A-Z][A-Z0-9&]{{1,7}})[)）]"
)
_MINOR_WORDS = frozenset({"of", "and", "for", "the", "to", "in", "on", "a", "an", "&"})


def acronyms(texts: Iterable[str]) -> dict[str, str]:
    """Abbreviations the texts define, normalised: "Verified Gross Mass (VGM)" → vgm ↦
    "verified gross mass"; 「脏设备保持时间（DHT）」 → dht ↦ 「脏设备保持时间」. A Latin long form
    must spell the abbreviation with its words' initials; a CJK one is the run just before it."""
    found: dict[str, str] = {}
    for text in texts:
        for match in _LATIN_DEFINITION.finditer(text):
            long_form = _spelling(match.group(1).split(), match.group(2))
            if long_form:
                found.setdefault(match.group(2).casefold(), text_analysis.normalize(long_form))
        for match in _CJK_DEFINITION.finditer(text):
            found.setdefault(match.group(2).casefold(), text_analysis.normalize(match.group(1)))
    return found


def _spelling(words: list[str], abbreviation: str) -> str | None:
    """The shortest tail of `words` whose initials (minor words skipped) spell it."""
    letters = [ch for ch in abbreviation.casefold() if ch.isalnum()]
    for start in range(len(words) - 1, -1, -1):
        tail = words[start:]
        initials = [w[0].casefold() for w in tail if w.casefold() not in _MINOR_WORDS]
        if initials == letters:
            return " ".join(tail)
        if len(initials) > len(letters):
            return None
    return None


def _spelled_out(context: str, spelled: dict[str, str]) -> str:
    """A context that uses an abbreviation also says what it stands for."""
    extra = [
        long_form
        for short, long_form in spelled.items()
        if text_analysis.contains_identifier(context, short)
        or re.search(rf"(?<![a-z0-9]){re.escape(short)}(?![a-z0-9])", context)
    ]
    return "\n".join([context, *extra]) if extra else context


def quantities_in(text: str) -> list[Quantity]:
    """Every quantity with a unit in `text` (the digits of identifiers are not), and every date
    and time of day it states (services.retrieval.moments), each a measure of its own; a
    discount written the Chinese way as the share taken off (`_discounts`) and how many times
    something is done as a count (`_times`)."""
    found = [
        # a range is one value: its start and end in one number (month-days and minutes of the
        # day are both below 10,000)
        Quantity(
            m.measure,
            float(m.value[0] * 10_000 + m.value[1] if len(m.value) == 2 else m.value[0]),
            m.shown,
        )
        for m in moments.moments(text)
    ]
    for value, unit in facts.quantities(text):
        amount = _amount(value)
        if amount is None:
            continue
        if (
            unit == "year"
            and amount.is_integer()
            and _CALENDAR_YEARS[0] <= amount <= _CALENDAR_YEARS[1]
        ):
            continue  # 「2002年」 is a date, not a duration of two thousand years
        if unit in _MEASURE:
            measure, scale = _MEASURE[unit]
        elif unit in facts.CURRENCY_UNITS:
            measure, scale = f"money:{unit}", 1.0
        elif unit == "pcs":
            measure, scale = "count", 1.0
        else:
            measure, scale = unit, 1.0
        found.append(Quantity(measure, round(amount * scale, 6), f"{value} {unit}"))
    found += [Quantity("share", off, shown) for off, shown in _discounts(text)]
    found += [Quantity("count", n, shown) for n, shown in _times(text)]
    return found


# How many times, as Chinese counts them: 「每日兩次」「每年 1 次」 — not an ordinal (第3次,
# 第十二次), not 「再一次」 (once more), 「一次性」 (one-off) nor 「三次元」 (three-dimensional).
_TIMES = re.compile(
    r"(?<![第再\d.一二兩两三四五六七八九十])(\d{1,3}|[一二兩两三四五六七八九十])\s*次(?![性過过序元])"
)


def _times(text: str) -> list[tuple[float, str]]:
    """How many times a text says something is done (「每日兩次」: 2), and as written."""
    found = []
    for match in _TIMES.finditer(text):
        written = match.group(1)
        count = int(written) if written.isdigit() else sentences.cjk_value(written)
        if count is not None:
            found.append((float(count), match.group(0).strip()))
    return found


def _discounts(text: str) -> list[tuple[float, str]]:
    """The discounts a text writes the Chinese way, each as the share taken off (「88 折」, 12 %
    off; 「九折」, 10 % off), to be compared with "15% off"; and as written."""
    found = []
    for match in answer_types.DISCOUNT.finditer(text):
        written = match.group(1) or "".join(str(sentences.cjk_value(c)) for c in match.group(2))
        paid = float(written)
        if len(written.split(".")[0]) == 1:
            paid *= 10  # 9 折, 8.5 折: tenths of the price
        if 0 < paid < 100:
            found.append((round(100 - paid, 6), match.group(0).strip()))
    return found


def _is_calendar_year(amount: float) -> bool:
    return amount.is_integer() and _CALENDAR_YEARS[0] <= amount <= _CALENDAR_YEARS[1]


def _amount(value: str) -> float | None:
    """A single amount; a range or a tolerance (8-12, ±0.01) is not compared."""
    if "-" in value.lstrip("-") or value[:1] in "±":
        return None
    try:
        return float(value.lstrip("<>≤≥"))
    except ValueError:
        return None
