"""When retrieved evidence answers a query, and what is missing when it does not.

The rule (documented in README "Retrieval"):

1. Every identifier the query names (SUS304, PN-7731-B, Q42) must appear in the evidence.
2. Some evidence item must be *relevant*:
   * it names every identifier of the query, and mentions a majority of the query's content
     terms that can be compared with it: identifiers always, words only when written in the
     item's script (a Chinese term counts when at least half of its characters appear;
     Traditional and Simplified are folded together);
   * when nothing can be compared (an English SOP for a Chinese question without identifiers,
     or the reverse) and no other item matched by words, its vector similarity must stand out:
     at least two standard deviations above the mean over everything the principal may read
     (a statistic of the ranking; no similarity value is ever shown or used as a confidence).
3. If the question asks for a kind of quantity (多少錢 / price → an amount of money, 幾天 / how
   long → a duration, 多重 / weight → a mass, 哪天 / when → a date, 幾件 → a count), a relevant
   item must state a quantity of that kind: 「首件檢驗報告要收多少錢」 is not answered by a
   procedure that mentions the report but no fee.
Similarity never decides on its own except across scripts, and then only as a rank.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass

from services.language import tokens as text_analysis
from services.language.tokens import Term
from services.retrieval.facts import quantity_units

# A CJK term counts as found when at least half of its characters are (see Term.coverage).
TERM_SHARE = 0.5
# Across scripts only the embedding can compare: its pick must be an outlier among everything
# the principal may read (two standard deviations, the conventional cut-off).
OUTLIER_Z = 2.0

_MONEY = frozenset({"TWD", "USD", "EUR", "CNY"})
_DURATION = frozenset({"day", "working_day", "hour", "minute", "week", "month", "year"})
# Question patterns → the units that can answer them. A general question-classification
# lexicon (interrogatives and the nouns that ask for an amount), not tuned to any corpus.
ANSWER_KINDS: tuple[tuple[str, re.Pattern[str], frozenset[str]], ...] = (
    (
        "duration",
        re.compile(
            r"多久|幾天|几天|多少天|幾日|几日|幾個工作[天日]|几个工作[天日]|幾小時|几小时|多少小時|"
            r"多少小时|幾週|几周|幾個月|几个月|多長時間|多长时间|how long|how quickly|how soon|"
            r"how many (?:working |business )?(?:days|hours|weeks|months|years)"
        ),
        _DURATION,
    ),
    ("frequency", re.compile(r"how often|多常|多久一次|頻率|频率"), _DURATION | {"pcs"}),
    (
        "price",
        re.compile(
            r"多少錢|多少钱|幾元|几元|多少元|價格|价格|價錢|价钱|單價|单价|費用|费用|收費|收费|"
            r"\bprices?\b|\bcosts?\b|\bfees?\b|how much (?:does|do|is|are|will|would|should)\b"
        ),
        _MONEY,
    ),
    (
        "markup",
        re.compile(
            r"附加費|附加费|加價|加价|費率|费率|折扣|\bsurcharges?\b|\bcharges?\b|\bdiscounts?\b|"
            r"\bmarkups?\b|\brates?\b"
        ),
        _MONEY | {"%"},
    ),
    ("percentage", re.compile(r"比例|百分比|幾成|几成|percentage|what percent"), frozenset({"%"})),
    (
        "mass",
        re.compile(r"多重|重量|毛重|淨重|净重|how heavy|\bweigh(?:t|s)?\b"),
        frozenset({"kg", "g", "t"}),
    ),
    (
        "date",
        re.compile(r"哪天|哪一天|何時|何时|什麼時候|什么时候|日期|\bwhen\b|what date|which date"),
        frozenset({"date"}),
    ),
    (
        "count",
        re.compile(r"幾件|几件|多少件|幾片|几片|多少片|how many (?:pieces|pcs|parts|units)"),
        frozenset({"pcs"}),
    ),
)


@dataclass(frozen=True)
class Assessment:
    sufficient: bool
    missing: list[str]
    relevant: frozenset[str]  # evidence ids judged relevant (the ones conflicts are read from)
    by_vector_only: frozenset[str]  # relevant only as the vector signal's first choice


@dataclass(frozen=True)
class Item:
    """The returned citations of one document version, as relevance sees them together."""

    evidence_ids: tuple[str, ...]
    text: str  # normalised title + quotes
    units: Container[str]  # text_analysis.TextUnits of `text`, or a unit_set
    quote: str  # the quotes, in rank order
    vector_z: float  # best standing of its chunks in the vector signal (see Candidate.vector_z)


def term_found(term: Term, text: str, units: Container[str]) -> bool:
    if term.kind == "identifier":
        return text_analysis.contains_identifier(text, term.text)
    return term.coverage(units) >= TERM_SHARE


def asked_kinds(query: str) -> list[tuple[str, frozenset[str]]]:
    lowered = text_analysis.normalize(query)
    return [(name, units) for name, pattern, units in ANSWER_KINDS if pattern.search(lowered)]


def assess(query: str, items: list[Item]) -> Assessment:
    terms = text_analysis.content_terms(query)
    identifiers = [t for t in terms if t.kind == "identifier"]
    words = [t for t in terms if t.kind != "identifier"]
    if not items:
        return Assessment(
            sufficient=False,
            missing=[t.display for t in terms] or [query.strip()],
            relevant=frozenset(),
            by_vector_only=frozenset(),
        )
    missing_ids = [t for t in identifiers if not any(term_found(t, i.text, i.units) for i in items)]
    verdicts = {i.evidence_ids: _relevant(i, words, identifiers) for i in items}
    if any(v == "lexical" for v in verdicts.values()):
        # Words matched somewhere: the vector's pick in another language adds nothing then.
        verdicts = {key: v if v == "lexical" else None for key, v in verdicts.items()}
    relevant = [i for i in items if verdicts[i.evidence_ids]]
    kinds = asked_kinds(query)
    unanswered = [
        name for name, units in kinds if not any(quantity_units(i.quote) & units for i in relevant)
    ]
    sufficient = not missing_ids and bool(relevant) and not unanswered
    missing: list[str] = []
    if not sufficient:
        missing = [t.display for t in missing_ids]
        found_anywhere = relevant or items
        missing += [
            t.display
            for t in words
            if not any(term_found(t, i.text, i.units) for i in found_anywhere)
        ]
        missing += [f"a stated {name}" for name in unanswered]
        if not missing:
            missing = [t.display for t in words] or [query.strip()]
    return Assessment(
        sufficient=sufficient,
        missing=list(dict.fromkeys(missing)),
        relevant=frozenset(e for i in relevant for e in i.evidence_ids),
        by_vector_only=frozenset(
            e for i in relevant if verdicts[i.evidence_ids] == "vector" for e in i.evidence_ids
        ),
    )


def _relevant(item: Item, words: list[Term], identifiers: list[Term]) -> str | None:
    """ "lexical" or "vector" when the item is relevant (and how), else None."""
    if not all(term_found(t, item.text, item.units) for t in identifiers):
        return None
    script = text_analysis.script_of(item.quote)
    # Identifiers are the same in every language; words only in their own script.
    checkable = identifiers + [t for t in words if _script(t) == script]
    if checkable:
        found = sum(term_found(t, item.text, item.units) for t in checkable)
        return "lexical" if found * 2 > len(checkable) else None
    return "vector" if item.vector_z >= OUTLIER_Z else None


def _script(term: Term) -> str:
    return "cjk" if re.search(f"[{text_analysis.CJK}]", term.text) else "latin"
