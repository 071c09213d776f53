"""What engineering must confirm: found in the evidence text itself, never invented.

An authoritative procedure that hands work to engineering ("工程部確認下列事項…", "engineering
must confirm the following") usually lists the points right after that sentence. Those list
lines become separate confirmation items, each citing its own line of the document (read through
the retriever's units, so each is an ordinary citation). If a procedure names engineering
without a list, the sentence itself is the item.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from services.contracts.memory_input import Need
from services.language.glossary import ENGINEERING_MARKERS, mentions, term
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


LinesOf = Callable[[str, int], list[Evidence]]


def find_items(
    needs: list[Need], evidence: dict[str, Evidence], lines_of: LinesOf
) -> list[EngineeringItem]:
    """Engineering items of the requirements this run looks up. `lines_of` gives the lines of a
    document version as citations (services.agents.documents): a list introduced by a cited
    engineering sentence becomes one item per list line, each citing its own line; without a
    list, the engineering sentences of the cited spans themselves are the items."""
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
        for cited in usable:
            single.extend(
                (need.key, cited.quote[start:end], cited)
                for start, end in sentences_with_spans(cited.quote)
                if _has_marker(cited.quote[start:end])
            )
        for document in dict.fromkeys((item.document_id, item.version) for item in usable):
            cited_here = [item for item in usable if (item.document_id, item.version) == document]
            listed.extend(
                (need.key, line.quote, line)
                for line in _listed(lines_of(*document), cited_here, need.key)
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


def _listed(lines: list[Evidence], cited: list[Evidence], need_key: str) -> list[Evidence]:
    """List lines after an engineering sentence that introduces them, where that sentence's
    line is one the need cited or one that names the need's topic."""
    found: list[Evidence] = []
    for index, line in enumerate(lines):
        intro = _last_sentence(line.quote)
        if _LIST_LINE.match(line.quote) or not _has_marker(intro) or not _INTRO.search(intro):
            continue
        relevant = any(c.start < line.end and line.start < c.end for c in cited) or mentions(
            line.quote, need_key
        )
        if not relevant:
            continue
        following = []
        for next_line in lines[index + 1 :]:
            if not _LIST_LINE.match(next_line.quote):
                break
            following.append(next_line)
        if len(following) >= 2:
            found.extend(following)
    return found


def _last_sentence(text: str) -> str:
    spans = sentences_with_spans(text)
    return text[spans[-1][0] : spans[-1][1]] if spans else text
