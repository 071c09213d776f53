"""Reading a supplement against the task state, and deriving what this run must look up.

Everything here is deterministic: the supplement is data from the person who resumed the task.
It may answer a pending yes/no item, it may contradict a confirmed field (which becomes a
conflict for a person, never an overwrite), and it tells which topics to search for. Text in it
that tries to give instructions is recorded as such and otherwise ignored.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from services.agents.ports import Similarity
from services.agents.wording import IDENTIFIER, TaskWording
from services.contracts.memory_input import Need, NeedSource
from services.contracts.task_state import TaskState
from services.language import glossary
from services.language.phrases import phrases
from services.language.sentences import (
    asserted,
    clauses,
    instruction_clauses,
    is_cjk,
    looks_like_instruction,
    normalize,
    numbers,
    polarity,
)

MAX_CONTEXT_NEEDS = 3


class SupplementReading(BaseModel):
    model_config = ConfigDict(frozen=True)

    answers: dict[str, bool | str] = Field(
        default_factory=dict,
        description="Pending yes/no and choice items the supplement answered.",
    )
    addressed: list[str] = Field(
        default_factory=list, description="Pending items the supplement talks about."
    )
    contradictions: dict[str, Any] = Field(
        default_factory=dict, description="Confirmed field → the different value it states."
    )
    topics: list[str] = Field(default_factory=list, description="Glossary topics it asks about.")
    instruction_like: list[str] = Field(
        default_factory=list, description="Clauses that read as instructions (never obeyed)."
    )


def read_supplement(state: TaskState, supplement: str | None) -> SupplementReading:
    if not supplement or not supplement.strip():
        return SupplementReading()
    parts = clauses(supplement)
    # A sentence that instructs is set aside whole, with whatever values it carries.
    in_instructions = set(instruction_clauses(supplement))
    instruction_like = [
        part for part in parts if part in in_instructions or looks_like_instruction(part)
    ]
    plain = [part for part in parts if part not in instruction_like]
    answers: dict[str, bool | str] = {}
    addressed: list[str] = []
    for item in state.pending:
        mentioned = [part for part in plain if glossary.mentions(part, item)]
        if not mentioned:
            continue
        addressed.append(item)
        kind = glossary.term(item).kind
        if kind == "choice":
            option = glossary.chosen_option(" ".join(mentioned), item)
            if option is not None and polarity(" ".join(mentioned)) is not False:
                answers[item] = option
            continue
        if kind != "flag":
            continue
        for part in mentioned:
            answer = polarity(part)
            if answer is not None:
                answers[item] = answer
                break
    contradictions = {
        field: proposed
        for field, value in state.confirmed.items()
        if (proposed := _contradiction(field, value, plain)) is not None
    }
    topics = [
        key
        for key in glossary.topics_in(" ".join(plain))
        if key not in state.pending
        and key not in state.confirmed
        and any(glossary.raises(part, key) for part in plain)
    ]
    return SupplementReading(
        answers=answers,
        addressed=addressed,
        contradictions=contradictions,
        topics=topics,
        instruction_like=instruction_like,
    )


def contradictions(confirmed: dict[str, Any], text: str) -> dict[str, Any]:
    """Confirmed field → the different value `text` asserts for it (none when it agrees).
    Passages `text` quotes and references to its sources (`SOP-X v1`) are not assertions."""
    parts = clauses(asserted(text))
    return {
        field: proposed
        for field, value in confirmed.items()
        if (proposed := _contradiction(field, value, parts)) is not None
    }


def _contradiction(field: str, value: Any, parts: list[str]) -> Any:
    """The value the supplement states for a confirmed field, when it differs from it."""
    entry = glossary.term(field)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        for part in parts:
            stated = _stated_amounts(part, entry)
            if stated and Decimal(str(value)) not in stated:
                first = sorted(stated)[0]
                return int(first) if first == first.to_integral_value() else float(first)
        return None
    text = str(value)
    if not IDENTIFIER.fullmatch(text.strip()):
        return None
    family = re.match(r"[A-Za-z]+", text)
    for part in parts:
        named = glossary.mentions(part, field)
        if text.lower() in normalize(part).lower():
            continue
        for token in IDENTIFIER.findall(normalize(part)):
            same_family = family is not None and token.lower().startswith(family.group(0).lower())
            if named or same_family:
                return token
    return None


def _stated_amounts(part: str, entry: glossary.Term) -> set[Decimal]:
    if glossary.mentions(part, entry.key):
        return numbers(part)
    if not entry.units:
        return set()
    folded = normalize(part)
    units = "|".join(re.escape(unit) for unit in entry.units)
    found = re.findall(r"(\d{1,3}(?:,\d{3})+|\d+)\s*(?:" + units + r")(?![A-Za-z])", folded)
    return {Decimal(amount.replace(",", "")) for amount in found}


class Search(BaseModel):
    """One need and how to look for it: by its query, and for a field the glossary does not
    know, after its name's own search, by the task's `phrase` naming it or the embedding's
    `pick` of its phrases (services.agents.gathering.search_tries)."""

    model_config = ConfigDict(frozen=True)

    need: Need
    by_name: str | None = None  # the query made of the field's name
    phrase: str | None = None
    pick: str | None = None
    # The query with only one of the field's Chinese words (glossary.chinese_forms), tried
    # when the query with both found too little.
    variants: tuple[str, ...] = ()


def plan_needs(
    state: TaskState,
    reading: SupplementReading,
    supplement: str | None,
    task_documents: list[str],
    *,
    notes: tuple[str, ...] = (),
    similarity: Similarity | None = None,
) -> list[Need]:
    """The needs of `plan_searches`."""
    return [
        search.need
        for search in plan_searches(
            state, reading, supplement, task_documents, notes=notes, similarity=similarity
        )
    ]


def plan_searches(
    state: TaskState,
    reading: SupplementReading,
    supplement: str | None,
    task_documents: list[str],
    *,
    notes: tuple[str, ...] = (),
    similarity: Similarity | None = None,
) -> list[Search]:
    """What to search for: pending work and confirmed requirements first (required), then topics
    the supplement asks about as work of their own (required), then the codes it names and the
    topics the task's own documents raise (context only: their absence does not make evidence
    insufficient). `notes` (the task's recorded next step) raise topics too, but never decide
    the task's language: they are the system's words ("retry scheduled after: …"), not the
    customer's. A field the glossary does not know is searched in the task's own words for it,
    ranked by `similarity` where words cannot be compared (services.agents.wording)."""
    chinese = glossary.prefers_chinese(supplement, *task_documents)
    plain = [
        part for part in clauses(supplement or "") if part not in set(reading.instruction_like)
    ]
    wording = TaskWording(plain, task_documents, similarity)
    searches: list[Search] = []
    # Declined requirements and answered choices need no evidence; the workflow marker is
    # settled by approvals.
    pending = [
        item
        for item in state.pending
        if reading.answers.get(item) in (None, True) and item != glossary.ENGINEERING_PENDING
    ]
    # A requirement confirmed as "yes" still needs its procedure found (what it entails).
    required_flags = [
        key
        for key, value in state.confirmed.items()
        if value is True and glossary.term(key).kind == "flag" and key not in pending
    ]
    pending += required_flags
    for item in pending:
        about = [part for part in plain if glossary.mentions(part, item)]
        if not about and len(pending) == 1:
            about = plain  # the only open item: the supplement is about it
        searches.append(
            _search(
                state,
                item,
                wording,
                chinese=chinese,
                clauses_=about,
                required=True,
                source="confirmed" if item in required_flags else "pending",
                answer=True if item in required_flags or reading.answers.get(item) else None,
            )
        )
    for topic in asked_topics(reading.topics, plain, pending, wording):
        about = [part for part in plain if glossary.mentions(part, topic)]
        searches.append(
            _search(
                state,
                topic,
                wording,
                chinese=chinese,
                clauses_=about,
                required=True,
                source="supplement",
            )
        )
    searches += _named_codes(state, plain, searches)
    known = {s.need.key for s in searches} | set(state.confirmed) | set(reading.answers)
    raised = " ".join([*task_documents, *notes])
    context = [key for key in glossary.topics_in(raised) if key not in known]
    for topic in context[:MAX_CONTEXT_NEEDS]:
        searches.append(
            _search(
                state,
                topic,
                wording,
                chinese=chinese,
                clauses_=[],
                required=False,
                source="mentioned",
            )
        )
    return searches


def _named_codes(state: TaskState, plain: list[str], searches: list[Search]) -> list[Search]:
    """Codes the supplement names (a deviation report, a registration number) other than the
    task's own id, that no confirmed field holds and no search already asks for: each is
    looked up as context, so the records the person points to are read (their absence proves
    nothing)."""
    held = " ".join(
        [state.task_id, *map(str, state.confirmed.values()), *(s.need.query for s in searches)]
    )
    held = held.lower()
    codes = dict.fromkeys(IDENTIFIER.findall(normalize(" ".join(plain))))
    return [
        Search(need=Need(key=code, label=code, query=code, required=False, source="supplement"))
        for code in [code for code in codes if code.lower() not in held][:MAX_CONTEXT_NEEDS]
    ]


def asked_topics(
    topics: list[str], plain: list[str], pending: list[str], wording: TaskWording
) -> list[str]:
    """The glossary topics the supplement raises as work of their own. A topic named only in
    clauses that are about a pending item describes that item ("price the freight" is about
    the pending freight rate, not a unit price; "finish the quote" is not a surface finish)."""
    asked: list[str] = []
    for topic in topics:
        naming = [part for part in plain if glossary.mentions(part, topic)]
        own = [
            part
            for part in naming
            if not any(wording.closer_to_pending(p, pending, topic) for p in phrases(part))
        ]
        if own or not naming:
            asked.append(topic)
    return asked


def _query_words(key: str, clauses_: list[str]) -> list[str]:
    """What the person's words add to a search for `key`. For a glossary topic: the topic's own
    phrases they use (硬陽極 narrows 表面處理) and the identifiers they name, never the rest of
    the sentence: "客戶詢問…與交期" would make retrieval look for 客戶 and 詢問, words no
    procedure needs to contain."""
    text = normalize(" ".join(clauses_))
    folded = text.lower()
    words = [phrase for phrase in glossary.term(key).phrases if phrase.lower() in folded]
    words += IDENTIFIER.findall(text)
    return list(dict.fromkeys(words))


def _search(
    state: TaskState,
    key: str,
    wording: TaskWording,
    *,
    chinese: bool,
    clauses_: list[str],
    required: bool,
    source: NeedSource,
    answer: bool | None = None,
) -> Search:
    need = _need(
        state,
        key,
        chinese=chinese,
        clauses_=clauses_,
        required=required,
        source=source,
        answer=answer,
    )
    if key in glossary.GLOSSARY:
        return Search(need=need, variants=_variants(need.query, key) if chinese else ())
    # A field the glossary does not know: the task's own words for it (services.agents.wording).
    others = [item for item in state.pending if item != key]
    words = wording.words_for(key, chinese=chinese, others=others)
    return Search(
        need=need.model_copy(update={"query": words.name}),
        by_name=words.name,
        phrase=words.phrase,
        pick=words.pick,
    )


def _variants(query: str, key: str) -> tuple[str, ...]:
    forms = glossary.chinese_forms(key)
    words = query.split()
    return tuple(
        " ".join(w for w in words if w == form or w not in forms) for form in forms if form in words
    )


def _need(
    state: TaskState,
    key: str,
    *,
    chinese: bool,
    clauses_: list[str],
    required: bool,
    source: NeedSource,
    answer: bool | None = None,
) -> Need:
    entry = glossary.term(key)
    scope = [str(state.confirmed[field]) for field in entry.scope if field in state.confirmed]
    phrase = glossary.search_phrase(key, chinese=chinese)
    # A confirmed value narrows the search when it names a thing (SUS304) or is written in the
    # query's language; "passivation" in a Chinese query is a word no Chinese span contains.
    narrowing = [v for v in scope if glossary.is_identifier(v) or is_cjk(v) == chinese]
    said = _query_words(key, clauses_) if key in glossary.GLOSSARY else []
    words = [w for w in said if w.lower() not in phrase.lower()]
    query = " ".join(dict.fromkeys([phrase, *narrowing, *words])).strip()
    return Need(
        key=key,
        label=glossary.label(key, chinese=chinese),
        query=query,
        required=required,
        scope=[value for value in scope if glossary.is_identifier(value)],
        source=source,
        answer=answer,
    )
