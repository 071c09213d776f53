"""SQuAD 2.0 (English reading comprehension with unanswerable questions) → corpus@1 + golden@1.

The second public dataset of `memdesk eval-public`: what is fitted on CMRC 2018 (Chinese) is
validated here, on English Wikipedia passages written and questioned by other people. The
conversion is fixed, like CMRC's (services.lab.cmrc2018):

* passages are taken in file order; passage i becomes one approved `fact` document, id
  `SQ2-<article>-<paragraph>` (SQuAD paragraphs have no ids), title = its article title, body =
  its context unchanged, language en, tenant `SQUAD2`;
* in the *split* corpus every second passage is readable by `role:engineer` only;
* every answerable question is asked (expected `ok`, or in the split `insufficient_evidence`
  when its passage is the hidden one);
* SQuAD's own unanswerable questions (`is_impossible`) are asked of the all-readable corpus:
  their passage is readable and on topic, written to tempt, and still does not answer them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.core.errors import InvalidInput
from services.lab.cmrc2018 import (
    AS_OF,
    ENGINEER_USER,
    OWNER_USER,
    SALES_USER,
    K,
    passage_corpus,
)

TENANT = "SQUAD2"
__all__ = ["TENANT", "USER", "K", "Passage", "Question", "corpus", "golden", "impossible_golden"]


@dataclass(frozen=True)
class Question:
    question_id: str
    text: str
    answer: str | None  # answers[0].text; None for an unanswerable question


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


def read(path: Path) -> list[Passage]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read the dataset ({exc.strerror})") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"{path}: not a UTF-8 JSON file ({exc})") from exc
    return parse(data, source=str(path))


def parse(data: Any, *, source: str) -> list[Passage]:
    """Passages in file order; every field the conversion uses is checked and named on error."""
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise InvalidInput(f"{source}: expected a SQuAD object with a 'data' list")
    passages: list[Passage] = []
    for a, article in enumerate(data["data"]):
        where = f"{source}: data[{a}]"
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            raise InvalidInput(f"{where}: expected an object with a 'paragraphs' list")
        title = str(article.get("title") or "").replace("_", " ").strip() or f"Article {a}"
        for p, paragraph in enumerate(article["paragraphs"]):
            passages.append(
                _passage(paragraph, f"{where}.paragraphs[{p}]", len(passages), a, p, title)
            )
    if not passages:
        raise InvalidInput(f"{source}: no passages")
    return passages


def _passage(paragraph: Any, where: str, ordinal: int, a: int, p: int, title: str) -> Passage:
    if not isinstance(paragraph, dict):
        raise InvalidInput(f"{where}: expected an object")
    context = paragraph.get("context")
    if not isinstance(context, str) or not context.strip():
        raise InvalidInput(f"{where}.context: a non-empty string is required")
    questions = [
        _question(qa, f"{where}.qas[{q}]", context)
        for q, qa in enumerate(paragraph.get("qas") or [])
    ]
    return Passage(ordinal, f"SQ2-{a:02d}-{p:03d}", title, context, tuple(questions))


def _question(qa: Any, where: str, context: str) -> Question:
    if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
        raise InvalidInput(f"{where}: a question is required")
    question_id = str(qa.get("id") or where)
    if qa.get("is_impossible"):
        return Question(question_id, qa["question"], None)
    answers = qa.get("answers") or []
    answer = answers[0].get("text") if answers and isinstance(answers[0], dict) else None
    if not isinstance(answer, str) or not answer or answer not in context:
        raise InvalidInput(f"{where}.answers[0].text: must be a non-empty span of the context")
    return Question(question_id, qa["question"], answer)


def corpus(passages: list[Passage], *, split: bool) -> dict[str, Any]:
    """corpus@1: one tenant, one approved fact document per passage; with `split`, every second
    passage is readable only by `role:engineer`."""
    return passage_corpus(
        passages,
        split=split,
        tenant=TENANT,
        tenant_name="SQuAD 2.0 dev (English Wikipedia passages)",
        language="en",
        users=[
            (_squad(SALES_USER), "SQuAD sales user", "sales"),
            (_squad(ENGINEER_USER), "SQuAD engineer", "engineer"),
            (_squad(OWNER_USER), "SQuAD knowledge owner", "knowledge_owner"),
        ],
    )


def _squad(user_id: str) -> str:
    return user_id.replace("cmrc.", "squad.")


USER = _squad(SALES_USER)


def golden(passages: list[Passage], *, split: bool) -> dict[str, Any]:
    """golden@1 retrieval cases: every answerable question, its passage relevant (or, when it
    is engineer-only in the split, forbidden and the expected status insufficient_evidence)."""
    cases = []
    for passage in passages:
        for question in passage.questions:
            if question.answer is None:
                continue
            hidden = split and passage.engineer_only_in_split
            ref = f"{passage.passage_id}@1"
            cases.append(
                {
                    "case_id": question.question_id,
                    "kind": "retrieval",
                    "user_id": USER,
                    "query": question.text,
                    "k": K,
                    "relevant": [] if hidden else [ref],
                    "forbidden": [ref] if hidden else [],
                    "expect_status": "insufficient_evidence" if hidden else "ok",
                    "answer": question.answer,
                }
            )
    return _golden("squad2-dev" + ("-split" if split else ""), cases)


def impossible_golden(passages: list[Passage]) -> dict[str, Any]:
    """SQuAD's own unanswerable questions, asked of the all-readable corpus."""
    cases = [
        {
            "case_id": question.question_id,
            "kind": "retrieval",
            "user_id": USER,
            "query": question.text,
            "k": K,
            "relevant": [],
            "forbidden": [],
            "expect_status": "insufficient_evidence",
        }
        for passage in passages
        for question in passage.questions
        if question.answer is None
    ]
    return _golden("squad2-dev-impossible", cases)


def _golden(name: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema_version": "golden@1",
        "dataset_id": f"{name}@{len(cases)}",
        "as_of": AS_OF,
        "cases": cases,
    }
