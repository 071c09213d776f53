"""CMRC 2018 → corpus@1 / golden@1: the conversion validates, is fixed, and splits readability
evenly; the public-eval metrics count what they claim (a leaked passage is a forbidden hit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from services.contracts import json_schema
from services.contracts.golden import Golden, RetrievalCase
from services.core.errors import InvalidInput
from services.lab import cmrc2018, public_eval, squad2
from services.lab.baselines import Bm25Baseline, Doc, char_ngrams, words
from services.lab.eval_cases import CaseOutcome, Citation
from services.records.importer import validate_corpus

REPO = Path(__file__).resolve().parents[2]
SLICE = REPO / "data" / "cmrc2018" / "cmrc2018_dev_slice20.json"
BLIND = REPO / "data" / "blind"


@pytest.fixture(scope="module")
def passages() -> list[cmrc2018.Passage]:
    return cmrc2018.read_squad(SLICE)


def test_the_slice_converts_to_a_valid_corpus_and_golden_set(passages):
    selected = cmrc2018.select_questions(passages, 20)
    for split in (False, True):
        corpus = cmrc2018.corpus(passages, split=split)
        parsed = validate_corpus(corpus, source="cmrc2018")  # pydantic model + JSON Schema
        assert len(parsed.documents) == len(passages) == 20
        assert {d.language for d in parsed.documents} == {"zh-Hans"}
        assert {(d.status, d.knowledge_class) for d in parsed.documents} == {("approved", "fact")}
        golden = cmrc2018.golden(selected, split=split)
        jsonschema.validate(golden, json_schema("golden@1"))
        Golden.model_validate(golden)
        assert all(case["user_id"] == cmrc2018.SALES_USER for case in golden["cases"])


def test_every_other_passage_is_engineer_only_in_the_split_corpus(passages, tmp_path):
    corpus = cmrc2018.corpus(passages, split=True)
    acls = [doc["acl"] for doc in corpus["documents"]]
    assert acls[0::2] == [["tenant"]] * 10
    assert acls[1::2] == [["role:engineer"]] * 10
    unreadable = public_eval.unreadable_documents(
        _written(tmp_path / "split.json", corpus), cmrc2018.SALES_USER
    )
    assert unreadable == {doc["document_id"] for doc in corpus["documents"][1::2]}
    everyone = cmrc2018.corpus(passages, split=False)
    assert (
        public_eval.unreadable_documents(
            _written(tmp_path / "all.json", everyone), cmrc2018.SALES_USER
        )
        == set()
    )


def test_questions_are_spread_over_distinct_passages_half_of_them_answerable(passages):
    selected = cmrc2018.select_questions(passages, 20)
    assert len({s.passage.passage_id for s in selected}) == 20
    golden = cmrc2018.golden(selected, split=True)
    statuses = [case["expect_status"] for case in golden["cases"]]
    assert statuses.count("ok") == statuses.count("insufficient_evidence") == 10
    for case, item in zip(golden["cases"], selected, strict=True):
        assert item.question.answer in item.passage.context
        hidden = case["expect_status"] == "insufficient_evidence"
        assert case["forbidden" if hidden else "relevant"] == [f"{item.passage.passage_id}@1"]
    # Fixed: the same input gives the same questions in the same order.
    assert cmrc2018.select_questions(passages, 20) == selected
    fewer = cmrc2018.select_questions(passages, 7)
    assert len(fewer) == 7 and len({s.passage.passage_id for s in fewer}) == 7


def test_more_questions_than_passages_is_refused(passages):
    with pytest.raises(InvalidInput, match="at most 20 questions"):
        cmrc2018.select_questions(passages, 21)


def test_traditional_queries_are_converted_with_taiwan_phrasing(passages):
    selected = cmrc2018.select_questions(passages, 20)
    simplified = cmrc2018.golden(selected, split=False)["cases"]
    traditional = cmrc2018.golden(selected, split=False, traditional=True)["cases"]
    assert [c["case_id"] for c in traditional] == [c["case_id"] for c in simplified]
    changed = [t["query"] for s, t in zip(simplified, traditional, strict=True) if s != t]
    assert len(changed) >= 15
    assert cmrc2018.to_traditional("软件开发") == "軟體開發"  # s2twp, not plain s2t


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        ({"data": "nope"}, "'data' list"),
        ({"data": [{"paragraphs": [{"context": "文本"}]}]}, r"paragraphs\[0\]\.id"),
        (
            {
                "data": [
                    {
                        "paragraphs": [
                            {
                                "id": "P1",
                                "context": "北京是首都。",
                                "qas": [{"question": "?", "answers": [{"text": "上海"}]}],
                            }
                        ]
                    }
                ]
            },
            r"\(P1\)\.qas\[0\]\.answers\[0\]\.text",
        ),
    ],
)
def test_a_malformed_dataset_is_refused_naming_the_field(broken, message):
    with pytest.raises(InvalidInput, match=message):
        cmrc2018.parse_squad(broken, source="x.json")


def test_bm25_baseline_uses_character_unigrams_and_bigrams():
    assert char_ngrams("北京 AB-1") == ["北", "京", "北京", "a", "b", "ab", "1"]
    docs = [Doc("D1", "甲", "上海是港口城市。"), Doc("D2", "乙", "北京是中国的首都。")]
    assert Bm25Baseline(docs).rank("中国的首都是哪里", 2)[0] == "D2"


def _outcome(case_id: str, status: str, cited: list[str]) -> CaseOutcome:
    citations = [Citation(doc, 1, 0, 10, "x" * 10, "sha256:0") for doc in cited]
    return CaseOutcome(
        case_id=case_id,
        status=status,
        ranked=[(doc, 1) for doc in cited],
        citations=citations,
        latency_ms=1.0,
        tenant_id="CMRC",
    )


def test_split_metrics_count_a_leaked_passage_and_wrong_statuses():
    cases = [
        RetrievalCase(case_id="a", kind="retrieval", user_id="u", query="q", relevant=["P0@1"]),
        RetrievalCase(
            case_id="b",
            kind="retrieval",
            user_id="u",
            query="q",
            forbidden=["P1@1"],
            expect_status="insufficient_evidence",
        ),
    ]
    outcomes = [
        _outcome("a", "ok", ["P0", "P3"]),  # P3 is unreadable: a leak in an answerable case
        _outcome("b", "ok", ["P2"]),  # wrong status, no leak
    ]
    block, misses = public_eval._split_metrics(cases, outcomes, {"P1", "P3"}, 5)
    assert block["forbidden_hits"] == 1
    assert misses["split_forbidden_hits"] == ["a"]
    assert block["status_accuracy_answerable"] == 1.0
    assert block["status_accuracy_unanswerable"] == 0.0
    assert misses["split_unanswerable_wrong_status"] == ["b"]


@pytest.mark.parametrize(
    "name",
    [
        "freight",
        "pharma",
        "distributor",
        "chatlog",
        "hrlegal",
        "museum",
        "itdesk",
        "foodqa",
        "propmgmt",
        "hkrepair",
        "fastener",
        "hotel",
        "dealer",
        "clinic",
        "solar",
    ],
)
def test_each_blind_dataset_validates_as_corpus_and_golden(name):
    corpus = json.loads((BLIND / name / f"{name}-corpus.json").read_text(encoding="utf-8"))
    golden = json.loads((BLIND / name / f"{name}.golden.json").read_text(encoding="utf-8"))
    parsed = validate_corpus(corpus, source=name)
    assert parsed.documents and parsed.tasks
    jsonschema.validate(golden, json_schema("golden@1"))
    cases = Golden.model_validate(golden).cases
    assert {case.kind for case in cases} == {"retrieval", "task"}


@pytest.mark.parametrize(
    "name", ["foodqa", "propmgmt", "hkrepair", "fastener", "hotel", "dealer", "clinic", "solar"]
)
def test_a_blind_dataset_s_own_checker_finds_it_clean(name):
    checker = BLIND / name / "check.py"
    done = subprocess.run(
        [sys.executable, str(checker)], cwd=checker.parent, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _written(path: Path, data: dict[str, object]) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


# ---- SQuAD 2.0 ------------------------------------------------------------------------------
SQUAD2 = REPO / "data" / "squad2" / "squad2_dev_subset.json"


def test_the_squad2_part_converts_to_valid_files_with_its_unanswerable_questions_apart(tmp_path):
    passages = squad2.read(SQUAD2)
    assert len(passages) == 83
    assert len({p.passage_id for p in passages}) == 83
    for split in (False, True):
        corpus = squad2.corpus(passages, split=split)
        parsed = validate_corpus(corpus, source="squad2")
        assert {d.language for d in parsed.documents} == {"en"}
        golden = squad2.golden(passages, split=split)
        jsonschema.validate(golden, json_schema("golden@1"))
        cases = Golden.model_validate(golden).cases
        assert len(cases) == 386  # every answerable question, none of the impossible ones
    impossible = squad2.impossible_golden(passages)
    jsonschema.validate(impossible, json_schema("golden@1"))
    assert len(impossible["cases"]) == 320
    assert {c["expect_status"] for c in impossible["cases"]} == {"insufficient_evidence"}
    split = squad2.golden(passages, split=True)["cases"]
    hidden = {p.passage_id for p in passages if p.engineer_only_in_split}
    for case in split:
        ref = (case["relevant"] or case["forbidden"])[0].split("@")[0]
        assert (case["expect_status"] == "insufficient_evidence") == (ref in hidden)
    unreadable = public_eval.unreadable_documents(
        _written(tmp_path / "split.json", squad2.corpus(passages, split=True)), squad2.USER
    )
    assert unreadable == hidden


def test_a_squad2_answer_outside_its_passage_is_refused_naming_the_question():
    data = {
        "data": [
            {
                "title": "T",
                "paragraphs": [
                    {
                        "context": "Rollo was a Viking.",
                        "qas": [{"id": "q1", "question": "Who?", "answers": [{"text": "Charles"}]}],
                    }
                ],
            }
        ]
    }
    with pytest.raises(InvalidInput, match=r"qas\[0\]\.answers\[0\]\.text"):
        squad2.parse(data, source="x")


def test_bm25_over_words_ranks_english_by_its_words():
    docs = [
        Doc("A", "Normans", "The Normans gave their name to Normandy."),
        Doc("B", "Rhine", "The Rhine flows through Basel."),
    ]
    assert Bm25Baseline(docs, tokenize=words).rank("Which river flows through Basel?", 2)[0] == "B"
