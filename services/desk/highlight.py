"""Split a document body into plain and highlighted segments at citation offsets."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from services.core.errors import InvalidInput


class Segment(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    highlight: bool = False
    start: int
    end: int


def segments(body: str, spans: list[tuple[int, int]]) -> list[Segment]:
    """Consecutive segments covering `body` exactly; overlapping or touching spans merge.

    Offsets are Python string indices (code points) into the body as stored, the same
    positions a citation's (start, end) names. A span outside the body is an error, never
    clamped: a citation that does not resolve must be visible as such.
    """
    for start, end in spans:
        if not 0 <= start <= end <= len(body):
            raise InvalidInput(f"span {start}-{end} is outside a body of {len(body)} characters")
    merged: list[tuple[int, int]] = []
    for start, end in sorted(span for span in spans if span[0] < span[1]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    result: list[Segment] = []
    cursor = 0
    for start, end in merged:
        if start > cursor:
            result.append(Segment(text=body[cursor:start], start=cursor, end=start))
        result.append(Segment(text=body[start:end], highlight=True, start=start, end=end))
        cursor = end
    if cursor < len(body) or not result:
        result.append(Segment(text=body[cursor:], start=cursor, end=len(body)))
    return result
