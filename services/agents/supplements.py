"""A supplement a person adds to a run: its one length limit, checked wherever a run is asked for.

A supplement is a customer's reply or a note, not a document (documents are imported as
evidence, README "Console tour"): the console, `memdesk resume --supplement` and every other
caller enqueue through `RunQueue.enqueue`, which applies this check, so no path is exempt.
"""

from __future__ import annotations

from services.core.errors import InvalidInput

MAX_SUPPLEMENT_CHARS = 4000


def checked_supplement(text: str | None) -> str | None:
    """The supplement as a run stores it (trimmed; None when blank), or InvalidInput naming the
    field when it is longer than the limit."""
    trimmed = (text or "").strip()
    if len(trimmed) > MAX_SUPPLEMENT_CHARS:
        raise InvalidInput(
            f"supplement: {len(trimmed)} characters, at most {MAX_SUPPLEMENT_CHARS}; "
            "attach long documents to the task as evidence instead"
        )
    return trimmed or None
