"""Clauses that qualify other clauses: when a cited rule's own document makes an exception.

A rule ("standard lead time 15 days") is often followed, in the same document, by a clause
that sets it aside under a condition ("orders with special inspection do not use the standard
lead time"; "…除外"; "unless …"). Such a clause applies to a task when it is about the same topic
as the rule and names something the task has: a requirement confirmed as yes or still pending,
or a confirmed identifier (the material, the part number). Then the draft states the exception,
with its own citation, and review refuses a claim that states the rule alone.

Recognising a qualifying clause uses closed-class words of each language only
(services.language.sentences.qualifies); topics come from the glossary.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.agents.documents import DocumentReader, overlaps
from services.language import glossary
from services.language.sentences import normalize, qualifies
from services.retrieval.types import Evidence


def task_facts(confirmed: dict[str, Any], pending: Iterable[str]) -> tuple[set[str], set[str]]:
    """What the task has: requirement keys that hold (confirmed yes, or pending), and the
    confirmed identifiers (lower case)."""
    holding = {key for key, value in confirmed.items() if value is True}
    holding |= {
        key for key in pending if key not in confirmed and key != glossary.ENGINEERING_PENDING
    }
    identifiers = {
        str(value).strip().lower()
        for value in confirmed.values()
        if isinstance(value, str) and glossary.is_identifier(value)
    }
    return holding, identifiers


def triggers(text: str, facts: tuple[set[str], set[str]], *, besides: set[str]) -> list[str]:
    """The task's facts a clause names, other than the topics in `besides`."""
    holding, identifiers = facts
    folded = normalize(text).lower()
    named = [key for key in sorted(holding - besides) if glossary.mentions(text, key)]
    named += [value for value in sorted(identifiers) if value in folded]
    return named


def topics(text: str) -> set[str]:
    return set(glossary.topics_in(text))


def exceptions_to(
    rule: Evidence,
    about: set[str],
    facts: tuple[set[str], set[str]],
    reader: DocumentReader,
) -> list[Evidence]:
    """Clauses of `rule`'s document that qualify it for this task: each is about one of the
    topics `about` (the rule's), is a qualifying clause, and names a fact of the task that the
    rule itself does not name. Returned as whole statements (the clause and what it requires)."""
    if not about:
        return []
    units = reader.units(rule.document_id, rule.version)
    rule_names = set(triggers(rule.quote, facts, besides=set()))
    found: list[Evidence] = []
    for index, unit in enumerate(units):
        if overlaps(unit, rule) or any(overlaps(unit, seen) for seen in found):
            continue
        if not qualifies(unit.quote) or not any(glossary.mentions(unit.quote, t) for t in about):
            continue
        named = set(triggers(unit.quote, facts, besides=about)) - rule_names
        if named:
            found.append(reader.statement(units, index))
    return found
