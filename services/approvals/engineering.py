"""What engineering must confirm: found in the evidence text itself, never invented.

An authoritative procedure that hands work to engineering ("工程部確認下列事項…", "engineering
must confirm the following") usually lists the points right after that sentence. Those list
lines become separate confirmation items, each citing the evidence it came from. If a procedure
names engineering without a list, the sentence itself is the item.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from services.contracts.memory_input import Need
from services.language.glossary import ENGINEERING_MARKERS, term
from services.language.sentences import looks_like_instruction, normalize, sentences_with_spans
from services.retrieval.types import Evidence

MAX_ITEMS = 12
# A sentence that introduces a list ("…確認下列事項：", "engineering confirms the following:").
_INTRO = re.compile(r"[：:]\s*$|下列|以下|如下|following|below", re.IGNORECASE)
_LIST_LINE = re.compile(
    r"^\s*(?:\d{1,2}\s*[.)、．]|[（(]\d{1,2}[)）]|[一二三四五六七八九十]{1,3}\s*[、.]|[-•・*])\s*\S"
)


class EngineeringItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    need: str
    text: str
    evidence_id: str
    document_id: str
    version: int


def _has_marker(text: str) -> bool:
    folded = normalize(text).lower()
    return any(marker.lower() in folded for marker in ENGINEERING_MARKERS)


def _lines(group: list[Evidence]) -> list[tuple[str, str]]:
    """(line, evidence_id) across adjacent chunks of one document version, without repeats."""
    seen: set[str] = set()
    lines: list[tuple[str, str]] = []
    for evidence in group:
        for line in evidence.quote.splitlines():
            text = line.strip()
            if text and text not in seen:
                seen.add(text)
                lines.append((text, evidence.evidence_id))
    return lines


def _adjacent_groups(evidence: Iterable[Evidence]) -> list[list[Evidence]]:
    by_version: dict[tuple[str, int], list[Evidence]] = {}
    for item in evidence:
        by_version.setdefault((item.document_id, item.version), []).append(item)
    groups: list[list[Evidence]] = []
    for items in by_version.values():
        items.sort(key=lambda e: e.start)
        current = [items[0]]
        for item in items[1:]:
            if item.start <= current[-1].end + 2:
                current.append(item)
            else:
                groups.append(current)
                current = [item]
        groups.append(current)
    return groups


def find_items(needs: list[Need], evidence: dict[str, Evidence]) -> list[EngineeringItem]:
    listed: list[tuple[str, str, Evidence]] = []
    single: list[tuple[str, str, Evidence]] = []
    for need in needs:
        # Engineering confirms requirements (special inspection, a test the customer asks for),
        # not every topic whose procedure happens to mention engineering.
        requirement = need.answer is True or (need.answer is None and term(need.key).kind == "flag")
        if not need.required or not requirement:
            continue
        usable = [
            evidence[eid]
            for eid in need.evidence_ids
            if eid in evidence and evidence[eid].knowledge_class == "fact"
        ]
        for group in _adjacent_groups(usable):
            by_id = {item.evidence_id: item for item in group}
            lines = _lines(group)
            for index, (line, evidence_id) in enumerate(lines):
                if not _has_marker(line) or _LIST_LINE.match(line) or not _INTRO.search(line):
                    single.extend(
                        (need.key, line[start:end], by_id[evidence_id])
                        for start, end in sentences_with_spans(line)
                        if _has_marker(line[start:end])
                    )
                    continue
                following = []
                for next_line, next_id in lines[index + 1 :]:
                    if not _LIST_LINE.match(next_line):
                        break
                    following.append((need.key, next_line, by_id[next_id]))
                if len(following) >= 2:
                    listed.extend(following)
                else:
                    single.extend(
                        (need.key, line[start:end], by_id[evidence_id])
                        for start, end in sentences_with_spans(line)
                        if _has_marker(line[start:end])
                    )
    chosen = listed or single
    items: list[EngineeringItem] = []
    seen: set[str] = set()
    for need_key, text, source in chosen:
        if text in seen or looks_like_instruction(text):
            continue
        seen.add(text)
        items.append(
            EngineeringItem(
                key=f"engineering-{len(items) + 1}",
                need=need_key,
                text=text,
                evidence_id=source.evidence_id,
                document_id=source.document_id,
                version=source.version,
            )
        )
        if len(items) == MAX_ITEMS:
            break
    return items
