"""Splits document bodies into citable chunks on sentence/paragraph boundaries, with offsets."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_CHARS = 300
# A paragraph break closes a chunk once it holds this much, so chunks follow the author's sections.
PARAGRAPH_MIN_CHARS = 120
CHUNKER_VERSION = f"sentences-{MAX_CHARS}-v1"

# Sentence ends: CJK and Latin terminators (with closing quotes/brackets), or a line break.
_SENTENCE_END = re.compile(
    r"[。！？!?；;][」』）)\]】\"'”’]*"
    r"|(?<=[^\s\d])\.[\"'”’)\]]*(?=\s|$)"
    r"|\n"
)
# A blank line (spaces allowed) ends a paragraph; spans reads paragraphs by the same mark.
PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_SOFT_BREAK = re.compile(r"[，、,:：]\s*|\s+")


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    start: int
    end: int
    text: str


def chunk_text(body: str, *, max_chars: int = MAX_CHARS) -> list[Chunk]:
    """Chunks whose `body[start:end] == text`; no chunk starts or ends inside a character."""
    spans = _pack(body, _sentences(body), max_chars)
    chunks: list[Chunk] = []
    for start, end in spans:
        start, end = _trim(body, start, end)
        if end > start:
            chunks.append(Chunk(ordinal=len(chunks), start=start, end=end, text=body[start:end]))
    return chunks


def _sentences(body: str) -> list[tuple[int, int, bool]]:
    """(start, end, paragraph_ends_here) for every sentence, covering the whole body."""
    paragraph_ends = {m.start() for m in PARAGRAPH_BREAK.finditer(body)}
    out: list[tuple[int, int, bool]] = []
    start = 0
    for match in _SENTENCE_END.finditer(body):
        # A mark that attaches to the sentence's last character ("!́") belongs to this sentence.
        end = _cluster_end(body, match.end())
        if end > start and body[start:end].strip():
            out.append((start, end, match.start() in paragraph_ends))
            start = end
    if start < len(body) and body[start:].strip():
        out.append((start, len(body), True))
    return out


def _pack(
    body: str, sentences: list[tuple[int, int, bool]], max_chars: int
) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for start, end, paragraph_end in sentences:
        for piece in _split_long(body, start, end, max_chars):
            if current is not None and _visible(body, current[0], piece[1]) > max_chars:
                spans.append(current)
                current = None
            current = piece if current is None else (current[0], piece[1])
        if (
            current is not None
            and paragraph_end
            and _visible(body, *current) >= PARAGRAPH_MIN_CHARS
        ):
            spans.append(current)
            current = None
    if current is not None:
        spans.append(current)
    return spans


def _split_long(body: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """A sentence longer than a chunk is cut at clause punctuation or spaces, else hard-cut."""
    pieces = []
    while _visible(body, start, end) > max_chars:
        limit = start + max_chars
        cut = None
        for match in _SOFT_BREAK.finditer(body, start + max_chars // 3, limit):
            cut = match.end()
        cut = _safe_cut(body, cut if cut and cut > start else limit)
        if cut <= start:  # one unsplittable cluster longer than a chunk: keep it whole
            cut = _cluster_end(body, limit)
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def _safe_cut(body: str, cut: int) -> int:
    """Move a cut left so that combining marks, joiners and variation selectors stay attached."""
    while 0 < cut < len(body) and (_attaches_to_previous(body[cut]) or body[cut - 1] == "\u200d"):
        cut -= 1
    return cut


def _cluster_end(body: str, cut: int) -> int:
    while cut < len(body) and (_attaches_to_previous(body[cut]) or body[cut - 1] == "\u200d"):
        cut += 1
    return cut


def _attaches_to_previous(ch: str) -> bool:
    return (
        unicodedata.combining(ch) != 0
        or unicodedata.category(ch) in ("Mn", "Me", "Mc")
        or ch in "\u200d\ufe0e\ufe0f"
        or "\U0001f3fb" <= ch <= "\U0001f3ff"  # skin-tone modifiers
        or "\udc00" <= ch <= "\udfff"  # a low surrogate never stands alone
    )


def _visible(body: str, start: int, end: int) -> int:
    return len(body[start:end].strip())


def _trim(body: str, start: int, end: int) -> tuple[int, int]:
    while start < end and body[start].isspace():
        start += 1
    while end > start and body[end - 1].isspace():
        end -= 1
    return start, end
