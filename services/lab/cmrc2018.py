"""CMRC 2018 (SQuAD-format Chinese reading comprehension) → corpus@1 + golden@1, deterministically.

The conversion is fixed so that every run, on every machine, asks the same questions of the
same documents:

* passages are taken in the file's order (`data[].paragraphs[]`); passage i becomes one approved
  `fact` document, id = the passage id, title = its article title, body = its context unchanged
  (so answer offsets stay valid), language zh-Hans, tenant `CMRC`;
* passages are paired (0, 1), (2, 3), ...; in the *split* corpus the second passage of every pair
  is readable by `role:engineer` only, so the sales user can read exactly every other passage;
* N questions are spread evenly over the pairs: ceil(N/2) pairs at evenly spaced pair positions,
  and from each chosen pair one question of each passage (the first N of them), so a split run
  has as many answerable as unanswerable questions. The question taken from a passage is its
  (s mod its question count)-th, s being the pair's position in the selection, so questions
  come from every part of the passages rather than always the first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from services.core.errors import InvalidInput

TENANT = "CMRC"
SALES_USER = "cmrc.sales"
ENGINEER_USER = "cmrc.engineer"
OWNER_USER = "cmrc.owner"
VALID_FROM = "2019-01-01"
AS_OF = "2026-01-01"
K = 5
READABLE_ACL = ["tenant"]
ENGINEER_ACL = ["role:engineer"]


@dataclass(frozen=True)
class Question:
    question_id: str
    text: str
    answer: str  # answers[0].text, a span of the passage


@dataclass(frozen=True)
class Passage:
    ordinal: int
    passage_id: str
    title: str
    context: str
    questions: tuple[Question, ...]

    @property
    def engineer_only_in_split(self) -> bool:
        return self.ordinal % 2 == 1


@dataclass(frozen=True)
class Selected:
    """One evaluation question and the passage that answers it."""

    question: Question
    passage: Passage


def read_squad(path: Path) -> list[Passage]:
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read the dataset ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path}: not UTF-8 text ({exc.reason})") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    return parse_squad(data, source=str(path))


def parse_squad(data: Any, *, source: str) -> list[Passage]:
    """Passages in file order; every field the conversion uses is checked and named on error."""
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise InvalidInput(f"{source}: expected a SQuAD object with a 'data' list")
    passages: list[Passage] = []
    seen: set[str] = set()
    for a, article in enumerate(data["data"]):
        where = f"{source}: data[{a}]"
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            raise InvalidInput(f"{where}: expected an object with a 'paragraphs' list")
        title = str(article.get("title") or "").strip()
        for p, paragraph in enumerate(article["paragraphs"]):
            passage = _passage(paragraph, f"{where}.paragraphs[{p}]", len(passages), title)
            if passage.passage_id in seen:
                raise InvalidInput(f"{where}.paragraphs[{p}].id: duplicate {passage.passage_id}")
            seen.add(passage.passage_id)
            passages.append(passage)
    if not passages:
        raise InvalidInput(f"{source}: no passages")
    return passages


def _passage(paragraph: Any, where: str, ordinal: int, title: str) -> Passage:
    if not isinstance(paragraph, dict):
        raise InvalidInput(f"{where}: expected an object")
    passage_id, context = paragraph.get("id"), paragraph.get("context")
    if not isinstance(passage_id, str) or not passage_id.strip():
        raise InvalidInput(f"{where}.id: a non-empty string is required")
    if not isinstance(context, str) or not context.strip():
        raise InvalidInput(f"{where} ({passage_id}).context: a non-empty string is required")
    questions = []
    for q, qa in enumerate(paragraph.get("qas") or []):
        label = f"{where} ({passage_id}).qas[{q}]"
        answers = qa.get("answers") if isinstance(qa, dict) else None
        if not isinstance(qa, dict) or not isinstance(qa.get("question"), str) or not answers:
            raise InvalidInput(f"{label}: a question and at least one answer are required")
        answer = answers[0].get("text") if isinstance(answers[0], dict) else None
        if not isinstance(answer, str) or not answer or answer not in context:
            raise InvalidInput(f"{label}.answers[0].text: must be a non-empty span of the context")
        questions.append(
            Question(str(qa.get("id") or f"{passage_id}_Q{q}"), qa["question"], answer)
        )
    return Passage(ordinal, passage_id, title or passage_id, context, tuple(questions))


def select_questions(passages: list[Passage], count: int) -> list[Selected]:
    """`count` questions spread evenly over passage pairs (module docstring), in a fixed order."""
    pairs = [(passages[i], passages[i + 1]) for i in range(0, len(passages) - 1, 2)]
    pairs = [pair for pair in pairs if pair[0].questions and pair[1].questions]
    if count < 2:
        raise InvalidInput(f"--questions must be at least 2, got {count}")
    if count > 2 * len(pairs):
        raise InvalidInput(
            f"--questions {count}: the dataset has {len(pairs)} passage pairs with questions, "
            f"so at most {2 * len(pairs)} questions (one per passage)"
        )
    wanted = math.ceil(count / 2)
    chosen: list[Selected] = []
    for slot in range(wanted):
        pair = pairs[slot * len(pairs) // wanted]
        for passage in pair:
            question = passage.questions[slot % len(passage.questions)]
            chosen.append(Selected(question, passage))
    return chosen[:count]


def corpus(passages: list[Passage], *, split: bool) -> dict[str, Any]:
    """corpus@1: one tenant, one approved fact document per passage. With `split`, every second
    passage is readable only by `role:engineer`."""
    return passage_corpus(
        passages,
        split=split,
        tenant_name="CMRC 2018 dev (Chinese Wikipedia passages)",
        language="zh-Hans",
        users=[
            (SALES_USER, "CMRC sales user", "sales"),
            (ENGINEER_USER, "CMRC engineer", "engineer"),
            (OWNER_USER, "CMRC knowledge owner", "knowledge_owner"),
        ],
    )


class Readable(Protocol):
    """A passage as a corpus document (CMRC's and SQuAD's passages alike)."""

    @property
    def passage_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def context(self) -> str: ...
    @property
    def engineer_only_in_split(self) -> bool: ...


def passage_corpus(
    passages: Sequence[Readable],
    *,
    split: bool,
    tenant_name: str,
    language: str,
    users: Sequence[tuple[str, str, str]],
    tenant: str = TENANT,
) -> dict[str, Any]:
    """corpus@1 of a public dataset: one tenant, one approved fact document per passage, the
    users as (user id, display name, role); with `split`, every second passage is readable only
    by `role:engineer`."""
    documents = [
        {
            "document_id": p.passage_id,
            "version": 1,
            "tenant_id": tenant,
            "doc_type": "note",
            "knowledge_class": "fact",
            "status": "approved",
            "valid_from": VALID_FROM,
            "valid_to": None,
            "acl": ENGINEER_ACL if split and p.engineer_only_in_split else READABLE_ACL,
            "language": language,
            "title": p.title,
            "body": p.context,
            "customer_id": None,
            "approved_by": next(u for u, _, role in users if role == "knowledge_owner"),
        }
        for p in passages
    ]
    return {
        "schema_version": "corpus@1",
        "tenants": [{"tenant_id": tenant, "name": tenant_name}],
        "users": [
            {
                "user_id": user_id,
                "tenant_id": tenant,
                "display_name": name,
                "roles": [role],
                "grants": [],
            }
            for user_id, name, role in users
        ],
        "documents": documents,
        "tasks": [],
    }


def golden(selected: list[Selected], *, split: bool, traditional: bool = False) -> dict[str, Any]:
    """golden@1 retrieval cases for the sales user: the question's passage is relevant (or, when
    it is engineer-only in the split, forbidden, and the expected status insufficient_evidence)."""
    cases = []
    for item in selected:
        hidden = split and item.passage.engineer_only_in_split
        ref = f"{item.passage.passage_id}@1"
        cases.append(
            {
                "case_id": item.question.question_id,
                "kind": "retrieval",
                "user_id": SALES_USER,
                "query": to_traditional(item.question.text) if traditional else item.question.text,
                "k": K,
                "relevant": [] if hidden else [ref],
                "forbidden": [ref] if hidden else [],
                "expect_status": "insufficient_evidence" if hidden else "ok",
                "answer": item.question.answer,
            }
        )
    name = "cmrc2018-dev" + ("-split" if split else "") + ("-hant" if traditional else "")
    return {
        "schema_version": "golden@1",
        "dataset_id": f"{name}@{len(selected)}",
        "as_of": AS_OF,
        "cases": cases,
    }


def to_traditional(text: str) -> str:
    """Simplified → Traditional (Taiwan, with Taiwanese phrasing): OpenCC `s2twp`."""
    return str(_s2twp().convert(text))


_CONVERTER: list[Any] = []


def _s2twp() -> Any:
    if not _CONVERTER:
        import opencc

        _CONVERTER.append(opencc.OpenCC("s2twp"))
    return _CONVERTER[0]


def squad_slice(data: dict[str, Any], *, passages: int) -> dict[str, Any]:
    """A smaller SQuAD file: `passages` evenly spaced passages (in pairs, so the split keeps one
    readable and one engineer-only passage of each), each with its article title and questions."""
    flat = [(article, paragraph) for article in data["data"] for paragraph in article["paragraphs"]]
    pair_count = len(flat) // 2
    wanted = max(1, passages // 2)
    articles = []
    for slot in range(wanted):
        first = 2 * (slot * pair_count // wanted)
        for article, paragraph in flat[first : first + 2]:
            articles.append({"title": article.get("title", ""), "paragraphs": [paragraph]})
    return {"version": data.get("version", ""), "data": articles}
