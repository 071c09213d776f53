"""Citable units of a document and the minimal span of a retrieved chunk that answers a query.

Retrieval ranks chunks, but evidence is cited at the size a reader checks: a sentence, a clause
or a list item, or a few consecutive ones. Units come from the authoritative body with their
offsets, so a span is an ordinary citation (`DOC@V:START-END`) and is re-verified like one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from services.language import tokens as text_analysis
from services.retrieval.chunker import PARAGRAPH_BREAK

# Sentence and list-item ends: CJK and Latin terminators, semicolons, line breaks. A Latin full
# stop ends a sentence when the next one begins (not with a small letter or a digit: "Max. gross
# weight", "approx. 5 kg") and the word it closes is not an abbreviation's shape — a capital and
# at most two small letters, an initial or a title ("Rev. C", "Mr. Chen", "No. 7", "J. Smith");
# an acronym (US, ISO) closes sentences like any word.
_UNIT_END = re.compile(
    r"(?<=[。！？!?；;\n])"
    r"|(?<=[^\s\d]\.)(?<!\b[A-Z]\.)(?<!\b[A-Z][a-z]\.)(?<!\b[A-Z][a-z]{2}\.)\s+(?![\sa-z0-9])"
)
# A unit longer than this is cut at clause punctuation, so a span stays readable.
MAX_UNIT_CHARS = 160
# (not inside a number: a time of day, 08:00, or thousands, 30,000)
_CLAUSE_BREAK = re.compile(r"(?<=[，：])|(?<=[,:])(?!\d)")
# A span may grow to this many units when the neighbours add what the query asks for.
MAX_SPAN_UNITS = 3
# A line this short without closing punctuation is a heading (or a greeting, a signature).
HEADING_MAX_CHARS = 40
_CLOSING = re.compile(r"[。！？!?；;.,，]$")


def units(text: str, *, offset: int = 0) -> list[tuple[int, int]]:
    """(start, end) of every citable unit of `text`, trimmed, shifted by `offset`."""
    found: list[tuple[int, int]] = []
    cursor = 0
    for piece in _UNIT_END.split(text):
        if not piece:
            continue
        start = text.find(piece, cursor)
        cursor = start + len(piece)
        for s, e in _cut_long(text, start, start + len(piece)):
            s, e = _trim(text, s, e)
            if e > s:
                found.append((s + offset, e + offset))
    return found


def best_span(
    body: str,
    start: int,
    end: int,
    score: Callable[[str], float],
    *,
    prior: Callable[[list[str]], list[float]] | None = None,
) -> tuple[int, int]:
    """The smallest run of consecutive units inside body[start:end] whose text scores best.

    The best single unit is taken — among equals the one `prior` ranks first (when the query's
    words are in none of them: another language), else the one that says more (a sentence, not
    a greeting or a signature) — then a neighbour joins while it raises the score (a heading and
    its item, a rule and the sentence naming its amount), up to MAX_SPAN_UNITS units. A heading
    never stands alone: it names a topic, the line under it is what is said about it; nor does a
    clause closed by a colon, which announces what follows (`_leads_in`). A table's row is
    scored read under the table's first row, its header: "| Orchid Room | 1,800 |" is a half
    day's rental under "| Venue | Half day |".
    """
    parts = units(body[start:end], offset=start)
    if not parts:
        return start, end
    texts = [body[s:e] for s, e in parts]
    scores = [
        score(text if (header := table_header(body, s)) is None else f"{header}\n{text}")
        for (s, _e), text in zip(parts, texts, strict=True)
    ]
    said = prior(texts) if prior is not None else [float(_substance(t)) for t in texts]
    first = max(range(len(parts)), key=lambda i: (scores[i], said[i], -i))
    lo = hi = first
    best = scores[first]
    if _leads_in(body, *parts[first]) and first + 1 < len(parts):
        hi = first + 1
        best = score(body[parts[lo][0] : parts[hi][1]])
    while hi - lo + 1 < MAX_SPAN_UNITS:
        options = []
        if lo > 0:
            options.append((score(body[parts[lo - 1][0] : parts[hi][1]]), lo - 1, hi))
        if hi + 1 < len(parts):
            options.append((score(body[parts[lo][0] : parts[hi + 1][1]]), lo, hi + 1))
        if not options:
            break
        gained, new_lo, new_hi = max(options)
        if gained <= best:
            break
        best, lo, hi = gained, new_lo, new_hi
    return parts[lo][0], parts[hi][1]


# A price list's row ("Handling ...... 18.00 per W/M") leads its label to its value with dots.
_LEADER = re.compile(r"\.{2,}|…")


def paragraphs(text: str) -> list[str]:
    """A text's runs of lines between blank lines, stripped."""
    return [p for paragraph in PARAGRAPH_BREAK.split(text) if (p := paragraph.strip())]


def headed_paragraphs(text: str) -> list[str]:
    """A text's paragraphs (its runs of lines between blank lines), each with the heading over
    it: a paragraph that is a heading alone ("## 4. Lifts", 「四、收費標準」) heads the paragraphs
    after it, up to the next such heading, and is not one of its own unless nothing follows it."""
    found: list[str] = []
    heading = ""
    headed = False
    for paragraph in paragraphs(text):
        if (
            "\n" not in paragraph
            and _is_heading(paragraph, 0, len(paragraph))
            and not _LEADER.search(paragraph)
        ):
            if heading and not headed:
                found.append(heading)
            heading, headed = paragraph, False
            continue
        found.append(f"{heading}\n{paragraph}" if heading else paragraph)
        headed = True
    if heading and not headed:
        found.append(heading)
    return found


def _substance(text: str) -> int:
    """How much a unit says: its letters, digits and CJK characters."""
    return sum(ch.isalnum() for ch in text)


def _leads_in(body: str, start: int, end: int) -> bool:
    """A unit that only leads to the next one: a heading, or a clause closed by a colon (「三、允收
    範圍：」, "regarding our drawing 4711-233 Rev. C (…):"), which announces what follows."""
    return _is_heading(body, start, end) or body[start:end].rstrip().endswith((":", "："))


def _is_heading(body: str, start: int, end: int) -> bool:
    """A short line of its own without closing punctuation ("3. Verified Gross Mass (VGM)"),
    or a run-in heading: a numbered title that opens a line and is followed on it by what it
    heads ("3. Team size. One person may carry…", 「三、交期。標準交期為…」). A table row
    ("MPN | LT | MOQ") is data, not a heading."""
    text = body[start:end].strip()
    if len(text) > HEADING_MAX_CHARS or "|" in text or "\t" in text:
        return False
    line_ends = end >= len(body) or body[end] in "\r\n"
    if line_ends:
        return not _CLOSING.search(text)
    opens_line = start == 0 or body[start - 1] in "\r\n"
    title = _NUMBERED.match(text)
    return opens_line and title is not None and len(_WORDS.findall(title.group(1))) <= RUN_IN_WORDS


# A numbered title: a section number, then a few words closed by a full stop.
_NUMBERED = re.compile(
    r"^(?:\d+(?:\.\d+)*[.)、．]?|[(（]?[a-zA-Z\d一二三四五六七八九十]+[)）、])\s*([^。.!?！？]+)[。.．]$"
)
# Words (Latin) or characters (CJK) a run-in title has at most: a title names, it does not say.
_WORDS = re.compile(f"[A-Za-z0-9]+|[{text_analysis.CJK}]")
RUN_IN_WORDS = 6


def _cut_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    if end - start <= MAX_UNIT_CHARS:
        return [(start, end)]
    pieces: list[tuple[int, int]] = []
    piece_start = start
    for match in _CLAUSE_BREAK.finditer(text, start, end):
        if match.end() - piece_start >= MAX_UNIT_CHARS // 2:
            pieces.append((piece_start, match.end()))
            piece_start = match.end()
    pieces.append((piece_start, end))
    return pieces


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# Cells of a table row: split at vertical bars or tabs, or at ideographic spaces (three cells or
# more: a single one also separates words).
_CELL_BAR = re.compile(r"\s*[|｜\t]\s*")
_CELL_SPACE = re.compile(r"\u3000+")
_CELL_MARKS = ("|", "｜", "\t", "\u3000")


def table_cells(line: str) -> list[str]:
    """The cells of a table row; no cells for a line that is not one."""
    if not any(mark in line for mark in _CELL_MARKS):
        return []  # most lines: read once per unit a span may start at, so kept cheap
    text = line.strip()
    if _CELL_BAR.search(text):
        return [c.strip() for c in _CELL_BAR.split(text)]
    cells = [c.strip() for c in _CELL_SPACE.split(text)]
    return cells if len(cells) >= 3 else []


# At most this many rows are added on either side of a section (a bound on the work, not a
# judgement: a table longer than that is read in the rows around what was retrieved).
TABLE_ROWS_ADDED = 50


def whole_tables(body: str, start: int, end: int) -> tuple[int, int]:
    """`start`-`end` widened to the table rows (lines `table_cells` splits) that continue a table
    its first or last line belongs to, up to a blank or other line."""
    text = body[start:end]
    if not text.strip():
        return start, end
    first = start + len(text) - len(text.lstrip())
    last = start + len(text.rstrip()) - 1
    row_end = line_end(body, last)
    if table_cells(body[line_start(body, last) : row_end]):
        for _ in range(TABLE_ROWS_ADDED):
            if row_end >= len(body):
                break
            following = line_end(body, row_end + 1)
            if not table_cells(body[row_end + 1 : following]):
                break
            row_end = following
        end = max(end, row_end)
    row_start = line_start(body, first)
    if table_cells(body[row_start : line_end(body, first)]):
        start = min(start, _first_row(body, row_start))
    return start, end


def table_header(body: str, at: int) -> str | None:
    """The first row of the table whose row starts at `at`, when that row is another one."""
    row_start = line_start(body, at)
    if not table_cells(body[row_start : line_end(body, at)]):
        return None
    first = _first_row(body, row_start)
    return body[first : line_end(body, first)] if first != row_start else None


def _first_row(body: str, row_start: int) -> int:
    """Where the table holding the row that starts at `row_start` begins (at most
    TABLE_ROWS_ADDED rows above it)."""
    for _ in range(TABLE_ROWS_ADDED):
        if row_start == 0:
            break
        preceding = line_start(body, row_start - 1)
        if not table_cells(body[preceding : row_start - 1]):
            break
        row_start = preceding
    return row_start


def line_start(body: str, at: int) -> int:
    """Where the line holding `at` starts."""
    return body.rfind("\n", 0, at) + 1


def line_end(body: str, at: int) -> int:
    """Where the line holding `at` ends (the body's end for its last line)."""
    end = body.find("\n", at)
    return len(body) if end < 0 else end
