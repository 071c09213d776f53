"""Phrases: clauses cut where a list or a conjunction joins several things, so each names one.

「请把脏设备保持时间和残留限度定下来」 asks about two items; searching for either with the whole
clause would ask every answer to contain the other's words too. The cuts are closed-class only:
the list comma 、, English "and" / "or", and the Chinese coordinating conjunctions where a
general-purpose segmenter reads them as words of their own (和 in 时间和限度, not in 总和) —
never the vocabulary of a corpus.
"""

from __future__ import annotations

import re

import jieba.posseg

from services.language import tokens
from services.language.sentences import clauses

# 、 between digits lists values (「0、3、6个月」), not things.
_LIST_MARK = re.compile(
    r"(?<!\d)、|、(?!\d)|[；;]|(?<![A-Za-z0-9])(?:and|or)(?![A-Za-z0-9])", re.IGNORECASE
)
# Coordinating conjunctions (Simplified; texts are folded before segmenting).
_CONJUNCTIONS = frozenset({"和", "及", "以及", "与", "或", "或者", "并且", "而且"})
_EDGE = " \t\r\n,.;:!?，。；：！？、-–—"
_HAN = re.compile(r"[\u4e00-\u9fff]")


def phrases(text: str) -> list[str]:
    """The phrases of `text` in order, trimmed of the punctuation around them."""
    found: list[str] = []
    for clause in clauses(text):
        found += [piece for piece in _cut(clause) if piece]
    return found


def _cut(clause: str) -> list[str]:
    points = sorted({*_list_marks(clause), *_conjunctions(clause)})
    pieces: list[str] = []
    start = 0
    for cut_start, cut_end in points:
        if cut_start < start:
            continue
        pieces.append(clause[start:cut_start].strip(_EDGE))
        start = cut_end
    pieces.append(clause[start:].strip(_EDGE))
    return pieces


def _list_marks(clause: str) -> list[tuple[int, int]]:
    return [match.span() for match in _LIST_MARK.finditer(clause)]


def _conjunctions(clause: str) -> list[tuple[int, int]]:
    """Where the segmenter reads a Chinese conjunction (offsets into `clause`)."""
    if not _HAN.search(clause):
        return []
    simplified = tokens.normalize_script(clause)
    if len(simplified) != len(clause):  # offsets would not line up; keep the clause whole
        return []
    if not any(word in simplified for word in _CONJUNCTIONS):
        return []  # the segmenter can only read a conjunction where its characters stand
    tokens.content_words("")  # loads the segmenter quietly (it logs its dictionary load)
    spans: list[tuple[int, int]] = []
    at = 0
    for piece in jieba.posseg.cut(simplified):
        end = at + len(piece.word)
        if piece.word in _CONJUNCTIONS:
            spans.append((at, end))
        at = end
    return spans
