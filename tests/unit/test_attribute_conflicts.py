"""The attribute rule's conflicts among retrieved evidence (services.retrieval.conflicts): only
the facts whose attribute is closest to the question are compared."""

from __future__ import annotations

import pytest

from services.contracts.evidence_id import evidence_id_for
from services.language.tokens import key_units
from services.retrieval.conflicts import find_conflicts
from services.retrieval.types import Evidence

# itdesk (Simplified): the change SOP's freeze list and the year's calendar. The SOP's spring
# freeze is written relative to the lunar new year, so it states no period the rule can read.
SOP = (
    "SOP-CHANGE",
    "6. 封网期：封网期间禁止普通变更和标准变更。\n"
    "- 春节封网：除夕前 3 天 00:00 至正月初七 24:00。\n"
    "- 年末封网：每年 12 月 24 日 00:00 至次年 1 月 3 日 24:00。",
)
CALENDAR = (
    "SOP-CHANGE-CAL-2026",
    "- 春节封网：2026 年 2 月 13 日 00:00 至 2 月 23 日 24:00。\n"
    "- 年末封网：2026 年 12 月 20 日 00:00 至 2027 年 1 月 3 日 24:00。",
)
# chatlog (English): two delivery procedures' windows, the morning one and the afternoon one.
MORNING = (
    "SOP-DELIVERY-A",
    "Delivery windows: morning window 8:00-12:00. Afternoon window 13:00-16:00.",
)
AFTERNOON = (
    "SOP-DELIVERY-B",
    "Delivery windows: morning window 7:00-11:00. Afternoon window 13:00-16:00.",
)


def _evidence(document_id: str, body: str) -> Evidence:
    return Evidence(
        evidence_id=evidence_id_for(document_id, 1, 0, len(body)),
        document_id=document_id,
        version=1,
        chunk_id=f"T/{document_id}@1#0",
        knowledge_class="fact",
        doc_type="sop",
        title=document_id,
        start=0,
        end=len(body),
        quote=body,
        content_hash="sha256:test",
    )


def _conflicts(query: str, *documents: tuple[str, str]) -> dict[str, dict[str, str]]:
    evidence = [_evidence(*d) for d in documents]
    found, _ = find_conflicts(
        evidence,
        lambda _ids: {},
        relevant=frozenset(e.evidence_id for e in evidence),
        by_vector_only=frozenset(),
        query_units=key_units(query),
        candidates=[],
        by_id={},
        matched_text=lambda _chunk_id: "",
        k=5,
    )
    return {c.fact: {v.document_id: v.value for v in c.values} for c in found}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # asked about the year-end freeze, or about freezes at all: every freeze is as close
        (
            "今年年底封网从哪天开始？",
            {"年末封网": {"SOP-CHANGE": "12-24~01-03", "SOP-CHANGE-CAL-2026": "12-20~01-03"}},
        ),
        # asked about the spring freeze: the year-end freeze is another fact, not compared
        ("春节封网从哪天开始？", {}),
    ],
)
def test_only_the_facts_closest_to_the_question_are_compared(query, expected):
    assert _conflicts(query, SOP, CALENDAR) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "When does the morning delivery window open?",
            {"morn window": {"SOP-DELIVERY-A": "08:00~12:00", "SOP-DELIVERY-B": "07:00~11:00"}},
        ),
        ("When does the afternoon delivery window open?", {}),  # they agree on the afternoon
    ],
)
def test_times_of_day_are_compared_on_the_attribute_asked(query, expected):
    assert _conflicts(query, MORNING, AFTERNOON) == expected
