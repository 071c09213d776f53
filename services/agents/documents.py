"""Reading the rest of a cited document: its citable units, its lines, spans joined from units.

Retrieval hands each need the minimal spans that answer it. The agents sometimes need more of
the same document: the exception a later clause makes to a cited rule, the list a cited sentence
introduces. `Retriever.units` gives every unit (sentence, clause, list item) of a readable
current version as an ordinary citation; a reader joins consecutive ones where a statement runs
over several (a clause and its consequence, a list item cut at a comma).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from itertools import pairwise
from typing import Protocol

from services.agents.tools import call_with_timeout
from services.contracts.evidence_id import evidence_id_for
from services.core.errors import MemdeskError
from services.core.principals import Principal
from services.retrieval.types import Evidence, Retriever


class HasEvidence(Protocol):
    @property
    def evidence_id(self) -> str: ...


# Seconds a units or resolve call may take when the caller sets no tool timeout of its own.
DEFAULT_TIMEOUT = 30.0
# A statement is joined from at most this many units (a long sentence cut at its commas).
MAX_JOINED_UNITS = 4
_SENTENCE_ENDS = ("。", "！", "？", "!", "?", ".", "．")


class DocumentReader:
    """Units and lines of documents as one principal may read them on one day (cached)."""

    def __init__(
        self,
        retriever: Retriever,
        principal: Principal,
        *,
        as_of: date,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self._retriever = retriever
        self._principal = principal
        self._as_of = as_of
        self._timeout = timeout
        self._units: dict[tuple[str, int], list[Evidence]] = {}
        self._lines: dict[str, Evidence] = {}

    def units(self, document_id: str, version: int) -> list[Evidence]:
        """Every unit of the version in order; none when it is not readable current evidence."""
        key = (document_id, version)
        if key not in self._units:
            try:
                self._units[key] = call_with_timeout(
                    lambda: self._retriever.units(
                        self._principal, document_id, version, as_of=self._as_of
                    ),
                    seconds=self._timeout,
                    what=f"reading {document_id}@{version}",
                )
            except MemdeskError:
                self._units[key] = []
        return self._units[key]

    def lines(self, document_id: str, version: int) -> list[Evidence]:
        """Units joined where nothing separates them (a line of a list, a paragraph's run of
        sentences); a gap of white space (a line break) starts a new line."""
        found: list[list[Evidence]] = []
        for unit in self.units(document_id, version):
            if found and found[-1][-1].end == unit.start:
                found[-1].append(unit)
            else:
                found.append([unit])
        lines = [join(group) for group in found]
        self._lines.update((line.evidence_id, line) for line in lines)
        return lines

    def statement(self, units: list[Evidence], first: int) -> Evidence:
        """The unit at `first` with the units that finish its sentence (up to
        MAX_JOINED_UNITS, separated by nothing or by white space within the sentence): "…時，
        不直接適用標準交期；" is completed by what it requires instead."""
        group = [units[first]]
        for unit in units[first + 1 :]:
            if len(group) == MAX_JOINED_UNITS:
                break
            if group[-1].quote.rstrip().endswith(_SENTENCE_ENDS) or unit.start - group[-1].end > 2:
                break
            group.append(unit)
        if all(a.end == b.start for a, b in pairwise(group)):
            return join(group)
        # White space between units: the citation of the whole run, read back from the body.
        merged = evidence_id_for(
            group[0].document_id, group[0].version, group[0].start, group[-1].end
        )
        try:
            return call_with_timeout(
                lambda: self._retriever.resolve(self._principal, merged, as_of=self._as_of),
                seconds=self._timeout,
                what=f"resolving {merged}",
            )
        except MemdeskError:
            return group[0]

    def lines_cited(self, cited: Iterable[HasEvidence]) -> list[Evidence]:
        """The lines this reader produced that `cited` (engineering items, claims) cite."""
        return [self._lines[item.evidence_id] for item in cited if item.evidence_id in self._lines]


def join(units: list[Evidence]) -> Evidence:
    """One citation for contiguous units of one version (their quotes are the body between)."""
    first, last = units[0], units[-1]
    if len(units) == 1:
        return first
    return first.model_copy(
        update={
            "evidence_id": evidence_id_for(first.document_id, first.version, first.start, last.end),
            "end": last.end,
            "quote": "".join(unit.quote for unit in units),
        }
    )


def overlaps(a: Evidence, b: Evidence) -> bool:
    return a.ref == b.ref and a.start < b.end and b.start < a.end
