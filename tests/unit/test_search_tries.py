"""Searching for one need: its queries in order, and once more in the evidence's own words."""

from __future__ import annotations

from datetime import date

import pytest

from services.agents.gathering import search_tries, standing
from services.agents.planning import Search, plan_searches, read_supplement
from services.contracts.memory_input import Need
from services.contracts.task_state import TaskState
from services.retrieval.types import Evidence, RetrievalResult, RetrievalStatus


def span(evidence_id: str, quote: str) -> Evidence:
    document_id, _, rest = evidence_id.partition("@")
    start, end = (int(x) for x in rest.split(":")[1].split("-"))
    return Evidence(
        evidence_id=evidence_id,
        document_id=document_id,
        version=int(rest.split(":")[0]),
        chunk_id=f"{document_id}-c0",
        knowledge_class="fact",
        doc_type="sop",
        title=document_id,
        start=start,
        end=end,
        quote=quote,
        content_hash="h",
    )


class Answers:
    """A retriever's verdicts by query; every query it is asked is kept."""

    def __init__(self, table: dict[str, tuple[RetrievalStatus, list[Evidence]]]) -> None:
        self._table = table
        self.asked: list[str] = []

    def __call__(self, query: str) -> RetrievalResult:
        self.asked.append(query)
        status, found = self._table.get(query, ("insufficient_evidence", []))
        return RetrievalResult(status=status, query=query, as_of=date(2026, 11, 29), evidence=found)


def search(key: str, name: str, *, phrase: str | None = None, pick: str | None = None) -> Search:
    need = Need(key=key, label=key, query=name, required=True, source="pending")
    return Search(need=need, by_name=name, phrase=phrase, pick=pick)


def test_a_name_the_procedures_spell_otherwise_is_searched_as_they_spell_it():
    # freight: the SOPs write "Cut-off at LHR shed"; "delivery" is in none of them
    found = [span("SOP-AIR-EXPORT@1:401-423", "3. Cut-off at LHR shed")]
    answers = Answers(
        {
            "lhr delivery cutoff": ("insufficient_evidence", found),
            "lhr cut-off": ("ok", found),
        }
    )
    tries = search_tries(search("lhr_delivery_cutoff", "lhr delivery cutoff"), answers, [])
    assert answers.asked == ["lhr delivery cutoff", "lhr cut-off"]
    assert standing(tries)[0] == "lhr cut-off"


def test_knowledge_in_another_language_is_searched_by_the_embeddings_pick():
    # pharma: the English name finds only Chinese spans, none in its words
    found = [span("SOP-QA-021@3:425-430", "5. 延期")]
    answers = Answers(
        {
            "open deviation disposition": ("insufficient_evidence", found),
            "未关闭偏差的处理": ("ok", [span("SOP-QA-012@2:419-430", "5. 未关闭偏差的处理")]),
        }
    )
    wanted = search(
        "open_deviation_disposition", "open deviation disposition", pick="未关闭偏差的处理"
    )
    assert standing(search_tries(wanted, answers, []))[0] == "未关闭偏差的处理"
    assert answers.asked == ["open deviation disposition", "未关闭偏差的处理"]


def test_knowledge_that_writes_the_name_is_not_searched_by_the_embeddings_pick():
    # distributor: "EUS" is in the export SOP, so the pick (a name in the mail) is not tried
    found = [span("SOP-EXPORT@1:437-462", "3. Classification and EUS")]
    answers = Answers({"eus requirement": ("insufficient_evidence", found)})
    tries = search_tries(search("eus_requirement", "eus requirement", pick="周雅婷"), answers, [])
    assert answers.asked == ["eus requirement"]
    assert standing(tries)[1].status == "insufficient_evidence"


@pytest.mark.parametrize(
    ("name", "name_finds", "phrase", "asked"),
    [
        # pharma: the name's words are mostly not the SOP's; the task's phrase naming CAPA is
        (
            "capa tracking requirement",
            ("insufficient_evidence", [span("SOP-QA-035@1:91-101", "CAPA")]),
            "CAPA由QA按SOP-QA-035跟踪至关闭",
            ["capa tracking requirement", "CAPA由QA按SOP-QA-035跟踪至关闭"],
        ),
        # distributor: the name finds enough in the evidence's own words; the phrase waits
        (
            "date code acceptance",
            ("ok", [span("QM-OUTGOING@1:200-353", "7.2 Date code: no older than 36 months")]),
            "周小姐確認就用內湖那兩 tray 現貨（DC 2436）",
            ["date code acceptance"],
        ),
    ],
)
def test_the_tasks_phrase_naming_the_item_follows_a_name_that_finds_too_little(
    name, name_finds, phrase, asked
):
    answers = Answers({name: name_finds, phrase: ("ok", [span("SOP-QA-012@2:595-657", "CAPA")])})
    search_tries(search("item", name, phrase=phrase), answers, [])
    assert answers.asked == asked


def test_a_name_judged_by_the_embedding_alone_gives_way_to_the_tasks_phrase():
    # pharma: "long term condition" is "ok" on a Chinese heading none of its words are in
    found = [span("CONTRACT-KC-2025@1:74-81", "1. 委托项目")]
    condition = [span("SOP-QC-008@2:147-154", "2. 试验条件")]
    answers = Answers({"long term condition": ("ok", found), "稳定性方案的条件": ("ok", condition)})
    wanted = search("long_term_condition", "long term condition", pick="稳定性方案的条件")
    assert standing(search_tries(wanted, answers, []))[0] == "稳定性方案的条件"
    # distributor: a name the evidence writes is kept, the pick is not tried
    answers = Answers({"eccn classification": ("ok", [span("SOP-EXPORT@1:437-509", "ECCN")])})
    wanted = search("eccn_classification", "eccn classification", pick="周雅婷")
    assert standing(search_tries(wanted, answers, []))[0] == "eccn classification"
    assert answers.asked == ["eccn classification"]


def test_a_conflict_the_name_finds_stands_whatever_other_words_would_find():
    found = [span("SOP-QA-050@1:331-366", "最长48小时"), span("SOP-PRD-015@1:142-180", "24小时")]
    answers = Answers({"dirty hold time": ("source_conflict", found)})
    wanted = search("dirty_hold_time", "dirty hold time", phrase="脏设备保持时间（DHT）")
    tries = search_tries(wanted, answers, [])
    assert answers.asked == ["dirty hold time"]
    assert standing(tries)[1].status == "source_conflict"


def _planned(key: str, supplement: str) -> Search:
    state = TaskState(tenant_id="T", task_id="T-1", revision=1, status="retrieving", pending=[key])
    [found] = [
        s
        for s in plan_searches(state, read_supplement(state, supplement), supplement, [])
        if s.need.key == key
    ]
    return found


@pytest.mark.parametrize(
    ("supplement", "written"),
    [
        ("住戶說漏水變嚴重了，請確認還在不在保固內。", "保固"),  # a Taiwanese contractor
        ("客户说设备又坏了，请确认是否还在保修期内。", "保修"),  # a mainland service desk
    ],
)
def test_a_field_with_two_chinese_words_is_searched_by_each_when_both_find_too_little(
    supplement: str, written: str
) -> None:
    wanted = _planned("warranty", supplement)
    assert wanted.need.query.split()[:2] == ["保固", "保修"]
    clause = span("CT@1:0-20", f"本工程之{written}期間為自驗收合格之日起2年。")
    answers = Answers({written: ("ok", [clause])})
    tries = search_tries(wanted, answers, [])
    assert answers.asked[0] == wanted.need.query
    assert written in answers.asked[1:]
    assert standing(tries) == (written, answers(written))


def test_both_chinese_words_that_find_enough_are_not_searched_again() -> None:
    wanted = _planned("warranty", "請確認保固範圍。")
    answers = Answers({wanted.need.query: ("ok", [span("CT@1:0-9", "保固期間為2年。")])})
    search_tries(wanted, answers, [])
    assert answers.asked == [wanted.need.query]
