"""Text diffs for the knowledge owner: side-by-side line rows and an inline character diff."""

from __future__ import annotations

import difflib
from typing import Literal

from pydantic import BaseModel, ConfigDict

RowKind = Literal["equal", "replace", "delete", "insert"]
SegmentKind = Literal["equal", "insert", "delete"]


class DiffRow(BaseModel):
    """One row of the side-by-side view; a missing side is None (an inserted or deleted line)."""

    model_config = ConfigDict(frozen=True)

    kind: RowKind
    left_no: int | None
    left: str | None
    right_no: int | None
    right: str | None


class DiffSegment(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: SegmentKind
    text: str


class TextDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    rows: list[DiffRow]
    inline: list[DiffSegment]
    added_chars: int
    removed_chars: int

    @property
    def changed(self) -> bool:
        return bool(self.added_chars or self.removed_chars)


def diff_texts(current: str, proposed: str) -> TextDiff:
    """`current` is the approved text ("" for a new document), `proposed` the candidate's."""
    inline = _inline(current, proposed)
    return TextDiff(
        rows=_rows(current.splitlines(), proposed.splitlines()),
        inline=inline,
        added_chars=sum(len(s.text) for s in inline if s.kind == "insert"),
        removed_chars=sum(len(s.text) for s in inline if s.kind == "delete"),
    )


def _rows(left: list[str], right: list[str]) -> list[DiffRow]:
    rows: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [
                DiffRow(kind="equal", left_no=i + 1, left=left[i], right_no=j + 1, right=right[j])
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        # A replaced block pairs its lines up; the longer side continues alone.
        for offset in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + offset, j1 + offset
            has_left, has_right = i < i2, j < j2
            kind: RowKind = (
                "replace" if has_left and has_right else "delete" if has_left else "insert"
            )
            rows.append(
                DiffRow(
                    kind=kind,
                    left_no=i + 1 if has_left else None,
                    left=left[i] if has_left else None,
                    right_no=j + 1 if has_right else None,
                    right=right[j] if has_right else None,
                )
            )
    return rows


def _inline(current: str, proposed: str) -> list[DiffSegment]:
    """Character level: Chinese text has no spaces to split words on."""
    segments: list[DiffSegment] = []
    matcher = difflib.SequenceMatcher(a=current, b=proposed, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            _append(segments, "equal", current[i1:i2])
            continue
        if i2 > i1:
            _append(segments, "delete", current[i1:i2])
        if j2 > j1:
            _append(segments, "insert", proposed[j1:j2])
    return segments


def _append(segments: list[DiffSegment], kind: SegmentKind, text: str) -> None:
    if segments and segments[-1].kind == kind:
        segments[-1] = DiffSegment(kind=kind, text=segments[-1].text + text)
    else:
        segments.append(DiffSegment(kind=kind, text=text))
