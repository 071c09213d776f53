"""The id grammar: which characters tenant, user, document, task and customer ids may hold.

An id is 1 to N characters (N per kind below), in Unicode NFC, starting with a letter or a
digit, and made only of letters (L*), combining marks (M*, never first), digits (N*) and the
three punctuation marks `-`, `_`, `.`. That leaves out, by construction: NUL and every control
character, whitespace (so no blank or whitespace-only id), zero-width and bidi-override
characters (format characters, Cf), and the separators of the evidence-id and chunk-id grammars
(`@`, `:`, `/`, `#`), so an id can never read as another id or another id's citation. Ids are
checked where they enter the store: corpus import, task creation, user accounts and grants.
"""

from __future__ import annotations

import unicodedata

from services.core.errors import InvalidInput

MAX_LENGTH = {
    "tenant_id": 64,
    "user_id": 128,
    "document_id": 200,
    "task_id": 128,
    "customer_id": 128,
}
PUNCTUATION = frozenset("-_.")
# A grant names one customer: `customer:ID` (roles are not grants, nor is `tenant`).
GRANT_PREFIX = "customer:"


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}{f' {name}' if name else ''}"


def id_problem(value: object, *, kind: str) -> str | None:
    """Why `value` is not a valid id of this kind, or None when it is."""
    if not isinstance(value, str):
        return f"must be a string, got {type(value).__name__}"
    limit = MAX_LENGTH[kind]
    if not value:
        return "must not be empty"
    if len(value) > limit:
        return f"{len(value)} characters, more than the limit of {limit}"
    for position, char in enumerate(value):
        category = unicodedata.category(char)
        allowed = category[0] in "LN" or char in PUNCTUATION or (category[0] == "M" and position)
        if not allowed:
            return (
                f"character {_describe(char)} at position {position} is not allowed "
                "(ids use letters, digits, '-', '_' and '.')"
            )
    if unicodedata.category(value[0])[0] not in "LN":
        return "must start with a letter or a digit"
    if unicodedata.normalize("NFC", value) != value:
        return "must be in Unicode NFC form"
    return None


def require_id(value: str, *, kind: str, label: str | None = None) -> str:
    """`value` unchanged, or InvalidInput naming the field (`label`, default the kind)."""
    problem = id_problem(value, kind=kind)
    if problem:
        raise InvalidInput(f"{label or kind} {value!r}: {problem}")
    return value


def grant_problem(grant: object) -> str | None:
    """Why `grant` is not a customer grant `customer:ID`, or None when it is."""
    if not isinstance(grant, str) or not grant.startswith(GRANT_PREFIX):
        return f"a grant looks like customer:C-ACME, got {grant!r}"
    problem = id_problem(grant[len(GRANT_PREFIX) :], kind="customer_id")
    return f"grant {grant!r}: the customer id {problem}" if problem else None


def require_grant(grant: str) -> str:
    problem = grant_problem(grant)
    if problem:
        raise InvalidInput(problem)
    return grant
